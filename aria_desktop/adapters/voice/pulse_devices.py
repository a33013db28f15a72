"""The sound server's own speakers and microphones (PulseAudio, or PipeWire's pulse server).

Through ALSA, PortAudio sees a desktop's sound server as one device, ``pulse`` (plus the
``default`` alias): a USB headset and the laptop's speakers behind it cannot be told apart.
``pactl`` lists the server's sinks and sources by name and description, so people can pick
one; ``devices.py`` then opens the ``pulse`` device with ``PULSE_SINK`` / ``PULSE_SOURCE``
naming it.

``pactl``'s text output is read (in the C locale, so the field names are English), not its
``--format=json``: that exists only since PulseAudio 16 (Ubuntu 22.04 ships 15.99), and 16.1's
prints a description with any non-ASCII letter as ``(null)`` — on a French desktop "Audio
interne Stéréo analogique" would vanish. No ``pactl``, no server, or one that does not answer
in time is ``None``: the caller lists PortAudio's devices alone, as before.

How a setting names a device lives here too (``match_device``): a server's device is named by
its name or its description, which PortAudio's devices did not have.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

from aria_desktop.domain import audio as au
from aria_desktop.domain.errors import AudioDeviceError

__all__ = [
    "ALIASES",
    "PULSE_HOST_API",
    "SERVER_DEVICE_INDEX",
    "match_device",
    "opening_route",
    "parse_pactl_list",
    "readable_name",
    "server_devices",
    "with_server_devices",
]

_LOGGER = logging.getLogger(__name__)
PULSE_HOST_API = "PulseAudio"
"""``host_api`` of a device the sound server lists (PipeWire's pulse server too)."""
SERVER_DEVICE_INDEX = -1
"""``index`` of such a device: it is no PortAudio device (it is named by its name)."""
ROUTE = "pulse"
"""The ALSA device (ALSA's pulse plugin) through which a sound server's sink or source opens."""
ALIASES = frozenset({ROUTE, "default", "sysdefault", "pipewire"})
"""ALSA's names for the sound server's default device: not listed beside the server's own
devices (the system default is one of those), still found by name (a saved setting)."""
_TIMEOUT_S = 3.0
_BLOCK = re.compile(r"^(Sink|Source) #\d+\s*$")
_FIELD = re.compile(r"^\t([A-Za-z][A-Za-z ]*): ?(.*)$")
_PROPERTY = re.compile(r'^\t\t([\w.-]+) = "(.*)"\s*$')
_SPEC = re.compile(r"(\d+)ch (\d+)Hz")
_NONE = {"", "n/a", "(null)"}


def with_server_devices(
    portaudio: list[au.AudioDevice],
) -> tuple[list[au.AudioDevice], list[au.AudioDevice]]:
    """The devices to list, and PortAudio's aliases of the default hidden behind the server's.

    The server's devices come first, and only when PortAudio can open them (it has ALSA's
    ``pulse`` device) and does not list them itself (a PortAudio with a PulseAudio host API of
    its own). Only the server's default is flagged the system default then. No server:
    PortAudio's devices as they are.
    """
    names = {d.name for d in portaudio}
    served = None
    if ROUTE in names and all(d.host_api != PULSE_HOST_API for d in portaudio):
        served = server_devices()
    if not served:
        return portaudio, []
    others = [
        dataclasses.replace(d, is_default_input=False, is_default_output=False)
        for d in portaudio
        if d.name not in ALIASES
    ]
    return [*served, *others], [d for d in portaudio if d.name in ALIASES]


def match_device(devices: list[au.AudioDevice], spec: str) -> au.AudioDevice | None:
    """The device ``spec`` names: its index, then its whole name or description, then part.

    Whole before part, so "aria_test_speaker" is that sink and not its monitor
    "aria_test_speaker.monitor".
    """
    if spec.isdigit():
        for device in devices:
            if device.index == int(spec):
                return device
    wanted = spec.casefold()
    for whole in (True, False):
        for field in ("name", "description"):
            for device in devices:
                have = str(getattr(device, field)).casefold()
                if have and (have == wanted if whole else wanted in have):
                    return device
    return None


def readable_name(device: au.AudioDevice) -> str:
    """A device as an error message lists it: what people read, and what a setting takes."""
    if device.index == SERVER_DEVICE_INDEX:
        return f"{device.description} ({device.name})" if device.description else device.name
    return f"{device.index}: {device.name}"


@contextlib.contextmanager
def opening_route(sd: Any, device: au.AudioDevice, *, output: bool, pinned: bool) -> Iterator[int]:
    """The PortAudio device to open for ``device`` (the caller holds PortAudio's lock).

    A sound server's sink or source opens as ALSA's ``pulse`` device. With ``pinned`` (the
    user named a device: not the system default) ``PULSE_SINK`` / ``PULSE_SOURCE`` name it
    while the stream opens: ALSA's pulse plugin makes its libpulse context then, which reads
    them, and connects the stream, given no device, to the one they name. The variable is
    restored at once (others that play sound, such as the timer's ring, must not inherit
    it). Unpinned, the server picks its default, and moves the stream when the default
    changes (a headset plugged in).

    Args:
        sd: the sounddevice module.
        device: what ``find_device`` returned.
        output: a speaker (else a microphone).
        pinned: name the device to the server (else let it route to its default).
    """
    if device.index != SERVER_DEVICE_INDEX:
        yield device.index
        return
    route = next(
        (i for i, info in enumerate(sd.query_devices()) if info.get("name") == ROUTE), None
    )
    if route is None:  # the sound server stopped, or ALSA's pulse plugin went, meanwhile
        raise AudioDeviceError(
            f"Cannot open {device.description or device.name!r}: PortAudio no longer has "
            "ALSA's pulse device.",
            hint="Check that PulseAudio/PipeWire runs; on Debian/Ubuntu install "
            "libasound2-plugins.",
        )
    variable = "PULSE_SINK" if output else "PULSE_SOURCE"
    saved = os.environ.get(variable)
    if pinned:
        os.environ[variable] = device.name
    try:
        yield route
    finally:
        if saved is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = saved


def server_devices() -> list[au.AudioDevice] | None:
    """The server's sinks (speakers) and sources (microphones, monitors last), or None.

    ``pactl`` reads ``PULSE_SERVER`` from the environment, as the ALSA plugin does, so both
    talk to the same server. Blocks for a few milliseconds per ``pactl`` run (three runs).
    """
    info = _pactl("info")
    if info is None:
        return None
    fields = dict(_fields(info.splitlines()))
    default_sink = fields.get("Default Sink", "")
    default_source = fields.get("Default Source", "")
    sinks = _pactl("list", "sinks")
    sources = _pactl("list", "sources")
    if sinks is None or sources is None:
        return None
    return [
        *parse_pactl_list(sinks, default=default_sink),
        *parse_pactl_list(sources, default=default_source),
    ]


def parse_pactl_list(text: str, *, default: str = "") -> list[au.AudioDevice]:
    """The devices in ``pactl list sinks`` or ``pactl list sources`` output (C locale).

    Monitors (what a sink plays, offered as a source) come after the real microphones: they
    are microphones only technically, and a headset's microphone is what people look for.

    Args:
        text: what pactl printed.
        default: the name of the server's default sink or source (flagged as the default).
    """
    devices: list[au.AudioDevice] = []
    monitors: list[au.AudioDevice] = []
    for kind, block in _blocks(text):
        fields = dict(_fields(block))
        properties = dict(_properties(block))
        name = fields.get("Name", "")
        if not name:
            continue
        spec = _SPEC.search(fields.get("Sample Specification", ""))
        channels = int(spec.group(1)) if spec else 2
        rate = float(spec.group(2)) if spec else 48_000.0
        description = fields.get("Description", "")
        if description in _NONE:
            description = properties.get("device.description", "")
        monitored = fields.get("Monitor of Sink", "")
        is_monitor = kind == "Source" and (
            monitored not in _NONE or properties.get("device.class") == "monitor"
        )
        if is_monitor and not description:
            description = f"Monitor of {monitored if monitored not in _NONE else name}"
        output = kind == "Sink"
        (monitors if is_monitor else devices).append(
            au.AudioDevice(
                index=SERVER_DEVICE_INDEX,
                name=name,
                description=description if description not in _NONE else "",
                inputs=0 if output else channels,
                outputs=channels if output else 0,
                default_rate_hz=rate,
                is_default_input=not output and name == default,
                is_default_output=output and name == default,
                host_api=PULSE_HOST_API,
            )
        )
    return [*devices, *monitors]


def _blocks(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each ``Sink #n`` / ``Source #n`` heading's kind and the lines under it."""
    kind, lines = "", list[str]()
    for line in text.splitlines():
        heading = _BLOCK.match(line)
        if heading:
            if kind:
                yield kind, lines
            kind, lines = heading.group(1), []
        elif kind:
            lines.append(line)
    if kind:
        yield kind, lines


def _fields(lines: list[str]) -> Iterator[tuple[str, str]]:
    """``Key: value`` lines (one tab deep in ``list``, none in ``info``)."""
    for line in lines:
        match = _FIELD.match(line if line.startswith("\t") else f"\t{line}")
        if match:
            yield match.group(1), match.group(2).strip()


def _properties(lines: list[str]) -> Iterator[tuple[str, str]]:
    """``key = "value"`` lines of the ``Properties:`` section."""
    for line in lines:
        match = _PROPERTY.match(line)
        if match:
            yield match.group(1), match.group(2)


def _pactl(*arguments: str) -> str | None:
    """``pactl``'s output (C locale), or None when it is missing, fails or hangs."""
    program = shutil.which("pactl")
    if program is None:
        return None
    env = {**os.environ, "LC_ALL": "C"}
    env.pop("LANGUAGE", None)
    try:
        done = subprocess.run(
            [program, *arguments],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        _LOGGER.info("pactl %s: %s", " ".join(arguments), exc)
        return None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        _LOGGER.debug("pactl %s: %s", " ".join(arguments), message)
        return None
    return done.stdout.decode(errors="replace")
