"""The media players on this desktop, over MPRIS (``org.mpris.MediaPlayer2.*`` on the session bus).

Every player worth controlling speaks MPRIS (Spotify, VLC, mpv with its plugin, browsers for
their tabs, Rhythmbox…). This adapter lists them with their state and the track they show
(``xesam:title``, ``xesam:artist``) and sends the commands; which player a command goes to is
the skill's decision (``core/skills/media.py``). No session bus, or none of them on it, is an
empty list — never an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, get_args

from aria_desktop.adapters.skills.dbus_session import BusUnavailable, SessionBus, session_bus
from aria_desktop.adapters.skills.dbus_session import unwrap_variant as _plain
from aria_desktop.domain.desktop import PlaybackStatus, PlayerState

__all__ = ["MPRIS_PREFIX", "MprisPlayers"]

_LOGGER = logging.getLogger(__name__)

MPRIS_PREFIX = "org.mpris.MediaPlayer2."
_PATH = "/org/mpris/MediaPlayer2"
_ROOT = "org.mpris.MediaPlayer2"
_PLAYER = "org.mpris.MediaPlayer2.Player"
_METHODS = {"pause": "Pause", "resume": "Play", "next": "Next", "previous": "Previous"}
_STATUSES: tuple[str, ...] = get_args(PlaybackStatus)


def _artists(value: Any) -> tuple[str, ...]:
    value = _plain(value)
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, (list, tuple)):
        return tuple(str(_plain(v)).strip() for v in value if str(_plain(v)).strip())
    return ()


def _player_state(bus_name: str, identity: str, props: Mapping[str, Any]) -> PlayerState:
    metadata = props.get("Metadata") or {}
    metadata = {str(key): _plain(value) for key, value in dict(metadata).items()}
    status = str(props.get("PlaybackStatus", "Stopped"))
    return PlayerState(
        bus_name=bus_name,
        identity=identity or bus_name.removeprefix(MPRIS_PREFIX).split(".")[0],
        status=status if status in _STATUSES else "Stopped",  # type: ignore[arg-type]
        title=str(metadata.get("xesam:title") or "").strip(),
        artists=_artists(metadata.get("xesam:artist")),
        can_control=bool(props.get("CanControl", True)),
    )


class MprisPlayers:
    """The media-players port (``core/skills/media.py``) over MPRIS."""

    async def players(self) -> list[PlayerState]:
        """Every MPRIS player on the session bus, by bus name ([] when there is no bus)."""
        try:
            async with session_bus() as bus:
                names = sorted(n for n in await bus.names() if n.startswith(MPRIS_PREFIX))
                found = [await self._state(bus, name) for name in names]
        except BusUnavailable as exc:
            _LOGGER.debug("No media players: %s", exc)
            return []
        return [state for state in found if state is not None]

    async def command(self, bus_name: str, command: str) -> bool:
        """Send ``command`` (pause, resume, next, previous) to one player; whether it took it."""
        method = _METHODS.get(command)
        if method is None:
            raise ValueError(f"unknown media command {command!r}")
        try:
            async with session_bus() as bus:
                await bus.call(bus_name, _PATH, _PLAYER, method)
        except BusUnavailable as exc:
            _LOGGER.info("Media player %s did not take %s: %s", bus_name, command, exc)
            return False
        return True

    @staticmethod
    async def _state(bus: SessionBus, bus_name: str) -> PlayerState | None:
        """One player's state; None when it left the bus while we asked."""
        try:
            props = await bus.properties(bus_name, _PATH, _PLAYER)
        except BusUnavailable as exc:
            _LOGGER.debug("Player %s did not answer: %s", bus_name, exc)
            return None
        try:
            identity = str(await bus.property(bus_name, _PATH, _ROOT, "Identity"))
        except BusUnavailable:
            identity = ""
        return _player_state(bus_name, identity, props)
