"""GUI test fixtures: a private Xvfb, qasync's loop, and a real orchestrator stack.

Every GUI test runs on a real X server (Xvfb, 1280x800) so windows, focus and screenshots
behave like on a desktop; the orchestrator is the real one over the Ollama test server and a
real SQLite file. Coroutines run on qasync's loop with ``run(coro)`` (bounded).
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytestqt.plugin

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.memory.store import Embedder, SQLiteMemoryStore
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.memory.service import MemoryConfig, MemoryService
from aria_desktop.core.orchestrator import Orchestrator
from tests.fakes import FakeOllama
from tests.fakes.audit import MemoryAuditStore

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]
ICONS = REPO / "resources" / "icons"
ARTIFACTS = REPO / "test-artifacts"
FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Start Xvfb on a display it picks itself (``-displayfd``), so no two runs collide."""
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        process.kill()
        raise RuntimeError("Xvfb did not start")
    return process, f":{number}"


TRAY_HOST = ("trayer",)
"""A real freedesktop XEmbed system tray: trayer (Debian ``trayer``; ``stalonetray`` is not in
Debian 12). Top right, as wide as its icons, 32 px high; no dock hints (there is no window
manager under Xvfb to read them)."""
TRAY_HOST_ARGS = (
    "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32",
    "--SetDockType", "false", "--SetPartialStrut", "false",
)  # fmt: skip


def start_tray_host(display: str, timeout_s: float = 10.0) -> subprocess.Popen[bytes]:
    """Start a real XEmbed system tray on ``display``; returns once it owns the tray selection.

    Qt (xcb) finds a tray through the owner of the ``_NET_SYSTEM_TRAY_S<screen>`` selection
    (freedesktop System Tray spec), so that owner existing is what "a tray host runs" means.
    """
    from Xlib import display as xdisplay

    process = subprocess.Popen(
        [*TRAY_HOST, *TRAY_HOST_ARGS],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    connection = xdisplay.Display(display)
    try:
        selection = connection.intern_atom("_NET_SYSTEM_TRAY_S0")
        deadline = time.monotonic() + timeout_s
        while getattr(connection.get_selection_owner(selection), "id", 0) == 0:  # X.NONE: none
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait(timeout=5)
                raise RuntimeError(f"the tray host {TRAY_HOST[0]} did not start on {display}")
            time.sleep(0.02)
    finally:
        connection.close()
    return process


@pytest.fixture(scope="session", autouse=True)
def xvfb_display() -> Iterator[str]:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (packaging/setup.sh test installs it)")
    process, display = start_xvfb()
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    os.environ["DISPLAY"] = display
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    os.environ.pop("WAYLAND_DISPLAY", None)
    try:
        yield display
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        process.terminate()
        process.wait(timeout=10)


_OPEN_LOOPS: list[Any] = []
"""The AriaEventLoop the current test opened (at most one), while it is open."""
_pytestqt_process_events: Callable[[], None] = pytestqt.plugin._process_events


def _process_events_inside_the_loop() -> None:
    """pytest-qt processes Qt events between a test's phases (before fixtures are torn down).

    With a loop open, a timer due then (uvicorn's 0.1 s main loop, a stream's reconnect) would
    step its task with no running loop, and the task dies with "no running event loop" (seen in
    CI: the API server's stop then raised). The pass runs as the loop's own instead.
    """
    if _OPEN_LOOPS and not _OPEN_LOOPS[-1].is_running():
        _OPEN_LOOPS[-1].process_pending_events()
    else:
        _pytestqt_process_events()


pytestqt.plugin._process_events = _process_events_inside_the_loop  # looked up per call


@pytest.fixture
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    from aria_desktop.gui.loop import AriaEventLoop

    # What earlier tests left alive stays out of this test's full collections (below, in the
    # loop's close and in collect_qt_garbage): walking it took most of a second per test.
    # Their garbage is collected first (only what is not frozen yet is walked): frozen, dropped
    # widgets would live on, and every palette or style-sheet change re-polishes them all.
    collect_qt_garbage()
    gc.freeze()
    loop = AriaEventLoop(qapp)
    asyncio.set_event_loop(loop)
    _OPEN_LOOPS.append(loop)
    try:
        yield loop
    finally:
        _OPEN_LOOPS.remove(loop)
        loop.run_until_complete(asyncio.sleep(0))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()  # collects on this (the GUI) thread and stops the loop's own Qt timers
        asyncio.set_event_loop(None)
        del loop
        gc.collect()  # the loop itself, on the GUI thread too


Runner = Callable[..., Any]


@pytest.fixture
def run(qloop: asyncio.AbstractEventLoop) -> Runner:
    """Run a coroutine on qasync's loop (bounded by ``timeout_s``).

    The bound is only a guard against a coroutine that never ends: a wait's own bound
    (``wait_for``'s) is the one a test means, so the guard is longer than any of them. It was
    15 s, and cut short the 20 s and 120 s waits of slower steps on a busy machine.
    """

    def runner(coro: Coroutine[Any, Any, T], timeout_s: float = 150.0) -> T:
        async def bounded() -> T:
            async with asyncio.timeout(timeout_s):
                return await coro

        return qloop.run_until_complete(bounded())

    return runner


def process_events(run: Runner) -> None:
    """Let Qt process what is pending (paint, focus, hide), inside the loop.

    Never ``QApplication.processEvents()`` outside it: due timers would step the loop's tasks
    while no loop runs, and they die with "no running event loop".
    """
    run(asyncio.sleep(0))


async def wait_for(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Poll ``predicate`` on the loop until it holds (bounded)."""
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.01)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ARIA's directories, the settings file and the autostart folder under ``tmp_path``."""
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for key in list(os.environ):
        if key.startswith("ARIA_LLM") or key.startswith("ARIA_GUI"):
            monkeypatch.delenv(key)
    return tmp_path


@pytest.fixture(params=["light", "dark"])
def theme(request: pytest.FixtureRequest, isolated_env: Path, qapp: Any) -> Iterator[str]:
    """Render a window in ARIA's light and its dark theme (``gui.theme``; one run each).

    The theme is set in the settings before the test builds its ``Desktop`` (which applies
    it); afterwards the application gets the desktop's own colours back.
    """
    from aria_desktop.compose.desktop_services import LocalSettingsService

    name = str(request.param)
    palette, sheet = qapp.palette(), qapp.styleSheet()
    LocalSettingsService().apply({"gui.theme": name})
    try:
        yield name
    finally:
        qapp.setPalette(palette)
        qapp.setStyleSheet(sheet)


class Stack:
    """A real orchestrator wired to the Ollama test server and a SQLite file.

    With ``memory``, the real ``MemoryService`` over the real memory store (same SQLite
    file, sqlite-vec; keyword search only unless an embedder is given) is installed, as
    ``compose.app.build_app`` does.
    """

    def __init__(
        self,
        orchestrator: Orchestrator,
        router: Router,
        db: Database,
        memory: MemoryService | None = None,
    ) -> None:
        self.orchestrator = orchestrator
        self.router = router
        self.db = db
        self.memory = memory
        self.assistant = LocalAssistant(orchestrator, memory=memory)

    async def aclose(self) -> None:
        await self.orchestrator.stop()
        await self.router.aclose()
        await self.db.close()


@pytest.fixture
def stack_factory(tmp_path: Path, ollama: FakeOllama, run: Runner) -> Iterator[Any]:
    opened: list[Stack] = []

    def make(
        config: AgentConfig | None = None,
        *,
        memory: MemoryConfig | None = None,
        embedder: Embedder | None = None,
    ) -> Stack:
        async def build() -> Stack:
            db = await Database.open(tmp_path / f"aria{len(opened)}.db")
            router = Router(
                {"ollama": OllamaBackend(base_url=ollama.url, model="llama3.2", timeouts=FAST)},
                {"chat": ("ollama",), "extract": ("ollama",)},
                retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
                breaker=BreakerPolicy(failure_threshold=50, reset_s=30.0),
            )
            audit = AuditLog(MemoryAuditStore())
            orchestrator = Orchestrator(
                model=router,
                store=SQLiteConversationStore(db),
                audit=audit,
                config=config or AgentConfig(),
            )
            service = None
            if memory is not None:
                store = SQLiteMemoryStore(db, embedder)
                await store.open()
                service = MemoryService(store=store, model=router, config=memory)
                service.install(orchestrator)
            return Stack(orchestrator, router, db, service)

        stack: Stack = run(build())
        opened.append(stack)
        return stack

    yield make
    for stack in opened:
        run(stack.aclose())


@pytest.fixture
def stack(stack_factory: Any) -> Stack:
    made: Stack = stack_factory()
    return made


@pytest.fixture
def desktop_factory(isolated_env: Path, run: Runner) -> Iterator[Any]:
    """A ``Desktop`` (no tray host needed) attached to an Assistant; closed after the test."""
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.gui.app import Desktop, DesktopOptions

    made: list[Any] = []

    def make(assistant: Any | None = None, *, use_tray: bool = False) -> Any:
        async def build() -> Any:
            desktop = Desktop(
                LocalSettingsService(),
                DesktopOptions(
                    icons_dir=ICONS, use_tray=use_tray, show_wizard=False, hotkeys=False
                ),
            )
            if assistant is not None:
                desktop.context.attach(assistant)
            # Tests start from a settled window: the loads the attach spawned (conversation
            # list, capabilities) have finished, whatever the machine's load.
            started = set(desktop.tasks._tasks)
            if started:
                await asyncio.wait(started)
            return desktop

        # Bounded generously: on a loaded 2-core machine the first loads took over 15 s.
        desktop = run(build(), timeout_s=60)
        made.append(desktop)
        return desktop

    yield make
    for desktop in made:
        # The app's own quit path: windows, hotkeys, then the connection (in-process: the
        # owner's voice, turns and automations, API server, database), on the GUI thread.
        run(desktop.shutdown(), timeout_s=30)
        # Its windows go with it: left alive (signal connections hold them), each later
        # palette or style-sheet change re-polished thousands of widgets until tests timed out.
        windows = [desktop.chat_view, desktop.quick_ask_view, desktop.overlay]
        for controller in (desktop.settings, desktop.wizard, desktop.memory, desktop.knowledge):
            windows.append(getattr(controller, "view", None))
        for window in windows:
            if window is not None:
                window.deleteLater()
    made.clear()
    collect_qt_garbage()


def collect_qt_garbage() -> None:
    """Free dropped Qt objects now, on the GUI thread.

    Left to the cyclic garbage collector they may be freed later from whatever thread happens
    to allocate (a model's worker thread in the voice tests), and Qt objects destroyed off the
    GUI thread crash the process at the next event dispatch. (While the loop is open,
    ``AriaEventLoop`` keeps automatic collection off; this frees them before the test ends.)
    Qt's events are not processed here: outside the loop they would step its tasks.
    """
    from PySide6.QtCore import QCoreApplication, QEvent

    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    gc.collect()
