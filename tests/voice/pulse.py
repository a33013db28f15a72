"""A private PulseAudio server with a virtual speaker, for tests of the real device code.

PortAudio (Debian's build: ALSA host API) reaches it through ALSA's ``pulse`` plugin
(``libasound2-plugins``): with the server running, PortAudio lists the ALSA devices "pulse"
and "default". Whatever is played on them goes to a null sink (the "speaker"); recording
from them reads that sink's monitor (the "microphone" hears the room: everything played).
``pactl`` lists them as the sound server names them: the sink ``aria_test_speaker``
("ARIA-test-speaker") and the source ``aria_test_speaker.monitor`` ("Monitor of
ARIA-test-speaker"); ``second_speaker`` adds another pair while a test needs it.

The server runs as a child of the test process with its own runtime, config and state
directories, is reached by ``PULSE_SERVER`` only, and is always stopped. It refuses nothing
as root: ``pulseaudio`` only warns that it is not meant to run as root without ``--system``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SINK = "aria_test_speaker"
_START_TIMEOUT_S = 15.0
_CONFIG = """\
load-module module-native-protocol-unix auth-anonymous=1 socket={socket}
load-module module-null-sink sink_name={sink} sink_properties=device.description=ARIA-test-speaker
set-default-sink {sink}
set-default-source {sink}.monitor
"""


class PulseServer:
    """A running private PulseAudio server.

    Attributes:
        address: the ``PULSE_SERVER`` value clients use (``unix:/path/native``).
        log: the server's log file.
    """

    def __init__(self, address: str, log: Path, process: subprocess.Popen[bytes]) -> None:
        self.address = address
        self.log = log
        self.process = process

    @property
    def _pactl(self) -> list[str]:
        return ["pactl", f"--server={self.address}"]

    def env(self) -> dict[str, str]:
        """The environment for a child process that should use this server."""
        return {**os.environ, "PULSE_SERVER": self.address}

    def set_playback_volume(self, percent: int) -> None:
        """Set the volume of every stream playing now (PulseAudio's cubic scale: 70% is
        about -9 dB), e.g. to put ARIA's speaker farther from the microphone than a user."""
        listed = subprocess.run(
            [*self._pactl, "list", "short", "sink-inputs"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
        for line in listed.stdout.splitlines():
            stream = line.split()[0]
            subprocess.run(
                [*self._pactl, "set-sink-input-volume", stream, f"{percent}%"],
                check=True,
                timeout=10,
            )

    @contextlib.contextmanager
    def second_speaker(self, name: str, description: str) -> Iterator[None]:
        """Another null sink (a second speaker; its monitor a second microphone) while the
        block runs, kept running like the first (``_start_clock``), then unloaded.

        Args:
            name: the sink's name (its monitor is ``{name}.monitor``).
            description: what the sink is called for people (no quotes).
        """
        loaded = subprocess.run(
            [
                *self._pactl,
                "load-module",
                "module-null-sink",
                f"sink_name={name}",
                f"sink_properties='device.description=\"{description}\"'",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
        module = loaded.stdout.strip()
        clock: subprocess.Popen[bytes] | None = None
        try:
            clock = _start_clock(self.address, self.log.parent / f"{name}.raw", f"{name}.monitor")
            yield
        finally:
            if clock is not None:
                clock.terminate()
                clock.wait(timeout=5)
            subprocess.run([*self._pactl, "unload-module", module], check=True, timeout=10)

    def streams_on(self, kind: str) -> list[str]:
        """The device each stream of ``kind`` is on now: "sink-inputs" (playing, by sink
        name) or "source-outputs" (recording, by source name)."""
        devices = "sinks" if kind == "sink-inputs" else "sources"

        def short(what: str) -> list[list[str]]:
            listed = subprocess.run(
                [*self._pactl, "list", "short", what],
                capture_output=True,
                text=True,
                check=True,
                timeout=10,
            )
            return [line.split("\t") for line in listed.stdout.splitlines() if line.strip()]

        names = {row[0]: row[1] for row in short(devices)}
        return [names.get(row[1], row[1]) for row in short(kind)]

    def play(self, wav: Path) -> subprocess.Popen[bytes]:
        """Play a WAV file on the virtual speaker from another process (someone talking)."""
        return subprocess.Popen(
            ["paplay", f"--server={self.address}", f"--device={SINK}", str(wav)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def _wait_for_socket(path: Path, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            pytest.fail(f"pulseaudio exited at start:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(path))
            return
        if time.monotonic() > deadline:
            pytest.fail(f"pulseaudio did not start in {_START_TIMEOUT_S:g} s:\n{log.read_text()}")
        time.sleep(0.05)


def _start_clock(
    address: str, out: Path, monitor: str = f"{SINK}.monitor"
) -> subprocess.Popen[bytes]:
    """Keep the virtual speaker running like a sound card; returns once it does.

    An idle null sink renders in 2 s blocks, so the first stream on it stalls for up to 2 s
    (a sound card is clocked all the time). A 10 ms-latency recorder on its monitor keeps it
    rendering in small blocks for the server's lifetime.
    """
    with out.open("wb") as sink:
        clock = subprocess.Popen(
            [
                "parec",
                f"--server={address}",
                f"--device={monitor}",
                "--latency-msec=10",
                "--raw",
                "--format=s16le",
                "--rate=8000",
                "--channels=1",
            ],
            stdout=sink,
            stderr=subprocess.DEVNULL,
        )
    deadline = time.monotonic() + _START_TIMEOUT_S
    while out.stat().st_size == 0:
        if clock.poll() is not None or time.monotonic() > deadline:
            clock.kill()
            pytest.fail("the virtual speaker did not start running")
        time.sleep(0.05)
    return clock


@contextlib.contextmanager
def pulse_server(root: Path) -> Iterator[PulseServer]:
    """Start a private PulseAudio server under ``root``; point this process at it.

    Sets ``PULSE_SERVER`` in ``os.environ`` while it runs (ALSA's pulse plugin, loaded by
    PortAudio in this process, reads it) and restores it afterwards.
    """
    missing = [tool for tool in ("pulseaudio", "paplay", "parec") if shutil.which(tool) is None]
    if not any(Path("/usr/lib").glob("*/alsa-lib/libasound_module_pcm_pulse.so")):
        missing.append("ALSA's pulse plugin")
    if missing:
        pytest.fail(
            f"PulseAudio is needed ({', '.join(missing)} missing): `bash packaging/setup.sh "
            "test` installs pulseaudio, pulseaudio-utils and libasound2-plugins"
        )
    runtime = root / "run"
    runtime.mkdir(mode=0o700, parents=True)
    sock = runtime / "native"
    config = root / "aria-test.pa"
    config.write_text(_CONFIG.format(socket=sock, sink=SINK))
    log = root / "pulseaudio.log"
    daemon_env = {
        **os.environ,
        "HOME": str(root),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CONFIG_HOME": str(root / "config"),
        "PULSE_RUNTIME_PATH": str(runtime),
        "PULSE_STATE_PATH": str(root / "state"),
    }
    daemon_env.pop("PULSE_SERVER", None)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                "pulseaudio",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--disable-shm=yes",
                "--realtime=no",
                "--high-priority=no",
                "-n",  # no default.pa: only the modules in our config
                "-F",
                str(config),
                "--log-level=notice",
            ],
            env=daemon_env,
            stdout=out,
            stderr=out,
        )
    saved = os.environ.get("PULSE_SERVER")
    clock: subprocess.Popen[bytes] | None = None
    try:
        _wait_for_socket(sock, process, log)
        clock = _start_clock(f"unix:{sock}", root / "clock.raw")
        os.environ["PULSE_SERVER"] = f"unix:{sock}"
        yield PulseServer(f"unix:{sock}", log, process)
    finally:
        if clock is not None:
            clock.terminate()
            clock.wait(timeout=5)
        if saved is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = saved
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
