"""Fixtures shared across test packages.

``display``: one private Xvfb for the whole session. Computer-use tests in several packages
(tests/computer, tests/api) need it, and must share it: pyautogui and Xlib connect to the
display once per process, so a second Xvfb later in the session would receive nothing.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    """A fresh Xvfb display without access control (so no XAUTHORITY is needed)."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.kill()
        pytest.fail("Xvfb did not start")
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "XAUTHORITY", "QT_QPA_PLATFORM")}
    os.environ["DISPLAY"] = f":{number}"
    os.environ.pop("XAUTHORITY", None)
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    try:
        yield os.environ["DISPLAY"]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cache folder of the real embedding model for the modules that load it.

    Without one, every ``LocalEmbedder`` derives its int8-compute model from the packaged one
    again (2.5 s); sharing the folder, the session builds it once and each later load takes
    0.1 s. Each module still loads its own embedder. Tests of the build itself use their own.
    """
    return tmp_path_factory.mktemp("embedding-models")


@pytest.fixture(scope="session", autouse=True)
def _no_sound_server_autospawn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never start the user's sound server as a side effect.

    PortAudio probes ALSA's "pulse" device when it initialises; where libpulse autospawns
    (distributions that enable it, users without systemd socket activation), that would start
    a PulseAudio with a "Dummy Output" and end this machine's no-sound-card state. Tests that
    want a sound server start a private one (tests/voice/pulse.py).
    """
    if "PULSE_CLIENTCONFIG" in os.environ:
        yield
        return
    conf = tmp_path_factory.mktemp("pulse-client") / "client.conf"
    conf.write_text("autospawn = no\n")
    os.environ["PULSE_CLIENTCONFIG"] = str(conf)
    try:
        yield
    finally:
        os.environ.pop("PULSE_CLIENTCONFIG", None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave what the test modules imported out of every later full garbage collection.

    The GUI fixtures collect on the GUI thread after each test (tests/gui/conftest.py), and a
    full collection walks every tracked object: with Qt, numpy, the HTTP stack and the test
    modules loaded that is most of a second per test. Frozen objects are still freed by
    reference counting; only cycles among them, garbage already, are never collected.
    """
    gc.collect()
    gc.freeze()


#: The first real-model test may wait for CI's background llama-server build (tests/llama).
LLAMA_BUILD_WAIT_S = 1200


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the real-model tests (marker ``llama``) last, all on one worker.

    In CI llama-server is still being built in the background while the rest of the suite runs
    (packaging/setup.sh); last, they wait for it the least.
    """
    llama = [item for item in items if item.get_closest_marker("llama")]
    if llama:
        items[:] = [item for item in items if not item.get_closest_marker("llama")] + llama
    for item in llama:
        # One worker runs them all (pytest -n 2 --dist loadgroup): two llama-servers with two
        # busy-waiting threads each on two cores slowed every reply several-fold in CI.
        item.add_marker(pytest.mark.xdist_group("llama"))


_LLAMA_WAIT_GIVEN = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Give the first real-model test a process runs a timeout long enough for a whole build.

    That test carries the wait for CI's llama-server build. With ``pytest -n`` every worker
    has its own first one. Outermost, so pytest-timeout reads the marker after it is added.
    """
    if item.get_closest_marker("llama") and not item.config.stash.get(_LLAMA_WAIT_GIVEN, False):
        item.config.stash[_LLAMA_WAIT_GIVEN] = True
        item.add_marker(pytest.mark.timeout(LLAMA_BUILD_WAIT_S), append=False)
    return (yield)
