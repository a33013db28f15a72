"""``AriaEventLoop``: asyncio's rules hold on qasync's loop, and Qt objects die on the GUI thread.

Python's cyclic garbage collector runs on whichever thread allocates; a Qt object it frees on
a worker thread leaves its Qt timers behind and the next timer event crashes the process.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time
from typing import Any

from PySide6.QtCore import QObject

from aria_desktop.gui.loop import GC_INTERVAL_S
from tests.gui.conftest import REPO

_FREED_ELSEWHERE = """
import asyncio, gc, threading, time
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
from aria_desktop.gui.loop import AriaEventLoop

app = QApplication([])
loop = AriaEventLoop(app)
async def main():
    loop.call_later(1.0, lambda: None)  # a Qt timer still pending when the loop closes
    await asyncio.sleep(0)
loop.run_until_complete(main())
loop.close()
gc.disable()
del loop  # garbage in reference cycles: freed by the collector...
worker = threading.Thread(target=gc.collect)  # ...on a worker thread
worker.start()
worker.join()
deadline = time.monotonic() + 1.5  # past the pending timer's due time
while time.monotonic() < deadline:
    QCoreApplication.processEvents()
    time.sleep(0.01)
print("alive")
"""


def test_a_closed_loop_freed_on_a_worker_thread_leaves_no_qt_timer_behind() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", _FREED_ELSEWHERE],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr  # -11: the timer fired into freed memory
    assert done.stdout.strip() == "alive"
    assert "Timers cannot be stopped from another thread" not in done.stderr


def test_qt_objects_in_reference_cycles_are_freed_on_the_gui_thread(run: Any) -> None:
    assert not gc.isenabled()  # while the loop is open, the loop collects
    freed_on: list[str] = []
    holder = QObject()
    holder.setProperty("name", "cycle")
    holder.cycle = holder  # type: ignore[attr-defined]  # only the cyclic collector frees it
    holder.destroyed.connect(lambda: freed_on.append(threading.current_thread().name))
    del holder
    stop = threading.Event()

    def allocate() -> None:  # a busy worker: this is where automatic collection would run
        while not stop.is_set():
            junk: list[Any] = []
            junk.append(junk)
            time.sleep(0)

    worker = threading.Thread(target=allocate, name="busy-worker")
    worker.start()
    try:
        run(asyncio.sleep(GC_INTERVAL_S * 3))
    finally:
        stop.set()
        worker.join()
    assert freed_on == [threading.main_thread().name]


def test_a_task_due_in_the_last_event_pass_still_sees_its_loop(
    qloop: asyncio.AbstractEventLoop,
) -> None:
    seen: list[object] = []
    tasks: list[asyncio.Task[None]] = []

    async def late() -> None:
        await asyncio.sleep(0)
        seen.append(asyncio.get_running_loop())

    async def main() -> None:
        tasks.append(asyncio.ensure_future(late()))  # its 2nd step is due as the loop stops

    qloop.run_until_complete(main())
    assert seen == [qloop]
    assert tasks[0].done()


def test_a_timer_due_while_pytest_qt_processes_events_between_phases_steps_inside_the_loop(
    qloop: asyncio.AbstractEventLoop, run: Any
) -> None:
    import pytestqt.plugin

    between_phases: Any = pytestqt.plugin._process_events  # what pytest-qt calls
    seen: list[object] = []

    async def ticking() -> None:  # like uvicorn's main loop: a short sleep, forever
        while True:
            await asyncio.sleep(0.01)
            seen.append(asyncio.get_running_loop())

    task = qloop.create_task(ticking())
    run(asyncio.sleep(0))
    count = len(seen)
    deadline = time.monotonic() + 5
    while len(seen) == count and not task.done() and time.monotonic() < deadline:
        time.sleep(0.02)  # the tick is due while no loop runs...
        between_phases()  # ...and pytest-qt pumps Qt between a test's phases
    assert len(seen) > count  # the tick ran
    assert not task.done()  # and did not die with "no running event loop"
    task.cancel()
    run(asyncio.sleep(0))
