"""Real desktop parts for the desktop-skill tests: a private session bus, mpv as an MPRIS
player, dunst as the notification service, and XDG application entries.

Each runs as a child of the test process and is always stopped. The bus is a
``dbus-daemon`` with a config of its own (no service activation: a name is there only when
the test started its owner), reached through ``DBUS_SESSION_BUS_ADDRESS`` only. Waiting is on
the bus itself — a name appearing, a property's change signal — with a timeout, never a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import math
import os
import shutil
import stat
import struct
import subprocess
import wave
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jeepney import (
    DBusAddress,
    HeaderFields,
    MatchRule,
    Message,
    MessageType,
    Monitoring,
    Properties,
    message_bus,
    new_method_call,
)
from jeepney.io.asyncio import open_dbus_connection, open_dbus_router

MPRIS_MPV = "org.mpris.MediaPlayer2.mpv"
MPRIS_PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
NOTIFICATIONS = "org.freedesktop.Notifications"
_NOTIFY_PATH = "/org/freedesktop/Notifications"
_WAIT_S = 15.0
_MPRIS_PLUGIN = Path("/usr/lib/mpv-mpris/mpris.so")
_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

TRACKS = (("Blue Train", "John Coltrane"), ("So What", "Miles Davis"))
"""The two tracks mpv plays, in order (title, artist), as the files' own tags."""


def _needs(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} missing: `bash packaging/setup.sh test` installs the "
            "desktop-skill test parts (dbus-daemon, mpv, mpv-mpris, dunst, pulseaudio-utils)"
        )


@pytest.fixture
def session_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private session bus; this process (and its children) use it. Yields its address."""
    _needs("dbus-daemon")
    folder = tmp_path / "bus"
    folder.mkdir()
    config = folder / "session.conf"
    config.write_text(_BUS_CONFIG.format(socket=folder / "socket"), encoding="utf-8")
    daemon = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--print-address=1", "--nofork"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()  # printed once it listens
    if not address:
        daemon.kill()
        pytest.fail("dbus-daemon did not start")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    try:
        yield address
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


async def wait_for_name(name: str, timeout_s: float = _WAIT_S) -> None:
    """Return once ``name`` has an owner on the session bus (NameOwnerChanged, not polling)."""
    rule = MatchRule(
        type="signal",
        sender="org.freedesktop.DBus",
        interface="org.freedesktop.DBus",
        member="NameOwnerChanged",
        path="/org/freedesktop/DBus",
    )
    rule.add_arg_condition(0, name)
    async with open_dbus_router() as router:
        with router.filter(rule) as queue:
            await router.send_and_get_reply(message_bus.AddMatch(rule))
            reply = await router.send_and_get_reply(message_bus.NameHasOwner(name))
            owned = bool(reply.body[0])
            async with asyncio.timeout(timeout_s):
                while not owned:
                    _name, _old_owner, new_owner = (await queue.get()).body
                    owned = bool(new_owner)


async def get_property(bus_name: str, interface: str, name: str) -> Any:
    """One property's value (the variant unwrapped)."""
    address = DBusAddress(MPRIS_PATH, bus_name=bus_name, interface=interface)
    async with open_dbus_router() as router:
        reply = await router.send_and_get_reply(Properties(address).get(name))
    return reply.body[0][1]


async def wait_for_property(
    bus_name: str,
    interface: str,
    name: str,
    wanted: Callable[[Any], bool],
    timeout_s: float = _WAIT_S,
) -> Any:
    """The property's value once ``wanted`` holds: read now, then on each PropertiesChanged."""
    rule = MatchRule(
        type="signal",
        interface="org.freedesktop.DBus.Properties",
        member="PropertiesChanged",
        path=MPRIS_PATH,
    )
    address = DBusAddress(MPRIS_PATH, bus_name=bus_name, interface=interface)
    async with open_dbus_router() as router:
        with router.filter(rule) as queue:
            await router.send_and_get_reply(message_bus.AddMatch(rule))
            value = (await router.send_and_get_reply(Properties(address).get(name))).body[0][1]
            async with asyncio.timeout(timeout_s):
                while not wanted(value):
                    signal = await queue.get()
                    changed_interface, changed, _invalidated = signal.body
                    if changed_interface == interface and name in changed:
                        value = changed[name][1]
    return value


@contextlib.asynccontextmanager
async def watch_calls(
    interface: str, member: str, timeout_s: float = _WAIT_S
) -> AsyncIterator[Callable[[], Awaitable[Message]]]:
    """Watch the bus for calls of ``interface.member`` (a D-Bus monitor, as dbus-monitor is).

    Yields a function that returns the next such call as it went over the bus, once it did.
    """
    rule = MatchRule(type="method_call", interface=interface, member=member)
    connection = await open_dbus_connection()
    try:
        request = Monitoring().BecomeMonitor([rule.serialise()])
        await connection.send(request, serial=1000)
        async with asyncio.timeout(timeout_s):
            while True:  # monitoring starts with the reply
                reply = await connection.receive()
                if reply.header.fields.get(HeaderFields.reply_serial) == 1000:
                    break

        async def next_call() -> Message:
            async with asyncio.timeout(timeout_s):
                while True:
                    message = await connection.receive()
                    fields = message.header.fields
                    if (
                        message.header.message_type == MessageType.method_call
                        and fields.get(HeaderFields.member) == member
                    ):
                        return message

        yield next_call
    finally:
        await connection.close()


async def dunst_history() -> list[dict[str, Any]]:
    """What dunst has shown, newest first, after closing every notification.

    dunst moves the notifications to its history while it handles ``NotificationCloseAll``
    (before it replies), so the history read after the reply holds them all.
    """
    commands = DBusAddress(_NOTIFY_PATH, bus_name=NOTIFICATIONS, interface="org.dunstproject.cmd0")
    async with open_dbus_router() as router:
        await router.send_and_get_reply(new_method_call(commands, "NotificationCloseAll"))
        reply = await router.send_and_get_reply(
            new_method_call(commands, "NotificationListHistory")
        )
    return [{key: value[1] for key, value in entry.items()} for entry in reply.body[0]]


def tagged_wav(path: Path, title: str, artist: str, pitch: float, seconds: float = 30.0) -> Path:
    """A quiet tone with RIFF INFO tags (INAM title, IART artist), which mpv reads as metadata."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        frames = (int(800 * math.sin(i * pitch)) for i in range(int(8000 * seconds)))
        writer.writeframes(b"".join(struct.pack("<h", frame) for frame in frames))
    riff = buffer.getvalue()

    def chunk(tag: bytes, text: str) -> bytes:
        data = text.encode() + b"\0"
        data += b"\0" * (len(data) % 2)
        return tag + struct.pack("<I", len(data)) + data

    info = b"INFO" + chunk(b"INAM", title) + chunk(b"IART", artist)
    body = riff[12:] + b"LIST" + struct.pack("<I", len(info)) + info
    path.write_bytes(b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body)
    return path


@pytest.fixture
async def mpv_player(session_bus: str, tmp_path: Path) -> AsyncIterator[subprocess.Popen[bytes]]:
    """mpv playing :data:`TRACKS` (looping) with the MPRIS plugin, on the private bus."""
    _needs("mpv")
    if not _MPRIS_PLUGIN.is_file():
        pytest.fail("mpv-mpris is not installed: `bash packaging/setup.sh test` installs it")
    files = [
        tagged_wav(tmp_path / f"track{n}.wav", title, artist, 0.05 * (n + 1))
        for n, (title, artist) in enumerate(TRACKS)
    ]
    player = subprocess.Popen(
        [
            "mpv", "--no-config", "--no-terminal", "--no-video", "--ao=null",
            f"--script={_MPRIS_PLUGIN}", "--loop-playlist=inf", *map(str, files),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await wait_for_name(MPRIS_MPV)
        await wait_for_property(MPRIS_MPV, PLAYER, "PlaybackStatus", lambda v: v == "Playing")
        await wait_for_property(
            MPRIS_MPV, PLAYER, "Metadata", lambda m: "xesam:title" in m and "xesam:artist" in m
        )
        yield player
    finally:
        player.terminate()
        player.wait(timeout=10)


@pytest.fixture
async def dunst(session_bus: str, display: str, tmp_path: Path) -> AsyncIterator[None]:
    """dunst, the notification service of bare window managers, on Xvfb and the private bus."""
    _needs("dunst")
    config = tmp_path / "dunstrc"
    config.write_text("[global]\n    timeout = 0\n", encoding="utf-8")  # nothing expires by itself
    service = subprocess.Popen(
        ["dunst", "-config", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "DISPLAY": display},
    )
    try:
        await wait_for_name(NOTIFICATIONS)
        yield
    finally:
        service.terminate()
        service.wait(timeout=10)


def write_app(
    folder: Path,
    app_id: str,
    *,
    name: str,
    command: str,
    extra: str = "",
) -> Path:
    """An XDG entry ``<folder>/applications/<app_id>.desktop``."""
    path = folder / "applications" / f"{app_id}.desktop"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"[Desktop Entry]\nType=Application\nName={name}\nExec={command}\n{extra}",
        encoding="utf-8",
    )
    return path


def marker_program(folder: Path, fifo: Path) -> Path:
    """A harmless program that reports how it was started into ``fifo`` and exits.

    It writes one line: its arguments, its session id, its parent's pid and where its
    standard input, output and error point.
    """
    os.mkfifo(fifo)
    program = folder / "aria-test-app"
    program.write_text(
        "#!/bin/sh\n"
        "read -r _pid _comm _state ppid _pgrp sid _rest < /proc/$$/stat\n"
        "in=$(readlink /proc/$$/fd/0); out=$(readlink /proc/$$/fd/1)\n"
        "err=$(readlink /proc/$$/fd/2)\n"
        f'echo "args=$*|sid=$sid|ppid=$ppid|stdin=$in|stdout=$out|stderr=$err|cwd=$PWD" > {fifo}\n',
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


async def read_marker(fifo: Path, timeout_s: float = _WAIT_S) -> dict[str, str]:
    """The line the marker program wrote, once it wrote it (the FIFO blocks until then)."""

    def read() -> str:
        with fifo.open(encoding="utf-8") as pipe:
            return pipe.readline().strip()

    try:
        async with asyncio.timeout(timeout_s):
            line = await asyncio.to_thread(read)
    except TimeoutError:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the blocked reader go
        raise AssertionError(f"the app did not start within {timeout_s:g} s") from None
    return dict(part.split("=", 1) for part in line.split("|"))
