"""Media control through the composed ARIA, of a real player: mpv with its MPRIS plugin on a
private session bus, playing two tagged tracks. Each command's effect is read back from the
player over the bus (waiting for its change signal), not from ARIA's reply alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.adapters.skills.mpris import MprisPlayers
from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.compose.app import App
from aria_desktop.compose.skills import Skills
from aria_desktop.core.skills.announce import Announcement
from aria_desktop.core.skills.announcing import DesktopAnnouncer
from aria_desktop.core.skills.media import MediaSkill
from aria_desktop.domain.intents import IntentMatch
from tests.skills.conftest import ask
from tests.skills.desktop_parts import (
    MPRIS_MPV,
    PLAYER,
    TRACKS,
    get_property,
    mpv_player,  # noqa: F401 - fixture
    session_bus,  # noqa: F401 - fixture
    wait_for_property,
)


def _skills(app: App) -> Skills:
    """The composed app's skills (always built by ``build_app``)."""
    assert app.skills is not None
    return app.skills


pytestmark = pytest.mark.usefixtures("session_bus")


def _title_is(title: str) -> object:
    return lambda metadata: metadata.get("xesam:title", ("s", ""))[1] == title


async def _status_becomes(status: str) -> None:
    await wait_for_property(MPRIS_MPV, PLAYER, "PlaybackStatus", lambda v: v == status)


@pytest.mark.usefixtures("mpv_player")
async def test_the_player_on_the_bus_is_listed_with_its_track() -> None:
    (player,) = await MprisPlayers().players()
    assert player.bus_name == MPRIS_MPV
    assert player.identity == "mpv"
    assert player.status == "Playing"
    assert (player.title, player.artists) == (TRACKS[0][0], (TRACKS[0][1],))
    assert player.can_control


@pytest.mark.usefixtures("mpv_player")
async def test_pause_resume_and_whats_playing_by_voice_commands(app: App) -> None:
    playing = await ask(app, "what's playing")
    assert playing.text == "Blue Train by John Coltrane is playing on mpv."
    assert (playing.backend, playing.model) == ("skills", "media")

    assert (await ask(app, "pause the music")).text == "Paused mpv."
    await _status_becomes("Paused")
    assert (await ask(app, "what song is this")).text == (
        "Blue Train by John Coltrane is paused on mpv."
    )

    assert (await ask(app, "resume")).text == "Playing mpv again."
    await _status_becomes("Playing")
    assert (await ask(app, "resume")).text == "There's nothing paused to resume."


@pytest.mark.usefixtures("mpv_player")
async def test_next_and_previous_change_the_track(app: App) -> None:
    assert (await ask(app, "skip this song")).text == "Next track on mpv."
    await wait_for_property(MPRIS_MPV, PLAYER, "Metadata", _title_is(TRACKS[1][0]))  # type: ignore[arg-type]
    assert (await ask(app, "what's playing")).text == "So What by Miles Davis is playing on mpv."
    assert (await ask(app, "previous track")).text == "Previous track on mpv."
    await wait_for_property(MPRIS_MPV, PLAYER, "Metadata", _title_is(TRACKS[0][0]))  # type: ignore[arg-type]


@pytest.mark.usefixtures("mpv_player")
async def test_stop_pauses_the_music_and_the_media_tool_does_the_same(app: App) -> None:
    assert (await ask(app, "stop")).text == "Paused mpv."
    await _status_becomes("Paused")
    tool = app.orchestrator.tools.get("media")
    assert tool.permission == "reversible"
    assert await tool.handler({"action": "resume"}) == "Playing mpv again."
    await _status_becomes("Playing")
    assert await tool.handler({"action": "status"}) == (
        "Blue Train by John Coltrane is playing on mpv."
    )
    assert await get_property(MPRIS_MPV, PLAYER, "PlaybackStatus") == "Playing"


@pytest.mark.parametrize("sentence", ["pause", "what's playing", "next track", "resume"])
async def test_no_player_on_the_bus_is_said_plainly(app: App, sentence: str) -> None:
    answered = await ask(app, sentence)
    assert answered.text == "No media player is playing."
    assert answered.status == "complete"


async def test_no_session_bus_at_all_is_said_plainly(
    app: App, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/no-such-bus")
    assert (await ask(app, "pause")).text == "No media player is playing."
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    assert (await ask(app, "what song is this")).text == "No media player is playing."
    assert await MprisPlayers().players() == []
    assert not await MprisPlayers().command(MPRIS_MPV, "pause")


def _is_ringing(announcer: DesktopAnnouncer) -> bool:
    """Read the ring's state afresh (a property mypy would keep narrowed)."""
    return announcer.ringing


@pytest.mark.usefixtures("mpv_player")
async def test_stop_said_while_a_timer_rings_silences_the_ring_not_the_music(app: App) -> None:
    announcer = _skills(app).announcer
    assert announcer is not None
    await announcer.announce(
        Announcement(kind="timer", title="Timer", text="Your tea timer is done.", ring=True)
    )
    assert _is_ringing(announcer)
    answered = await ask(app, "stop")
    assert answered.model == "ringing"
    assert not _is_ringing(announcer)
    assert await get_property(MPRIS_MPV, PLAYER, "PlaybackStatus") == "Playing"
    assert (await ask(app, "stop")).text == "Paused mpv."  # nothing rings: the music's


def test_a_named_home_assistant_player_is_not_this_desktops() -> None:
    skill = MediaSkill(MprisPlayers(), YamlPhrasebook())
    named = IntentMatch(intent="HassMediaPause", slots={"name": "kitchen speaker"})
    assert not skill.accepts(named)


@pytest.mark.parametrize(
    ("language", "sentence", "intent"),
    [
        ("en", "what's playing right now", "AriaMediaWhatsPlaying"),
        ("en", "what song is playing", "AriaMediaWhatsPlaying"),
        ("de", "was läuft gerade", "AriaMediaWhatsPlaying"),
        ("de", "welches Lied ist das", "AriaMediaWhatsPlaying"),
        ("de", "pausiere die Musik", "HassMediaPause"),
        ("de", "nächster Song", "HassMediaNext"),
    ],
)
def test_media_sentences_in_english_and_german(
    recognizer: object, language: str, sentence: str, intent: str
) -> None:
    found = recognizer.recognize(sentence, language)  # type: ignore[attr-defined]
    assert found is not None
    assert found.intent == intent


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "what's playing at the cinema tonight"),
        ("en", "what is playing on Broadway this week"),
        ("en", "what song is this quote from"),
        ("de", "was läuft heute im Kino"),
        ("de", "was läuft zwischen euch beiden"),
    ],
)
def test_questions_about_other_playing_things_are_not_media_status(
    recognizer: object, language: str, sentence: str
) -> None:
    found = recognizer.recognize(sentence, language)  # type: ignore[attr-defined]
    assert found is None or found.intent != "AriaMediaWhatsPlaying"


_DESKTOP_INTENTS = frozenset(
    {
        "HassMediaPause", "HassMediaUnpause", "HassMediaNext", "HassMediaPrevious",
        "HassMediaPlayerMute", "HassMediaPlayerUnmute", "HassSetVolume",
        "HassSetVolumeRelative", "AriaMediaWhatsPlaying",
    }
)  # fmt: skip


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "stop talking"),
        ("en", "skip the intro"),
        ("en", "what's next on my agenda"),
        ("en", "mute the microphone"),
        ("en", "pause for a second, I need to think"),
        ("en", "should I turn up the volume on my speech"),
        ("en", "resume my job application"),
        ("en", "go back to the previous topic"),
        ("en", "next question"),
        ("en", "play the previous episode of the podcast"),
        ("en", "set the volume of the cylinder to 40"),
        ("de", "weiter im Text"),
        ("de", "mach mal Pause"),
        ("de", "nächste Frage"),
    ],
)
def test_sentences_with_media_words_are_not_media_commands(
    recognizer: object, language: str, sentence: str
) -> None:
    found = recognizer.recognize(  # type: ignore[attr-defined]
        sentence, language, accept=lambda m: m.intent in _DESKTOP_INTENTS
    )
    assert found is None, (sentence, found)
