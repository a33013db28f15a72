from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.chainer
import keyring.backends.fail
import keyring.backends.null
import keyring.errors
import pytest

from aria_desktop import keystore, log, paths
from aria_desktop.domain.errors import ConfigError, SecretStoreError

KEY = "sk-ant-api03-TestKeyTestKeyTestKey0123456789"
OTHER_KEY = "sk-ant-api03-OtherOtherOtherOther0123456789"
ENV_NAMES = (
    "ARIA_ANTHROPIC_API_KEY",
    "ANTHROPIC_API_KEY",
    "ARIA_OPENAI_API_KEY",
    "OPENAI_API_KEY",
    "ARIA_HOMEASSISTANT_TOKEN",
)


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A real keyring backend that keeps passwords in a dict."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.store[(service, username)]


class LockedKeyring(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")


class ForgetfulKeyring(MemoryKeyring):
    """Accepts writes and silently drops them (what a chainer of read-only backends does)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        return None


def _fail() -> keyring.backend.KeyringBackend:
    return keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ARIA_CONFIG_DIR", str(tmp_path / "cfg"))
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(keystore, "_env_values", {})
    previous = keyring.get_keyring()
    yield
    keyring.set_keyring(previous)
    log.clear_registered_secrets()


@pytest.fixture
def memory() -> MemoryKeyring:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


def _config_files() -> list[Path]:
    return sorted(p for p in paths.config_dir().rglob("*"))


# --- keyring ------------------------------------------------------------------------------------


def test_set_and_get_via_keyring(memory: MemoryKeyring) -> None:
    assert keystore.secret_status("anthropic_api_key") == "missing"
    assert keystore.get_secret("anthropic_api_key") is None
    assert keystore.set_secret("anthropic_api_key", f"  {KEY}\n") == "keyring"
    assert memory.store[("aria-desktop", "anthropic_api_key")] == KEY
    log.clear_registered_secrets()
    assert keystore.get_secret("anthropic_api_key") == KEY
    assert log.scrub_text(f"x {KEY} y") == "x [REDACTED] y"  # registered on read
    assert keystore.secret_status("anthropic_api_key") == "keyring"
    assert _config_files() == []  # nothing on disk


def test_delete_secret(memory: MemoryKeyring) -> None:
    keystore.set_secret("openai_api_key", KEY)
    assert keystore.delete_secret("openai_api_key") is True
    assert keystore.get_secret("openai_api_key") is None
    assert keystore.delete_secret("openai_api_key") is False


@pytest.mark.parametrize(
    "backend_factory",
    [keyring.backends.fail.Keyring, keyring.backends.null.Keyring],
    ids=["fail", "null"],
)
def test_no_keyring_refuses_without_writing(backend_factory: type) -> None:
    keyring.set_keyring(backend_factory())
    with pytest.raises(SecretStoreError) as info:
        keystore.set_secret("anthropic_api_key", KEY)
    message = str(info.value)
    assert "No usable system keyring" in message
    assert backend_factory.__module__ in message
    assert "--insecure-file" in info.value.hint
    assert str(paths.secrets_file()) in info.value.hint
    assert "gnome-keyring" in info.value.hint
    assert KEY not in message
    assert KEY not in info.value.hint
    assert not paths.secrets_file().exists()
    assert _config_files() == []
    assert keystore.get_secret("anthropic_api_key") is None  # reading degrades to "missing"
    assert keystore.keyring_status()[0] is False


def test_chainer_without_backends_is_unusable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyring.backends.chainer.ChainerBackend, "backends", [])
    keyring.set_keyring(keyring.backends.chainer.ChainerBackend())  # type: ignore[no-untyped-call]
    with pytest.raises(SecretStoreError, match="no usable backends"):
        keystore.set_secret("anthropic_api_key", KEY)
    assert not paths.secrets_file().exists()


def test_locked_keyring_refuses_and_reads_degrade() -> None:
    keyring.set_keyring(LockedKeyring())
    with pytest.raises(SecretStoreError) as info:
        keystore.set_secret("anthropic_api_key", KEY)
    assert "KeyringLocked" in str(info.value)
    assert not paths.secrets_file().exists()
    assert keystore.get_secret("anthropic_api_key") is None
    assert keystore.secret_status("anthropic_api_key") == "missing"


def test_keyring_that_drops_writes_is_detected() -> None:
    keyring.set_keyring(ForgetfulKeyring())
    with pytest.raises(SecretStoreError, match="did not keep"):
        keystore.set_secret("anthropic_api_key", KEY)


def test_keyring_status_with_memory_backend(memory: MemoryKeyring) -> None:
    usable, detail = keystore.keyring_status()
    assert usable is True
    assert "MemoryKeyring" in detail


# --- file fallback --------------------------------------------------------------------------


def test_file_fallback_only_with_opt_in() -> None:
    keyring.set_keyring(_fail())
    tricky = KEY + '"\\'
    assert keystore.set_secret("anthropic_api_key", tricky, allow_file_fallback=True) == "file"
    path = paths.secrets_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["secrets.toml"]  # no temp file left
    assert keystore.get_secret("anthropic_api_key") == tricky
    assert keystore.secret_status("anthropic_api_key") == "file"
    keystore.set_secret("openai_api_key", OTHER_KEY, allow_file_fallback=True)
    assert keystore.get_secret("anthropic_api_key") == tricky
    assert keystore.get_secret("openai_api_key") == OTHER_KEY
    assert keystore.delete_secret("anthropic_api_key") is True
    assert keystore.get_secret("anthropic_api_key") is None
    assert keystore.get_secret("openai_api_key") == OTHER_KEY


def test_file_fallback_is_not_used_when_keyring_works(memory: MemoryKeyring) -> None:
    assert keystore.set_secret("anthropic_api_key", KEY, allow_file_fallback=True) == "keyring"
    assert not paths.secrets_file().exists()


def test_moving_to_the_keyring_removes_the_file_copy(memory: MemoryKeyring) -> None:
    keyring.set_keyring(_fail())
    keystore.set_secret("anthropic_api_key", OTHER_KEY, allow_file_fallback=True)
    keyring.set_keyring(memory)
    keystore.set_secret("anthropic_api_key", KEY)
    assert not paths.secrets_file().exists()
    assert keystore.get_secret("anthropic_api_key") == KEY


def test_world_readable_secrets_file_is_refused() -> None:
    keyring.set_keyring(_fail())
    keystore.set_secret("anthropic_api_key", KEY, allow_file_fallback=True)
    os.chmod(paths.secrets_file(), 0o644)
    with pytest.raises(SecretStoreError) as info:
        keystore.get_secret("anthropic_api_key")
    assert "chmod 600" in info.value.hint
    assert KEY not in str(info.value)


def test_corrupt_secrets_file_does_not_echo_contents() -> None:
    keyring.set_keyring(_fail())
    path = paths.secrets_file()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, f'anthropic_api_key = "{KEY}\n'.encode())
    os.close(fd)
    with pytest.raises(SecretStoreError) as info:
        keystore.get_secret("anthropic_api_key")
    assert KEY not in str(info.value)
    assert info.value.__cause__ is None


# --- environment ----------------------------------------------------------------------------


def _child_sees(name: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", f"import os; print(os.environ.get({name!r}))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return result.stdout.strip()


def test_env_key_is_used_then_removed_from_environ(
    memory: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    keystore.set_secret("anthropic_api_key", OTHER_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert _child_sees("ANTHROPIC_API_KEY") == KEY  # sanity: children inherit env normally
    assert keystore.get_secret("anthropic_api_key") == KEY  # env beats the keyring
    assert "ANTHROPIC_API_KEY" not in os.environ
    assert _child_sees("ANTHROPIC_API_KEY") == "None"
    # still available in this process after removal
    assert keystore.get_secret("anthropic_api_key") == KEY
    assert keystore.secret_status("anthropic_api_key") == "env"
    assert log.scrub_text(KEY) == "[REDACTED]"


def test_aria_prefixed_variable_wins_and_both_are_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    keyring.set_keyring(_fail())
    monkeypatch.setenv("ARIA_ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", OTHER_KEY)
    assert keystore.get_secret("anthropic_api_key") == KEY
    assert "ARIA_ANTHROPIC_API_KEY" not in os.environ
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_scrub_secret_env_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    keyring.set_keyring(_fail())
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OTHER_KEY)
    monkeypatch.setenv("ARIA_OPENAI_API_KEY", "   ")  # blank: ignored, but still removed
    assert sorted(keystore.scrub_secret_env()) == ["anthropic_api_key", "openai_api_key"]
    for name in ENV_NAMES:
        assert name not in os.environ
        assert _child_sees(name) == "None"
    assert keystore.get_secret("anthropic_api_key") == KEY
    assert keystore.get_secret("openai_api_key") == OTHER_KEY


def test_explicit_env_mapping() -> None:
    keyring.set_keyring(_fail())
    env = {"OPENAI_API_KEY": OTHER_KEY, "PATH": "/bin"}
    assert keystore.get_secret("openai_api_key", env) == OTHER_KEY
    assert env == {"PATH": "/bin"}


def test_delete_secret_forgets_env_value(
    memory: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert keystore.get_secret("openai_api_key") == KEY
    assert keystore.delete_secret("openai_api_key") is True
    assert keystore.get_secret("openai_api_key") is None


# --- input validation -----------------------------------------------------------------------


def test_unknown_secret_name() -> None:
    with pytest.raises(ConfigError) as info:
        keystore.get_secret("github_token")
    assert "anthropic_api_key" in info.value.hint
    assert keystore.SECRET_NAMES == ("anthropic_api_key", "openai_api_key", "homeassistant_token")


def test_empty_value_is_refused(memory: MemoryKeyring) -> None:
    with pytest.raises(ConfigError, match="empty"):
        keystore.set_secret("anthropic_api_key", " \n")
    assert memory.store == {}
