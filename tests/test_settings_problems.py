"""A start that never breaks: the tolerant load reports each mistake and uses the rest.

Real files in a temporary folder; the strict load (``load_settings``) is checked in
``test_settings.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.domain.errors import ConfigError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.settings import (
    FileSettingsAccess,
    Settings,
    load_settings,
    load_settings_with_problems,
    set_value,
)
from aria_desktop.settings.problems import locate_key


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_misspelt_key_is_ignored_with_a_suggestion_and_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '[voice]\npush_to_talk = "toggle"\nenabeld = false\n')
    loaded = load_settings_with_problems(path, env={})
    assert loaded.parsed
    assert loaded.settings.voice.push_to_talk == "toggle"  # the rest of the file is used
    assert loaded.settings.voice.enabled == Settings().voice.enabled
    (problem,) = loaded.problems
    assert problem.key == "voice.enabeld"
    assert "did you mean voice.enabled?" in problem.message
    assert "ignored" in problem.message
    assert (problem.file, problem.line, problem.column) == (str(path), 3, 1)


def test_a_bad_value_falls_back_to_the_default_of_that_key_only(tmp_path: Path) -> None:
    path = _write(tmp_path, '[voice]\npush_to_talk = "hodl"\n\n[voice.vad]\nsilence_s = 1.5\n')
    loaded = load_settings_with_problems(path, env={})
    assert loaded.settings.voice.push_to_talk == Settings().voice.push_to_talk
    assert loaded.settings.voice.vad.silence_s == 1.5
    (problem,) = loaded.problems
    assert problem.key == "voice.push_to_talk"
    assert problem.line == 2
    assert "must be one of hold, toggle" in problem.message
    assert "ARIA uses the default (hold) instead" in problem.message


def test_a_broken_rule_between_fields_gives_both_keys_their_defaults(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "[llm.retry]\nmax_attempts = 5\nbase_delay_s = 9.0\nmax_delay_s = 2.0\n"
    )
    loaded = load_settings_with_problems(path, env={})
    retry, default = loaded.settings.llm.retry, Settings().llm.retry
    assert (retry.base_delay_s, retry.max_delay_s) == (default.base_delay_s, default.max_delay_s)
    assert retry.max_attempts == 5
    (problem,) = loaded.problems
    assert problem.key == "llm.retry.max_delay_s"
    assert problem.line == 4
    assert "llm.retry.max_delay_s and llm.retry.base_delay_s" in problem.message


def test_a_file_that_does_not_parse_gives_defaults_and_the_environment(tmp_path: Path) -> None:
    text = '[voice]\nenabled = true\n[llm.ollama\nmodel = "x"\n'
    path = _write(tmp_path, text)
    loaded = load_settings_with_problems(path, env={"ARIA_LLM__OLLAMA__MODEL": "qwen3:4b"})
    assert not loaded.parsed
    assert loaded.settings.llm.ollama.model == "qwen3:4b"
    assert loaded.settings.voice == Settings().voice
    (problem,) = loaded.problems
    assert problem.key == ""
    assert (problem.line, problem.column) == (3, 12)
    assert "cannot be read: Expected ']'" in problem.message
    assert path.read_text(encoding="utf-8") == text  # never rewritten


def test_an_unknown_section_and_a_bad_environment_variable_are_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "[voic]\nenabled = true\n")
    loaded = load_settings_with_problems(path, env={"ARIA_VOICE__ENABLED": "maybe"})
    first, second = loaded.problems
    assert (first.key, first.line) == ("voic", 1)
    assert "not a section ARIA knows (did you mean voice?)" in first.message
    assert second.key == "voice.enabled"
    assert second.file == ""  # not in the file: the message names the variable instead
    assert "ARIA_VOICE__ENABLED" in second.message


def test_a_file_not_saved_as_utf8_is_located(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b'[voice]\nname = "caf\xe9"\n')
    (problem,) = load_settings_with_problems(path, env={}).problems
    assert (problem.line, problem.column) == (2, 12)
    assert "UTF-8" in problem.message


def test_the_strict_load_still_refuses(tmp_path: Path) -> None:
    path = _write(tmp_path, "[voice]\nenabeld = true\n")
    with pytest.raises(ConfigError, match=r"Unknown setting 'voice\.enabeld'"):
        load_settings(path, env={})


def test_locate_key_finds_dotted_and_inline_keys() -> None:
    text = '[llm]\nollama.model = "a"\nretry = { base_delay_s = 1.0 }\n'
    assert locate_key(text, "llm.ollama.model") == (2, 1)
    assert locate_key(text, "llm.retry.base_delay_s") == (3, 11)
    assert locate_key(text, "voice.enabled") is None


def test_problem_wire_form_round_trips() -> None:
    problem = SettingsProblem(key="a.b", message="m", file="/f", line=2, column=3)
    assert SettingsProblem.from_dict(problem.to_dict()) == problem
    assert problem.where() == "line 2, column 3 of /f"


def test_the_writer_does_not_clobber_a_file_that_does_not_parse(tmp_path: Path) -> None:
    text = "[voice\nenabled = false\n# my notes\n"
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        set_value("llm.ollama.model", "qwen3:4b", path)
    assert "not saved" in info.value.message
    assert "line 1, column 7" in info.value.message
    assert "`" not in info.value.message + info.value.hint
    assert path.read_text(encoding="utf-8") == text


def test_the_writer_keeps_unknown_keys_and_refuses_only_its_own_mistakes(tmp_path: Path) -> None:
    path = _write(tmp_path, '[voice]\nenabeld = true\npush_to_talk = "hodl"\n')
    set_value("llm.ollama.model", "qwen3:4b", path)  # the file's own mistakes do not stop it
    loaded = load_settings_with_problems(path, env={})
    assert loaded.settings.llm.ollama.model == "qwen3:4b"
    assert [p.key for p in loaded.problems] == ["voice.enabeld", "voice.push_to_talk"]
    with pytest.raises(ConfigError, match="base_delay_s"):
        set_value("llm.retry.base_delay_s", "100", path)  # breaks a rule with the default max
    assert "enabeld = true" in path.read_text(encoding="utf-8")


def test_file_settings_access_reads_a_broken_file_on_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, "[voice\n")
    current = FileSettingsAccess(path).current()
    assert current["voice"]["enabled"] == Settings().voice.enabled
