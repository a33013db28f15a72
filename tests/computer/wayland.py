"""A real headless Wayland desktop for the tests: sway with its headless backend.

sway refuses to run as root, so a root test run starts it as the unprivileged user
``aria-wayland`` (``packaging/setup.sh test`` creates it) in a runtime folder of that user's;
root clients still reach its sockets. ``SwaySession.env`` is what a process inside that desktop
has: ``WAYLAND_DISPLAY`` (the socket's full path) and ``SWAYSOCK``, and no ``DISPLAY``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USER = "aria-wayland"
CONFIG = """\
output HEADLESS-1 resolution {width}x{height} position 0 0
output HEADLESS-2 resolution {double_width}x{double_height} scale 2 position {width} 0
default_border none
focus_follows_mouse no
"""
"""Outputs side by side, the second a HiDPI one at scale 2 (twice the pixels, the same logical
size): the tests check coordinates across outputs and scales."""


@dataclass(frozen=True)
class SwaySession:
    runtime: Path
    wayland_socket: Path
    ipc_socket: Path

    @property
    def env(self) -> dict[str, str]:
        """The environment of a program running inside this desktop."""
        env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "XAUTHORITY"}}
        env.update(
            WAYLAND_DISPLAY=str(self.wayland_socket),
            SWAYSOCK=str(self.ipc_socket),
            QT_QPA_PLATFORM="wayland",
        )
        return env


def _as_user(command: list[str], env: dict[str, str]) -> list[str]:
    """``command`` as the unprivileged user when this run is root (sway refuses root)."""
    settings = [f"{key}={value}" for key, value in env.items()]
    if os.geteuid() != 0:
        return ["env", *settings, *command]
    return ["runuser", "-u", USER, "--", "env", *settings, *command]


@contextlib.contextmanager
def sway_session(
    tmp: Path, width: int = 1280, height: int = 800, outputs: int = 2
) -> Iterator[SwaySession]:
    """Start a headless sway with ``outputs`` outputs (1 or 2); stop it after."""
    missing = [tool for tool in ("sway", "grim", "wtype") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: `bash packaging/setup.sh test` installs them")
    if os.geteuid() == 0 and subprocess.run(["id", USER], capture_output=True).returncode:
        pytest.fail(f"user {USER} missing: `bash packaging/setup.sh test` creates it")
    # Its own folder under /tmp: pytest's tmp folders are closed to other users.
    runtime = Path(tempfile.mkdtemp(prefix="aria-sway-"))
    config = runtime / "sway.conf"
    config.write_text(
        CONFIG.format(width=width, height=height, double_width=2 * width, double_height=2 * height)
    )
    config.chmod(0o644)
    if os.geteuid() == 0:
        shutil.chown(runtime, USER)
        shutil.chown(config, USER)
    env = {
        "XDG_RUNTIME_DIR": str(runtime),
        "WLR_BACKENDS": "headless",
        "WLR_HEADLESS_OUTPUTS": str(outputs),
        "WLR_LIBINPUT_NO_DEVICES": "1",
        "WLR_RENDERER": "pixman",
        "HOME": str(runtime),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    log = (tmp / "sway.log").open("wb")
    process = subprocess.Popen(
        _as_user(["sway", "-c", str(config)], env), stdout=log, stderr=log, cwd="/"
    )
    try:
        session = _wait_for_sockets(process, runtime, tmp / "sway.log")
        yield session
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()
        shutil.rmtree(runtime, ignore_errors=True)


def _wait_for_sockets(process: subprocess.Popen[bytes], runtime: Path, log: Path) -> SwaySession:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"sway exited: {log.read_text()[-2000:]}")
        displays = [p for p in runtime.glob("wayland-*") if not p.name.endswith(".lock")]
        ipc = list(runtime.glob("sway-ipc.*.sock"))
        if displays and ipc:
            return SwaySession(runtime, displays[0], ipc[0])
        time.sleep(0.05)
    pytest.fail(f"sway did not start: {log.read_text()[-2000:]}")
