"""Media control of the player on this desktop: pause, resume, next, previous, what's playing.

Which player a command means is decided here: the one playing (pause stops every one that
plays, so the room goes quiet); to resume, the one paused; for the track commands and "what's
playing", the one playing, else the one paused. Where there is no player — or no session bus at
all — the answer says so plainly (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.core.skills.wording import join_spoken
from aria_desktop.domain.desktop import PlayerState
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = ["MEDIA_ACTIONS", "MediaAction", "MediaPlayers", "MediaSkill", "control_media"]

MediaAction = Literal["pause", "resume", "next", "previous", "status"]
MEDIA_ACTIONS: tuple[MediaAction, ...] = ("pause", "resume", "next", "previous", "status")

_BY_INTENT: dict[str, MediaAction] = {
    "HassMediaPause": "pause",
    "HassMediaUnpause": "resume",
    "HassMediaNext": "next",
    "HassMediaPrevious": "previous",
    "AriaMediaWhatsPlaying": "status",
}


class MediaPlayers(Protocol):
    """The media players of this desktop (``adapters/skills/mpris.py``: MPRIS over D-Bus)."""

    async def players(self) -> list[PlayerState]:
        """Every player now, with its state; [] when there is none (or no session bus)."""
        ...

    async def command(self, bus_name: str, command: str) -> bool:
        """Send pause, resume, next or previous to one player; whether it took it."""
        ...


def _first(players: Sequence[PlayerState], status: str) -> PlayerState | None:
    return next((p for p in players if p.status == status and p.can_control), None)


def _track(player: PlayerState, phrases: Phrasebook, language: str) -> str:
    if not player.artists:
        return player.title
    artists = join_spoken(list(player.artists), phrases, language)
    return phrases.say("media.track_by", language, title=player.title, artists=artists)


def _status(players: Sequence[PlayerState], phrases: Phrasebook, language: str) -> str:
    player = _first(players, "Playing") or _first(players, "Paused")
    if player is None:
        return phrases.say("media.none", language)
    if not player.title:
        return phrases.say("media.unknown_track", language, player=player.identity)
    key = "media.playing" if player.status == "Playing" else "media.paused_track"
    return phrases.say(
        key, language, track=_track(player, phrases, language), player=player.identity
    )


async def control_media(
    action: MediaAction, media: MediaPlayers, phrases: Phrasebook, language: str
) -> str:
    """Carry out ``action`` on the player it means and say what happened."""
    say = phrases.say
    players = await media.players()
    if action == "status":
        return _status(players, phrases, language)
    if action == "pause":
        playing = [p for p in players if p.status == "Playing" and p.can_control]
        if not playing:
            return say("media.none", language)
        done = [p.identity for p in playing if await media.command(p.bus_name, "pause")]
        if not done:
            return say("media.failed", language, player=playing[0].identity)
        return say("media.paused", language, player=join_spoken(done, phrases, language))
    if action == "resume":
        target = _first(players, "Paused")
        if target is None:
            key = "media.nothing_paused" if players else "media.none"
            return say(key, language)
    else:
        target = _first(players, "Playing") or _first(players, "Paused")
        if target is None:
            return say("media.none", language)
    if not await media.command(target.bus_name, action):
        return say("media.failed", language, player=target.identity)
    key = {"resume": "media.resumed", "next": "media.next", "previous": "media.previous"}[action]
    return say(key, language, player=target.identity)


class MediaSkill:
    """Pause, resume, skip and "what's playing" for the desktop's media players."""

    name = "media"
    intents = frozenset(_BY_INTENT)

    def __init__(self, media: MediaPlayers, phrases: Phrasebook) -> None:
        """Control the players ``media`` finds.

        "stop" said while a timer rings is the ring's: the router asks the ring's skill first
        then (``UrgentSkill``).
        """
        self._media = media
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """This desktop's media: not a named Home Assistant player ("pause the kitchen TV")."""
        return "name" not in match.slots and "area" not in match.slots

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Send the command to the player it means; say what happened or that none plays."""
        text = await control_media(
            _BY_INTENT[match.intent], self._media, self._phrases, match.language
        )
        return SkillReply(text=text, skill=self.name)
