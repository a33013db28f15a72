"""``aria doctor``'s desktop-skill lines, on a desktop that has every part (a real sound server,
mpv on a private bus, dunst, installed apps) and on one that has none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.doctor.skills import check_desktop_skills
from tests.skills.desktop_parts import (
    dunst,  # noqa: F401 - fixture
    mpv_player,  # noqa: F401 - fixture
    session_bus,  # noqa: F401 - fixture
    write_app,
)
from tests.voice.pulse import PulseServer, pulse_server


@pytest.fixture
def pulse(tmp_path: Path) -> Iterator[PulseServer]:
    with pulse_server(tmp_path / "pulse") as server:
        yield server


@pytest.fixture
def apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("Calculator", "Files"):
        write_app(tmp_path / "share", name.lower(), name=name, command="/bin/true")
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user"))


@pytest.mark.slow  # a PulseAudio server, mpv, Xvfb and dunst
@pytest.mark.usefixtures("pulse", "mpv_player", "dunst", "apps")
async def test_a_full_desktop_says_every_skill_works() -> None:
    lines = {r.name: r for r in await check_desktop_skills()}
    assert [r.status for r in lines.values()] == ["OK"] * 4, lines
    assert lines["volume control"].detail.startswith("pulseaudio ")
    assert lines["volume control"].detail.endswith(": set, up, down and mute work")
    assert lines["media control"].detail == "1 player(s): mpv (playing)"
    assert lines["notifications"].detail.startswith("dunst ")
    assert lines["open apps"].detail == "2 installed apps can be opened by name"


async def test_a_bare_machine_says_plainly_what_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/none")
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "empty-user"))
    lines = {r.name: r for r in await check_desktop_skills()}
    assert {name: r.status for name, r in lines.items()} == {
        "volume control": "WARN",
        "media control": "WARN",
        "notifications": "WARN",
        "open apps": "WARN",
    }
    assert "no sound server" in lines["volume control"].detail
    assert "no session bus" in lines["media control"].detail
    assert "only spoken and rung" in lines["notifications"].detail
    assert lines["open apps"].detail.startswith("no installed apps found")


@pytest.mark.usefixtures("session_bus")
async def test_a_session_bus_with_no_player_is_fine() -> None:
    lines = {r.name: r for r in await check_desktop_skills()}
    assert lines["media control"].status == "OK"
    assert lines["media control"].detail == "works; no media player is running now"
