"""Fire-and-forget coroutines started from Qt slots, owned and cancelled on quit.

Slots must not block or run nested event loops (ARCHITECTURE.md: one loop): they start a named
task here. A failure is reported to ``on_error`` in plain words (``AriaError`` message and
hint); an unexpected exception is logged with its traceback and reported without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from aria_desktop.domain.error_text import for_people
from aria_desktop.domain.errors import AriaError

__all__ = ["ErrorReporter", "TaskOwner", "current_loop", "describe_error"]

_LOGGER = logging.getLogger(__name__)

ErrorReporter = Callable[[str, str], None]
"""``(message, hint)`` shown to the user."""


def describe_error(exc: BaseException) -> tuple[str, str]:
    """A failure as ``(message, hint)`` for people (never a traceback, a command or a key).

    A hint that names a shell command is the CLI's: a window drops it (``for_people``).
    """
    if isinstance(exc, AriaError):
        return for_people(exc.message, ""), for_people("", exc.hint)
    if isinstance(exc, TimeoutError):
        return "ARIA did not answer in time.", "Check that it is still running, then try again."
    if isinstance(exc, ConnectionError | OSError):
        return f"ARIA could not be reached ({exc}).", "Check that it is running."
    return (
        f"Something went wrong ({exc.__class__.__name__}).",
        "Details are in ARIA's log file.",
    )


def current_loop() -> asyncio.AbstractEventLoop:
    """The running loop, or else the loop set for this thread.

    Qt can call a slot between loop iterations (``processEvents``); qasync's loop is then
    still the thread's loop.
    """
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.get_event_loop_policy().get_event_loop()


class TaskOwner:
    """Keeps references to running tasks (asyncio holds only weak ones) and cancels them."""

    def __init__(self, on_error: ErrorReporter) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._on_error = on_error

    def spawn(
        self,
        coro: Coroutine[Any, Any, Any],
        *,
        name: str,
        on_error: ErrorReporter | None = None,
    ) -> asyncio.Task[Any] | None:
        """Run ``coro`` as a named task; its failure goes to ``on_error`` (or the default).

        Returns None (and drops ``coro``) once the loop is gone: a Qt timer or signal can
        still fire while the app shuts down.
        """
        report = on_error or self._on_error
        try:
            loop = current_loop()
            if loop.is_closed():
                raise RuntimeError("event loop closed")
        except RuntimeError:
            coro.close()
            _LOGGER.debug("%s not started: no event loop", name)
            return None

        async def guarded() -> Any:
            try:
                return await coro
            except asyncio.CancelledError:
                raise
            except AriaError as exc:
                _LOGGER.info("%s failed: %s", name, exc)
                report(*describe_error(exc))
            except Exception as exc:
                _LOGGER.exception("%s failed", name)
                report(*describe_error(exc))
            return None

        task = loop.create_task(guarded(), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def cancel_all(self, timeout_s: float = 2.0) -> None:
        """Cancel every task and wait for them (bounded)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)
