from __future__ import annotations

import stat
from pathlib import Path

import pytest

from aria_desktop import paths


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    result = {
        "config": tmp_path / "cfg",
        "data": tmp_path / "data",
        "state": tmp_path / "state",
        "runtime": tmp_path / "run",
    }
    monkeypatch.setenv("ARIA_CONFIG_DIR", str(result["config"]))
    monkeypatch.setenv("ARIA_DATA_DIR", str(result["data"]))
    monkeypatch.setenv("ARIA_STATE_DIR", str(result["state"]))
    monkeypatch.setenv("ARIA_RUNTIME_DIR", str(result["runtime"]))
    return result


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_env_overrides_and_private_modes(dirs: dict[str, Path]) -> None:
    assert paths.config_dir() == dirs["config"]
    assert paths.data_dir() == dirs["data"]
    assert paths.state_dir() == dirs["state"]
    assert paths.runtime_dir() == dirs["runtime"]
    for directory in dirs.values():
        assert directory.is_dir()
        assert _mode(directory) == 0o700


def test_file_locations(dirs: dict[str, Path]) -> None:
    assert paths.settings_file() == dirs["config"] / "settings.toml"
    assert paths.secrets_file() == dirs["config"] / "secrets.toml"
    assert paths.database_path() == dirs["data"] / "aria.db"
    assert paths.audit_log_path() == dirs["data"] / "audit" / "audit.jsonl"
    assert _mode(dirs["data"] / "audit") == 0o700
    assert paths.audit_checkpoint_path() == dirs["state"] / "audit.checkpoint"
    assert paths.default_log_file() == dirs["state"] / "aria.log"


def test_checkpoint_lives_apart_from_the_log(dirs: dict[str, Path]) -> None:
    log_dir = paths.audit_log_path().parent
    checkpoint_dir = paths.audit_checkpoint_path().parent
    assert log_dir != checkpoint_dir
    assert log_dir not in checkpoint_dir.parents


def test_existing_directory_mode_is_left_alone(dirs: dict[str, Path]) -> None:
    dirs["config"].mkdir(mode=0o755)
    dirs["config"].chmod(0o755)
    paths.config_dir()
    assert _mode(dirs["config"]) == 0o755


def test_platformdirs_default_without_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR", "ARIA_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xc"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xd"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xs"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xr"))
    assert paths.config_dir() == tmp_path / "xc" / "aria-desktop"
    assert paths.data_dir() == tmp_path / "xd" / "aria-desktop"
    assert paths.state_dir() == tmp_path / "xs" / "aria-desktop"
    assert paths.runtime_dir() == tmp_path / "xr" / "aria-desktop"


def test_resource_path_finds_checkout_resources() -> None:
    path = paths.resource_path("default-settings.toml")
    assert path.is_file()
    assert path.parent.name == "resources"


@pytest.mark.parametrize("name", ["../pyproject.toml", "/etc/passwd", ""])
def test_resource_path_rejects_escapes(name: str) -> None:
    with pytest.raises(ValueError, match="relative path"):
        paths.resource_path(name)


def test_resource_path_missing_names_places() -> None:
    with pytest.raises(FileNotFoundError, match="no-such-file"):
        paths.resource_path("no-such-file.bin")
