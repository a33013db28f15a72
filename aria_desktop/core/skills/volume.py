"""The volume of this computer's speaker: set it, turn it up or down, mute and unmute.

"Mute" means the default speaker, not one player: a voice assistant's user who says "mute"
wants the room quiet, whatever is making the noise. Turning the volume up or setting it also
unmutes (someone who asks for 40 percent wants to hear it); turning it down leaves a muted
speaker muted. Levels stay within 0-100 percent (the speaker's full volume, never the
distorting boost above it). No sound server is a plain answer (ARCHITECTURE.md: everyday
skills).
"""

from __future__ import annotations

from typing import Literal, Protocol

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.domain.desktop import VolumeState
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = [
    "DEFAULT_STEP",
    "VOLUME_ACTIONS",
    "VolumeAction",
    "VolumeControl",
    "VolumeSkill",
    "change_volume",
]

VolumeAction = Literal["get", "set", "up", "down", "mute", "unmute"]
VOLUME_ACTIONS: tuple[VolumeAction, ...] = ("get", "set", "up", "down", "mute", "unmute")
DEFAULT_STEP = 10
"""Percent points "volume up" moves when no amount is said."""


class VolumeControl(Protocol):
    """The default speaker's volume (``adapters/skills/volume.py``: PipeWire/PulseAudio)."""

    async def state(self) -> VolumeState | None:
        """The volume now; None when there is no sound server."""
        ...

    async def set_volume(self, percent: int) -> bool:
        """Set the volume (0-100); False when there is no sound server (mute is left as it is)."""
        ...

    async def set_muted(self, muted: bool) -> bool:
        """Mute or unmute; False when there is no sound server."""
        ...


def _clamp(percent: float) -> int:
    return max(0, min(100, round(percent)))


def _said(state: VolumeState, phrases: Phrasebook, language: str) -> str:
    key = "volume.level_muted" if state.muted else "volume.level"
    return phrases.say(key, language, level=state.percent)


async def change_volume(
    action: VolumeAction,
    volume: VolumeControl,
    phrases: Phrasebook,
    language: str,
    *,
    level: float | None = None,
    step: float | None = None,
) -> str:
    """Carry out ``action`` and say the new level.

    Args:
        action: get, set, up, down, mute or unmute.
        volume: the speaker's volume control.
        phrases: the reply sentences.
        language: the reply's language.
        level: the level ``set`` goes to (percent).
        step: how far ``up``/``down`` go (percent points, sign ignored); default 10.
    """
    say = phrases.say
    state = await volume.state()
    if state is None:
        return say("volume.unavailable", language)
    if action == "get":
        return _said(state, phrases, language)
    if action in ("mute", "unmute"):
        if not await volume.set_muted(action == "mute"):
            return say("volume.unavailable", language)
        if action == "mute":
            return say("volume.muted", language)
        return say("volume.unmuted", language, level=state.percent)
    if action == "set":
        if level is None:
            return _said(state, phrases, language)
        target = _clamp(level)
    else:
        amount = abs(step) if step else DEFAULT_STEP
        target = _clamp(state.percent + (amount if action == "up" else -amount))
    if not await volume.set_volume(target):
        return say("volume.unavailable", language)
    muted = state.muted
    if muted and action != "down":
        muted = not await volume.set_muted(False)
    return _said(VolumeState(percent=target, muted=muted), phrases, language)


def _relative(match: IntentMatch) -> tuple[VolumeAction, float | None] | None:
    """``volume_step`` as HA's templates give it: "up", "down" or a signed number."""
    said = match.text_slot("volume_step").lower()
    if said in ("up", "down"):
        return said, None  # type: ignore[return-value]
    number = match.number_slot("volume_step")
    if number is None or number == 0 or abs(number) > 100:
        return None
    return ("up" if number > 0 else "down"), abs(number)


class VolumeSkill:
    """Sets, raises, lowers, mutes and unmutes the speaker."""

    name = "volume"
    intents = frozenset(
        {"HassSetVolume", "HassSetVolumeRelative", "HassMediaPlayerMute", "HassMediaPlayerUnmute"}
    )

    def __init__(self, volume: VolumeControl, phrases: Phrasebook) -> None:
        """Change the volume through ``volume``."""
        self._volume = volume
        self._phrases = phrases

    def accepts(self, match: IntentMatch) -> bool:
        """This computer's volume with a level or step that makes sense (0-100)."""
        if "name" in match.slots:
            return False  # a named Home Assistant player ("mute the kitchen speaker")
        if match.intent == "HassSetVolume":
            level = match.number_slot("volume_level")
            return level is not None and 0 <= level <= 100
        if match.intent == "HassSetVolumeRelative":
            return _relative(match) is not None
        return True

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Change the volume and say the new level (or plainly that there is no sound)."""
        lang = match.language
        if match.intent == "HassSetVolume":
            text = await change_volume(
                "set", self._volume, self._phrases, lang, level=match.number_slot("volume_level")
            )
        elif match.intent == "HassSetVolumeRelative":
            action, step = _relative(match) or ("up", None)
            text = await change_volume(action, self._volume, self._phrases, lang, step=step)
        else:
            action = "mute" if match.intent == "HassMediaPlayerMute" else "unmute"
            text = await change_volume(action, self._volume, self._phrases, lang)
        return SkillReply(text=text, skill=self.name)
