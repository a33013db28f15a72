"""The speaker's volume through the composed ARIA, on a real PulseAudio server (a private one
with a null sink as the default speaker, ``tests/voice/pulse.py``); every change is read back
with ``pactl`` itself, and the no-sound-server case is a real missing server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.adapters.skills.volume import PactlVolume, sound_server
from aria_desktop.compose.app import App
from aria_desktop.core.skills.volume import VolumeSkill
from aria_desktop.domain.intents import IntentMatch
from tests.skills.conftest import ask
from tests.voice.pulse import SINK, PulseServer, pulse_server


@pytest.fixture
def pulse(tmp_path: Path) -> Iterator[PulseServer]:
    with pulse_server(tmp_path / "pulse") as server:
        yield server


def _pactl(server: PulseServer, *arguments: str) -> str:
    return subprocess.run(
        ["pactl", f"--server={server.address}", *arguments],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
        env={**server.env(), "LC_ALL": "C"},
    ).stdout


def _level(server: PulseServer) -> str:
    """The null sink's volume as pactl prints it (``40%`` on every channel)."""
    out = _pactl(server, "get-sink-volume", SINK)
    levels = {part.strip() for part in out.split("/") if part.strip().endswith("%")}
    assert len(levels) == 1, out
    return levels.pop()


def _muted(server: PulseServer) -> bool:
    return "yes" in _pactl(server, "get-sink-mute", SINK)


@pytest.mark.slow  # a PulseAudio server per test (about 2 s)
async def test_set_up_down_by_voice_commands_change_the_default_speaker(
    pulse: PulseServer, app: App
) -> None:
    answered = await ask(app, "set the volume to 40%")
    assert (answered.text, answered.backend, answered.model) == (
        "The volume is at 40 percent.",
        "skills",
        "volume",
    )
    assert _level(pulse) == "40%"
    assert (await ask(app, "turn up the volume")).text == "The volume is at 50 percent."
    assert _level(pulse) == "50%"
    assert (await ask(app, "turn the volume down by 25%")).text == "The volume is at 25 percent."
    assert _level(pulse) == "25%"
    assert (await ask(app, "volume up 90")).text == "The volume is at 100 percent."
    assert _level(pulse) == "100%"  # never past the speaker's full volume


@pytest.mark.slow  # a PulseAudio server per test (about 2 s)
async def test_mute_and_unmute_the_default_speaker(pulse: PulseServer, app: App) -> None:
    await ask(app, "set the volume to 30 percent")
    assert (await ask(app, "mute")).text == "Sound is muted."
    assert _muted(pulse)
    assert (await ask(app, "turn down the volume")).text == (
        "The volume is at 20 percent, and muted."
    )
    assert _muted(pulse)  # turning it down leaves it quiet
    assert (await ask(app, "unmute")).text == "Sound is back on, at 20 percent."
    assert not _muted(pulse)
    await ask(app, "mute")
    assert (await ask(app, "set the volume to 35%")).text == "The volume is at 35 percent."
    assert not _muted(pulse)  # asking for a level means wanting to hear it


@pytest.mark.slow  # a PulseAudio server per test (about 2 s)
async def test_the_volume_tool_and_the_sound_server_name(pulse: PulseServer, app: App) -> None:
    tool = app.orchestrator.tools.get("volume")
    assert await tool.handler({"action": "set", "level": 60}) == "The volume is at 60 percent."
    assert await tool.handler({"action": "down", "step": 15}) == "The volume is at 45 percent."
    assert await tool.handler({"action": "get"}) == "The volume is at 45 percent."
    assert _level(pulse) == "45%"
    assert tool.describe_call({"action": "set", "level": 60}) == "set the volume to 60%"
    server = await sound_server()
    assert server is not None
    assert server.startswith("pulseaudio")


@pytest.mark.slow  # a PulseAudio server per test (about 2 s)
async def test_german_volume_commands(pulse: PulseServer, tmp_path: Path) -> None:
    from aria_desktop.compose.app import build_app
    from tests.skills.conftest import no_model_settings

    app = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="de,en"))  # type: ignore[arg-type]
    try:
        assert (await ask(app, "Lautstärke auf 30 Prozent")).text == (
            "Die Lautstärke ist bei 30 Prozent."
        )
        assert (await ask(app, "mach lauter")).text == "Die Lautstärke ist bei 40 Prozent."
        assert (await ask(app, "schalte stumm")).text == "Der Ton ist stummgeschaltet."
    finally:
        await app.aclose()
    assert _level(pulse) == "40%"
    assert _muted(pulse)


async def test_no_sound_server_is_said_plainly(
    app: App, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-such-server")
    for sentence in ("set the volume to 40%", "volume up", "mute"):
        answered = await ask(app, sentence)
        assert answered.text == "I can't change the volume here: there is no sound server running."
    assert await PactlVolume().state() is None
    assert await sound_server() is None


@pytest.mark.parametrize(
    ("match", "taken"),
    [
        (IntentMatch(intent="HassSetVolume", slots={"volume_level": 40}), True),
        (IntentMatch(intent="HassSetVolume", slots={"volume_level": 140}), False),
        (IntentMatch(intent="HassSetVolume", slots={"volume_level": "loud"}), False),
        (IntentMatch(intent="HassSetVolumeRelative", slots={"volume_step": "up"}), True),
        (IntentMatch(intent="HassSetVolumeRelative", slots={"volume_step": -20}), True),
        (IntentMatch(intent="HassSetVolumeRelative", slots={"volume_step": 0}), False),
        (IntentMatch(intent="HassMediaPlayerMute", slots={"name": "kitchen"}), False),
        (IntentMatch(intent="HassMediaPlayerMute"), True),
    ],
)
def test_only_levels_and_steps_that_make_sense_are_taken(match: IntentMatch, taken: bool) -> None:
    skill = VolumeSkill(PactlVolume(), YamlPhrasebook())
    assert skill.accepts(match) is taken
