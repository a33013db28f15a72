"""qasync's event loop, made safe for an app whose worker threads run Python code.

Three things qasync 0.28 gets wrong for ARIA, each measured here:

- Async generators: ``asyncio.BaseEventLoop.run_forever`` installs ``sys.set_asyncgen_hooks``
  so an async generator dropped before it finished (an HTTP stream closed on cancel) is
  finalized as a task on the loop. qasync on Unix runs Qt's loop instead and never installs
  them: Python then finalizes such generators synchronously, outside any task, and httpx/anyio
  fail with "no running event loop" / "cancel scope in a different task". The hooks are
  installed while the loop runs.
- The last pass: ``run_until_complete`` processes pending Qt events once more after the loop
  stopped and no longer counts as running. Timers due then step tasks (uvicorn's main loop,
  voice capture, the GUI's event stream) that die with "no running event loop". That pass
  runs here with this loop as the running loop.
- Garbage on the wrong thread: Python's cyclic garbage collector runs on whichever thread
  happens to allocate, often a worker (``asyncio.to_thread``, model loading, SQLite's writer).
  Qt objects in a reference cycle (widgets, controllers, qasync's own timer object) are then
  destroyed off the GUI thread; Qt cannot stop their timers there ("Timers cannot be stopped
  from another thread"), and the next timer event dispatches to freed memory: the process dies
  with a segmentation fault. While this loop is open, automatic collection is off and the loop
  collects on the GUI thread instead, as often as the thresholds of ``gc`` would have; closing
  the loop collects once more and destroys its own timer object on the GUI thread.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject
from PySide6.QtWidgets import QApplication

__all__ = ["GC_INTERVAL_S", "AriaEventLoop"]

GC_INTERVAL_S = 0.5
"""How often the loop checks whether a garbage collection is due (on the GUI thread)."""


class _GuiThreadCollection:
    """Automatic garbage collection is off while any AriaEventLoop is open (then restored)."""

    open_loops = 0
    was_enabled = True

    @classmethod
    def acquire(cls) -> None:
        if cls.open_loops == 0:
            cls.was_enabled = gc.isenabled()
            gc.disable()
        cls.open_loops += 1

    @classmethod
    def release(cls) -> None:
        cls.open_loops -= 1
        if cls.open_loops == 0 and cls.was_enabled:
            gc.enable()


class AriaEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` that keeps asyncio's rules and frees Qt objects on its thread."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        self._saved_hooks: Any = None
        _GuiThreadCollection.acquire()  # collected on the GUI thread only (module docstring)
        self._long_lived = len(gc.get_objects(generation=2))
        self._gc_handle: asyncio.TimerHandle | None = self.call_later(
            GC_INTERVAL_S, self._collect_garbage
        )

    def _before_run_forever(self) -> None:
        super()._before_run_forever()
        self._saved_hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )

    def _after_run_forever(self) -> None:
        saved, self._saved_hooks = self._saved_hooks, None
        if saved is not None:
            sys.set_asyncgen_hooks(*saved)
        super()._after_run_forever()

    def run_until_complete(self, future: Any) -> Any:
        """Run until ``future`` is done; its result (as ``asyncio``'s loops do).

        Like qasync's, one more pass over pending Qt events follows the stop, but as the
        running loop with the async-generator hooks installed, so callbacks due in that pass
        behave as they would inside the loop.
        """
        if self.is_running():
            raise RuntimeError("Event loop already running")
        task = asyncio.ensure_future(future, loop=self)

        def stop(_done: Any) -> None:
            self.stop()

        task.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            task.remove_done_callback(stop)
        self.process_pending_events()
        if not task.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return task.result()

    def process_pending_events(self) -> None:
        """Process the pending Qt events once, as this loop would while running.

        For the pass after a stop, and for code that must pump Qt while the loop is stopped (a
        test harness between phases): callbacks that come due then step tasks with this loop
        as the running loop instead of dying with "no running event loop".
        """
        if self.is_running():
            raise RuntimeError("Event loop already running")
        dispatcher = self._app.eventDispatcher()
        self._before_run_forever()
        asyncio.events._set_running_loop(self)
        try:
            dispatcher.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(None)
            self._after_run_forever()

    def _collect_garbage(self) -> None:
        """Collect what ``gc`` would have collected by now, on the GUI thread.

        CPython's own policy: young objects when their thresholds are passed (a burst of
        allocations between two checks counts as the young collections it stands for, so it is
        walked once and then left alone); a full collection only when the long-lived objects
        grew by a quarter since the last one, so the large heap of an app with Qt and speech
        models is not walked every minute.
        """
        threshold0, threshold1, threshold2 = gc.get_threshold()
        count0, count1, count2 = gc.get_count()
        if threshold0 > 0:
            if count1 > threshold1 or count0 > threshold0 * threshold1:
                if count2 > threshold2 and self._long_lived_grew():
                    gc.collect(2)
                    self._long_lived = len(gc.get_objects(generation=2))
                else:
                    gc.collect(1)
            elif count0 > threshold0:
                gc.collect(0)
        self._gc_handle = self.call_later(GC_INTERVAL_S, self._collect_garbage)

    def _long_lived_grew(self) -> bool:
        return len(gc.get_objects(generation=2)) > self._long_lived * 5 // 4

    def close(self) -> None:
        """Close the loop, free what was dropped on this thread, restore automatic collection.

        Call it on the GUI thread (where the loop was made), like every Qt call.
        """
        if self.is_closed():
            return
        super().close()  # raises if still running
        if self._gc_handle is not None:
            self._gc_handle.cancel()
            self._gc_handle = None
        # qasync's timer object keeps a Qt timer for every pending ``call_later`` (cancelled
        # handles included: it stops them only when they fire). Destroy it now, on this thread,
        # which stops them, so the loop may later be freed on any thread without leaving a Qt
        # timer that points at freed memory.
        timer = getattr(self, "_timer", None)
        if isinstance(timer, QObject):
            timer.deleteLater()
            QCoreApplication.sendPostedEvents(timer, QEvent.Type.DeferredDelete.value)
        gc.collect()
        _GuiThreadCollection.release()
