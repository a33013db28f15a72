"""The default speaker's volume through ``pactl``: PulseAudio, and PipeWire's pulse server.

``pactl`` speaks to whichever sound server the desktop runs (PipeWire answers it through
``pipewire-pulse``, today's default on most distributions), so one small program covers both.
Its output is read in the C locale. No ``pactl``, no server (``Connection refused``) or one that
does not answer in time is ``None`` — the skill says so plainly.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil

from aria_desktop.domain.desktop import VolumeState

__all__ = ["PactlVolume", "sound_server"]

_LOGGER = logging.getLogger(__name__)
_SINK = "@DEFAULT_SINK@"
_TIMEOUT_S = 5.0
_PERCENT = re.compile(r"(\d+)%")


async def _pactl(*arguments: str) -> str | None:
    """``pactl``'s output, or None when it is missing, fails or hangs."""
    program = shutil.which("pactl")
    if program is None:
        return None
    env = {**os.environ, "LC_ALL": "C"}
    try:
        process = await asyncio.create_subprocess_exec(
            program,
            *arguments,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        _LOGGER.debug("pactl did not start: %s", exc)
        return None
    try:
        async with asyncio.timeout(_TIMEOUT_S):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        _LOGGER.info("pactl %s did not answer in %g s", " ".join(arguments), _TIMEOUT_S)
        return None
    if process.returncode != 0:
        _LOGGER.debug("pactl %s: %s", " ".join(arguments), err.decode(errors="replace").strip())
        return None
    return out.decode(errors="replace")


async def sound_server() -> str | None:
    """The sound server's name and version ("PulseAudio (on PipeWire 1.0.5)"), None if none."""
    info = await _pactl("info")
    if info is None:
        return None
    fields = {}
    for line in info.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    name = fields.get("Server Name") or "a sound server"
    return f"{name} {fields.get('Server Version', '')}".strip()


class PactlVolume:
    """The volume port (``core/skills/volume.py``) over ``pactl``."""

    async def state(self) -> VolumeState | None:
        """The default speaker's volume (its channels' average) and mute state (asked at once)."""
        volume, mute = await asyncio.gather(
            _pactl("get-sink-volume", _SINK), _pactl("get-sink-mute", _SINK)
        )
        if volume is None:
            return None
        levels = [int(p) for p in _PERCENT.findall(volume.split("balance")[0])]
        if not levels:
            return None
        return VolumeState(
            percent=round(sum(levels) / len(levels)),
            muted=mute is not None and "yes" in mute.lower(),
        )

    async def set_volume(self, percent: int) -> bool:
        """Set every channel of the default speaker to ``percent`` (0-100); whether it worked."""
        level = max(0, min(100, int(percent)))
        return await _pactl("set-sink-volume", _SINK, f"{level}%") is not None

    async def set_muted(self, muted: bool) -> bool:
        """Mute or unmute the default speaker; whether it worked."""
        return await _pactl("set-sink-mute", _SINK, "1" if muted else "0") is not None
