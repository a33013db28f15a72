from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from aria_desktop import paths, settings
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import Settings, load_settings, set_value, writing
from aria_desktop.settings.coercion import Raw, convert
from aria_desktop.settings.keys import Leaf
from aria_desktop.settings.rules import NO_RULES


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, sub in (("ARIA_CONFIG_DIR", "cfg"), ("ARIA_DATA_DIR", "data")):
        monkeypatch.setenv(name, str(tmp_path / sub))
    monkeypatch.setenv("ARIA_STATE_DIR", str(tmp_path / "state"))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- defaults and loading ---------------------------------------------------------------------


def test_defaults_without_file() -> None:
    loaded = load_settings(env={})
    assert loaded == Settings()
    assert loaded.llm.ollama.url == "http://127.0.0.1:11434"
    assert loaded.llm.ollama.model == "llama3.1:8b"
    assert loaded.llm.anthropic.capabilities == ("tools", "vision")
    assert loaded.llm.openai.url == ""
    assert dict(loaded.llm.chains) == {"chat": ("ollama", "anthropic")}
    assert loaded.llm.fallback_on == ("error", "context_overflow", "capability")
    assert loaded.llm.timeouts.first_token_s == 120.0
    assert loaded.llm.retry.max_attempts == 3
    assert loaded.llm.breaker.failure_threshold == 5
    assert loaded.agent.max_steps == 8
    assert "ARIA" in loaded.agent.system_prompt
    assert "screen" in loaded.agent.system_prompt
    assert loaded.log.level == "INFO"


def test_settings_are_frozen() -> None:
    loaded = Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.agent.max_steps = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        loaded.llm.chains["chat"] = ("anthropic",)  # type: ignore[index]


def test_shipped_default_settings_match_the_dataclasses() -> None:
    resource = paths.resource_path("default-settings.toml")
    assert load_settings(resource, env={}) == Settings()
    with resource.open("rb") as fh:
        data = tomllib.load(fh)
    for key, _type, _default in settings.describe_keys():
        node = data
        for part in key.split("."):
            assert part in node, f"{key} missing from default-settings.toml"
            node = node[part]


def test_toml_load(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
[llm]
max_tokens = 1024
fallback_on = ["error"]

[llm.chains]
vision = ["anthropic"]

[llm.ollama]
url = "http://gpu:11434"
capabilities = ["tools", "vision"]

[llm.timeouts]
stall_s = 10        # an int where a float is expected is fine

[log]
level = "debug"
""",
    )
    loaded = load_settings(path, env={})
    assert loaded.llm.max_tokens == 1024
    assert loaded.llm.fallback_on == ("error",)
    assert loaded.llm.ollama.url == "http://gpu:11434"
    assert loaded.llm.ollama.model == "llama3.1:8b"  # untouched default
    assert loaded.llm.ollama.capabilities == ("tools", "vision")
    assert loaded.llm.timeouts.stall_s == 10.0
    assert isinstance(loaded.llm.timeouts.stall_s, float)
    assert loaded.log.level == "DEBUG"
    # chains merge over the default
    assert dict(loaded.llm.chains) == {"chat": ("ollama", "anthropic"), "vision": ("anthropic",)}


def test_default_settings_file_location_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    paths.settings_file().write_text("[agent]\nmax_steps = 2\n", encoding="utf-8")
    assert load_settings(env={}).agent.max_steps == 2


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml"):
        load_settings(tmp_path / "nope.toml", env={})


# --- environment overrides --------------------------------------------------------------------


def test_env_override_with_nesting(tmp_path: Path) -> None:
    path = _write(tmp_path, '[llm.ollama]\nurl = "http://file:1"\nmodel = "qwen"\n')
    env = {
        "ARIA_LLM__OLLAMA__URL": "http://gpu:11434",
        "ARIA_AGENT__MAX_STEPS": "4",
        "ARIA_LLM__TIMEOUTS__TOTAL_S": "90.5",
        "ARIA_LLM__CHAINS__CHAT": "anthropic, ollama",
        "ARIA_LLM__FALLBACK_ON": "error,capability",
        "ARIA_LLM__ANTHROPIC__CAPABILITIES": "",
        "ARIA_LOG__LEVEL": "warning",
        "ARIA_CONFIG_DIR": "/ignored/not/a/setting",
        "ARIA_ANTHROPIC_API_KEY": "sk-ant-not-a-setting",
        "HOME": "/root",
    }
    loaded = load_settings(path, env=env)
    assert loaded.llm.ollama.url == "http://gpu:11434"  # env beats the file
    assert loaded.llm.ollama.model == "qwen"  # the file beats the default
    assert loaded.agent.max_steps == 4
    assert loaded.llm.timeouts.total_s == 90.5
    assert loaded.llm.chains["chat"] == ("anthropic", "ollama")
    assert loaded.llm.fallback_on == ("error", "capability")
    assert loaded.llm.anthropic.capabilities == ()
    assert loaded.log.level == "WARNING"


def test_env_whole_chains_table() -> None:
    loaded = load_settings(env={"ARIA_LLM__CHAINS": "chat=ollama;vision=anthropic,openai"})
    assert loaded.llm.chains["chat"] == ("ollama",)
    assert loaded.llm.chains["vision"] == ("anthropic", "openai")


def test_env_unknown_key_names_the_variable() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env={"ARIA_LLM__OLLAMA__URLL": "http://x"})
    message = str(info.value)
    assert "'llm.ollama.urll'" in message
    assert "ARIA_LLM__OLLAMA__URLL" in message
    assert "url, model, keep_alive, capabilities" in message


def test_env_wrong_type() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env={"ARIA_AGENT__MAX_STEPS": "many"})
    message = str(info.value)
    assert "'agent.max_steps'" in message
    assert "expected an integer (int)" in message
    assert "'many'" in message
    assert info.value.hint


@pytest.mark.parametrize(
    ("raw", "expected"), [("true", True), ("YES", True), ("1", True), ("off", False), ("no", False)]
)
def test_bool_coercion(raw: str, expected: bool) -> None:
    leaf = Leaf("x.flag", "bool", False, NO_RULES)
    assert convert(leaf, Raw(raw, "test", from_string=True)) is expected


def test_bool_coercion_rejects_garbage() -> None:
    leaf = Leaf("x.flag", "bool", False, NO_RULES)
    with pytest.raises(ConfigError, match="expected a boolean"):
        convert(leaf, Raw("maybe", "test", from_string=True))


# --- validation messages ----------------------------------------------------------------------


def test_unknown_key_lists_valid_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, "[agent]\nmax_stepz = 3\n")
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert "'agent.max_stepz'" in message
    assert str(path) in message
    for valid in ("max_steps", "turn_deadline_s", "system_prompt"):
        assert valid in message


def test_unknown_section(tmp_path: Path) -> None:
    path = _write(tmp_path, "[vioce]\nenabled = true\n")
    with pytest.raises(ConfigError, match=r"'vioce'") as info:
        load_settings(path, env={})
    for section in ("llm", "agent", "storage", "log", "voice"):
        assert section in info.value.message


def test_wrong_type_names_key_and_expected_type(tmp_path: Path) -> None:
    path = _write(tmp_path, '[llm.timeouts]\nstall_s = "slow"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert "'llm.timeouts.stall_s'" in message
    assert "expected a number (float)" in message
    assert "'slow'" in message


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ("[agent]\nmax_steps = 2.5\n", "agent.max_steps", "an integer (int)"),
        ("[agent]\nmax_steps = true\n", "agent.max_steps", "an integer (int)"),
        ('[llm.ollama]\ncapabilities = "tools"\n', "llm.ollama.capabilities", "list of strings"),
        ("[llm.ollama]\nmodel = 3\n", "llm.ollama.model", "a string (str)"),
        ("[llm]\nollama = 3\n", "llm.ollama", "a table"),
        ('[llm.chains]\nchat = "ollama"\n', "llm.chains.chat", "list of backend names"),
    ],
)
def test_wrong_types(tmp_path: Path, text: str, key: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_write(tmp_path, text), env={})
    assert f"'{key}'" in str(info.value)
    assert expected in str(info.value)


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ('[log]\nlevel = "LOUD"\n', "log.level", "DEBUG, INFO, WARNING, ERROR"),
        ('[llm]\nfallback_on = ["error", "bad_luck"]\n', "llm.fallback_on", "bad_luck"),
        ('[llm.chains]\nchat = ["ollama", "gpt"]\n', "llm.chains.chat", "ollama, anthropic"),
        ("[llm.chains]\nchat = []\n", "llm.chains.chat", "at least one backend"),
        ("[agent]\nmax_steps = 0\n", "agent.max_steps", "at least 1"),
        ("[llm.timeouts]\nconnect_s = 0\n", "llm.timeouts.connect_s", "greater than 0"),
        ("[llm.retry]\nbase_delay_s = -1\n", "llm.retry.base_delay_s", "at least 0"),
        ("[llm.timeouts]\ntotal_s = inf\n", "llm.timeouts.total_s", "finite"),
        ('[llm.ollama]\nurl = "gpu:11434"\n', "llm.ollama.url", "http:// or https://"),
        ('[llm.ollama]\nmodel = ""\n', "llm.ollama.model", "must not be empty"),
        ("[llm.retry]\nbase_delay_s = 9.0\n", "llm.retry.max_delay_s", "base_delay_s"),
    ],
)
def test_bad_values(tmp_path: Path, text: str, key: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_write(tmp_path, text), env={})
    assert f"'{key}'" in str(info.value)
    assert expected in str(info.value)


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '[agent]\nmax_steps = 3\nsystem_prompt = "unterminated\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    assert str(path) in str(info.value)
    assert "line 3" in str(info.value)
    assert "line 3" in info.value.hint
    assert info.value.__cause__ is None  # no traceback chain for a user mistake


@pytest.mark.parametrize(
    "text",
    [
        '[llm.anthropic]\napi_key = "sk-ant-api03-abcdefghijklmnop"\n',
        'anthropic_api_key = "sk-ant-api03-abcdefghijklmnop"\n',
        '[llm.openai]\ntoken = "abcdefghijklmnop"\n',
        '[secrets]\nopenai = "x"\n',
    ],
)
def test_secrets_in_toml_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_write(tmp_path, text), env={})
    assert "set-secret" in info.value.hint
    assert "abcdefghijklmnop" not in str(info.value)


def test_secret_looking_env_setting_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(env={"ARIA_LLM__ANTHROPIC__API_KEY": "sk-ant-api03-zzzzzzzzzzzz"})
    assert "set-secret" in info.value.hint
    assert "zzzzzzzzzzzz" not in str(info.value)


def test_typo_with_token_in_name_is_an_unknown_key_not_a_secret(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"Unknown setting 'llm\.max_token'"):
        load_settings(_write(tmp_path, "[llm]\nmax_token = 4096\n"), env={})


def test_echoed_values_are_scrubbed(tmp_path: Path) -> None:
    path = _write(tmp_path, '[llm.ollama]\nurl = "sk-ant-api03-secretsecretsecret"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    assert "secretsecretsecret" not in str(info.value)
    assert "[REDACTED]" in str(info.value)


# --- set_value --------------------------------------------------------------------------------


def test_set_value_round_trip_preserves_other_keys(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
[llm.ollama]
url = "http://gpu:11434"
model = "qwen2.5:7b"

[llm.chains]
vision = ["anthropic"]

[agent]
system_prompt = '''
Line one with "quotes" and a backslash \\ here.
Line two.'''
""",
    )
    before = load_settings(path, env={})
    set_value("agent.max_steps", "4", path)
    set_value("llm.timeouts.stall_s", "12.5", path)
    set_value("llm.anthropic.capabilities", "tools", path)
    set_value("llm.chains.chat", "anthropic,ollama", path)
    set_value("log.level", "debug", path)
    after = load_settings(path, env={})
    assert after.agent.max_steps == 4
    assert after.llm.timeouts.stall_s == 12.5
    assert after.llm.anthropic.capabilities == ("tools",)
    assert after.llm.chains["chat"] == ("anthropic", "ollama")
    assert after.llm.chains["vision"] == ("anthropic",)
    assert after.log.level == "DEBUG"
    assert after.llm.ollama == before.llm.ollama
    assert after.agent.system_prompt == before.agent.system_prompt
    assert 'with "quotes" and a backslash \\ here.' in after.agent.system_prompt


def test_set_value_creates_the_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "settings.toml"
    set_value("llm.ollama.model", "phi3", path)
    assert load_settings(path, env={}).llm.ollama.model == "phi3"


def test_set_value_default_path() -> None:
    set_value("agent.turn_deadline_s", "42", None)
    assert paths.settings_file().is_file()
    assert load_settings(env={}).agent.turn_deadline_s == 42.0


def test_set_value_validates_before_writing(tmp_path: Path) -> None:
    path = _write(tmp_path, "[agent]\nmax_steps = 3\n")
    original = path.read_bytes()
    with pytest.raises(ConfigError, match="expected an integer"):
        set_value("agent.max_steps", "lots", path)
    with pytest.raises(ConfigError, match=r"Unknown setting 'agent\.max_stepz'"):
        set_value("agent.max_stepz", "3", path)
    with pytest.raises(ConfigError, match="is a section"):
        set_value("llm.ollama", "x", path)
    with pytest.raises(ConfigError, match="greater than 0"):
        set_value("llm.breaker.reset_s", "0", path)
    with pytest.raises(ConfigError) as info:
        set_value("llm.anthropic.api_key", "sk-ant-api03-abcdefghijkl", path)
    assert "set-secret" in info.value.hint
    assert path.read_bytes() == original
    assert list(tmp_path.glob(".settings.toml.*")) == []  # no temp file left behind


def test_set_value_whole_chains(tmp_path: Path) -> None:
    path = _write(tmp_path, '[llm.chains]\nsummary = ["ollama"]\n')
    set_value("llm.chains", "chat=anthropic;vision=anthropic,ollama", path)
    chains = load_settings(path, env={}).llm.chains
    assert dict(chains) == {"chat": ("anthropic",), "vision": ("anthropic", "ollama")}


# --- set_value keeps the user's file as they wrote it ------------------------------------------

_COMMENTED = """\
# My ARIA settings
# (the GPU box is in the cellar)

[llm.ollama]
# the GPU box
url = "http://gpu:11434"  # over the LAN
model = "qwen2.5:7b"

# the chains ARIA tries, in order
[llm.chains]
vision = ["anthropic"]  # eyes

[agent]
max_steps = 3
"""


def test_set_value_keeps_comments_blank_lines_and_order_when_another_key_changes(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, _COMMENTED)
    set_value("agent.max_steps", "4", path)
    assert path.read_text(encoding="utf-8") == _COMMENTED.replace("max_steps = 3", "max_steps = 4")


def test_set_value_keeps_the_end_of_line_comment_of_the_key_it_changes(tmp_path: Path) -> None:
    path = _write(tmp_path, _COMMENTED)
    set_value("llm.ollama.url", "http://nas:11434", path)
    assert path.read_text(encoding="utf-8") == _COMMENTED.replace(
        'url = "http://gpu:11434"  # over the LAN', 'url = "http://nas:11434"  # over the LAN'
    )
    assert load_settings(path, env={}).llm.ollama.url == "http://nas:11434"


def test_set_value_adds_a_new_key_into_its_existing_table(tmp_path: Path) -> None:
    path = _write(tmp_path, _COMMENTED)
    set_value("llm.ollama.keep_alive", "10m", path)
    assert path.read_text(encoding="utf-8") == _COMMENTED.replace(
        'model = "qwen2.5:7b"\n', 'model = "qwen2.5:7b"\nkeep_alive = "10m"\n'
    )  # after the table's last key, above the blank line and the next table's comment


def test_set_value_adds_a_new_table_as_a_readable_header(tmp_path: Path) -> None:
    path = _write(tmp_path, _COMMENTED)
    set_value("llm.timeouts.stall_s", "12.5", path)
    set_value("log.level", "debug", path)
    assert (
        path.read_text(encoding="utf-8")
        == _COMMENTED.replace(
            'vision = ["anthropic"]  # eyes\n',
            'vision = ["anthropic"]  # eyes\n\n[llm.timeouts]\nstall_s = 12.5\n',
        )
        + '\n[log]\nlevel = "DEBUG"\n'
    )  # at the end of its section, a blank line above


def test_set_value_writes_a_new_file_as_plain_tables(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    set_value("llm.ollama.url", "http://gpu:11434", path)
    set_value("agent.max_steps", "2", path)
    set_value("llm.anthropic.capabilities", "tools,vision", path)
    assert path.read_text(encoding="utf-8") == (
        '[llm.ollama]\nurl = "http://gpu:11434"\n\n'
        '[llm.anthropic]\ncapabilities = ["tools", "vision"]\n\n'  # with the other llm tables
        "[agent]\nmax_steps = 2\n"
    )


def test_set_value_chains_replaces_the_whole_table_where_it_stands(tmp_path: Path) -> None:
    path = _write(tmp_path, _COMMENTED)
    set_value("llm.chains", "chat=anthropic;summary=ollama,anthropic", path)
    assert path.read_text(encoding="utf-8") == _COMMENTED.replace(
        'vision = ["anthropic"]  # eyes\n',
        'chat = ["anthropic"]\nsummary = ["ollama", "anthropic"]\n',
    )
    chains = load_settings(path, env={}).llm.chains
    assert dict(chains) == {"chat": ("anthropic",), "summary": ("ollama", "anthropic")}


def test_set_value_keeps_dates_and_arrays_of_tables_it_does_not_touch(tmp_path: Path) -> None:
    text = (
        "[agent]\nmax_steps = 3\n\n"
        "[notes]  # mine, not ARIA's\nsince = 2024-05-01\nat = 1979-05-27T07:32:00Z\n\n"
        '[[notes.trip]]\nname = "north"\n'
    )
    path = _write(tmp_path, text)
    set_value("agent.max_steps", "5", path)  # the old writer refused: it could not write a date
    assert path.read_text(encoding="utf-8") == text.replace("max_steps = 3", "max_steps = 5")


def test_set_value_writes_a_text_with_line_breaks_over_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "[agent]\nmax_steps = 3\n")
    prompt = 'Be brief.\nSay "no" \\ politely.'
    set_value("agent.system_prompt", prompt, path)
    assert '"""Be brief.\n' in path.read_text(encoding="utf-8")
    assert load_settings(path, env={}).agent.system_prompt == prompt


def test_set_value_refuses_a_change_that_would_not_read_back_as_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, _COMMENTED)
    real_edit = writing._edit

    def wrong_edit(node: Any, parts: Sequence[str], value: Any) -> None:
        real_edit(node, parts, 7 if value == 4 else value)  # a tomlkit surprise, simulated

    monkeypatch.setattr(writing, "_edit", wrong_edit)
    with pytest.raises(ConfigError) as info:
        set_value("agent.max_steps", "4", path)
    assert "not saved" in info.value.message
    assert "`" not in info.value.message  # the hint names the CLI command; windows drop it
    assert path.read_text(encoding="utf-8") == _COMMENTED


# --- introspection ----------------------------------------------------------------------------


def test_settings_as_dict_is_plain() -> None:
    data = settings.settings_as_dict(Settings())
    assert data["llm"]["chains"] == {"chat": ["ollama", "anthropic"]}
    assert data["llm"]["ollama"]["capabilities"] == ["tools"]
    assert data["agent"]["max_steps"] == 8
    import json

    json.dumps(data)  # JSON-ready


def test_describe_keys() -> None:
    described = {key: (kind, default) for key, kind, default in settings.describe_keys()}
    assert described["llm.ollama.url"] == ("str", "http://127.0.0.1:11434")
    assert described["llm.timeouts.connect_s"] == ("float", "5.0")
    assert described["agent.max_steps"] == ("int", "8")
    assert described["llm.anthropic.capabilities"] == ("tuple[str, ...]", "tools,vision")
    assert described["llm.chains"] == ("dict[str, tuple[str, ...]]", "chat=ollama,anthropic")
    assert len(described) == len(settings.describe_keys())
    # every described default is accepted back as an environment value
    env = {settings.env_var_name(key): default for key, (_k, default) in described.items()}
    assert load_settings(env=env) == Settings()


def test_env_var_name() -> None:
    assert settings.env_var_name("llm.ollama.url") == "ARIA_LLM__OLLAMA__URL"


def test_resolved_paths(tmp_path: Path) -> None:
    assert settings.resolve_database_path(Settings()) == paths.database_path()
    assert settings.resolve_log_file(Settings()) == paths.default_log_file()
    custom = dataclasses.replace(
        Settings(), storage=settings.StorageSettings(database=str(tmp_path / "x.db"))
    )
    assert settings.resolve_database_path(custom) == tmp_path / "x.db"


def test_add_named_tables_keeps_the_file_and_the_servers_already_there(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(
        "# my settings\n\n[voice]\nenabled = false  # no microphone here\n\n"
        '[mcp.servers.notes]\ncommand = "notes-mcp"\n',
        encoding="utf-8",
    )
    told: list[list[str]] = []
    added = writing.add_named_tables(
        path,
        "mcp.servers",
        {
            "notes": {"command": "other"},
            "files": {"command": "files-mcp", "args": ["--root", "/tmp"], "env": ["A=1"]},
        },
        before_write=told.append,
    )
    assert added == ["files"]
    assert told == [["files"]]
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# my settings\n\n[voice]\nenabled = false  # no microphone here\n")
    loaded = load_settings(path, {}).mcp.servers
    assert loaded["notes"].command == "notes-mcp"  # kept as it was
    assert loaded["files"].args == ("--root", "/tmp")
    assert loaded["files"].env == ("A=1",)
