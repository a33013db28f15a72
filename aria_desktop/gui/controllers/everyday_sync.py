"""Keeps the ``EverydayBoard`` in step with ARIA: loads through the ports, follows the events.

The board is read through the attached Assistant's ports (``lists``, ``timers``,
``reminders``: in the owner, or the API client's), never the database. It is read again only
when ARIA says something changed (``skill-data-changed`` with its kind, ``timer-finished``,
``reminder-due``); the one timer is the 1 s countdown tick, which runs only while a timer
runs and only re-renders (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from aria_desktop.core.ports import Assistant, ListAccess, ReminderAccess, TimerAccess
from aria_desktop.domain.commands import StopRinging
from aria_desktop.domain.skill_events import ReminderDue, SkillDataChanged, TimerFinished
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.controllers.everyday_board import BoardPart, EverydayBoard

__all__ = ["TICK_MS", "EverydaySync"]

TICK_MS = 1000
"""The countdown's re-render interval (ms): whole seconds, as the countdown shows them."""

_NOT_HERE = {
    "lists": "Lists are not available in the ARIA this window is connected to.",
    "timers": "Timers are not available in the ARIA this window is connected to.",
    "reminders": "Reminders are not available in the ARIA this window is connected to.",
}


class EverydaySync(QObject):
    """Loads the board's parts and re-reads them when ARIA says they changed.

    Lists and reminders are read only while someone looks at them (``watched``: the window
    is shown); timers always, since the tray shows them.
    """

    ticked = Signal()
    """A second passed while a timer runs (countdowns re-render; nothing is read)."""
    problem = Signal(str, str)
    """A read or a change failed: ``(message, hint)`` in plain words."""

    def __init__(self, context: GuiContext, board: EverydayBoard | None = None) -> None:
        super().__init__()
        self.context = context
        self.board = board or EverydayBoard()
        self.watched: Callable[[], bool] = lambda: False
        """Whether the lists and reminders are on screen (the window sets it)."""
        self.clock: Callable[[], float] = time.time
        """Wall-clock UNIX seconds (countdowns and "Tomorrow 09:00" are read against it)."""
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self.ticked.emit)
        self.board.observe(self._follow_board)
        context.bridge.event_received.connect(self._on_event)
        context.on_attach(self._on_attached)

    # --- ports --------------------------------------------------------------------------------

    def lists(self) -> ListAccess | None:
        """The attached ARIA's lists (None: not connected, or it has none)."""
        found: ListAccess | None = self._port("lists")
        return found

    def timers(self) -> TimerAccess | None:
        """The attached ARIA's timers (None: not connected, or it has none)."""
        found: TimerAccess | None = self._port("timers")
        return found

    def reminders(self) -> ReminderAccess | None:
        """The attached ARIA's reminders and alarms (None: not connected, or it has none)."""
        found: ReminderAccess | None = self._port("reminders")
        return found

    def timer_change(self, action: str, timer_id: str) -> Coroutine[Any, Any, Any] | None:
        """``action`` (pause, resume, cancel) of timer ``timer_id``, to spawn (None: no timers)."""
        timers = self.timers()
        if timers is None:
            return None
        call = {
            "pause": timers.pause_timer,
            "resume": timers.resume_timer,
            "cancel": timers.cancel_timer,
        }[action]
        return call(timer_id)

    def _port(self, name: str) -> Any:
        if not self.context.connected:
            return None
        return getattr(self.context.assistant, name, None)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``coro`` on the GUI's task owner; a failure is told as ``problem``."""
        self.context.tasks.spawn(coro, name=name, on_error=self.problem.emit)

    def stop_ringing(self) -> None:
        """Silence a ringing timer or alarm now (only the ring: turns and speech go on)."""
        if self.context.connected:
            self.spawn(self._stop_ringing(self.context.assistant), "aria-gui-stop-ringing")

    async def _stop_ringing(self, assistant: Assistant) -> None:
        await assistant.execute(StopRinging())
        # Silent now, whether or not the ring's end was told (an event missed while detached).
        self.board.set_ringing(False)

    # --- loading ------------------------------------------------------------------------------

    def _on_attached(self, _assistant: Assistant) -> None:
        self.reload("timers")
        if self.watched():
            self.reload("lists")
            self.reload("reminders")

    def reload(self, part: BoardPart) -> None:
        """Read ``part`` (``lists`` reads the selected list's entries too) again."""
        if not self.context.connected:
            return
        if part in ("lists", "items"):
            self.spawn(self._load_lists(part == "lists"), "aria-gui-everyday-lists")
        elif part == "timers":
            self.spawn(self._load_timers(), "aria-gui-everyday-timers")
        elif part == "reminders":
            self.spawn(self._load_reminders(), "aria-gui-everyday-reminders")

    def reload_all(self) -> None:
        """Read every part (the window was opened)."""
        parts: tuple[BoardPart, ...] = ("lists", "reminders", "timers")
        for part in parts:
            self.reload(part)

    async def _load_lists(self, with_lists: bool) -> None:
        lists = self.lists()
        if lists is None:
            self.board.set_unavailable("lists", _NOT_HERE["lists"])
            return
        if with_lists:
            self.board.set_lists(await lists.lists())
        name = self.board.selected
        self.board.set_items(name, await lists.items(name, include_done=True))

    async def _load_timers(self) -> None:
        timers = self.timers()
        if timers is None:
            self.board.set_unavailable("timers", _NOT_HERE["timers"])
            return
        self.board.set_timers(await timers.list_timers())

    async def _load_reminders(self) -> None:
        reminders = self.reminders()
        if reminders is None:
            self.board.set_unavailable("reminders", _NOT_HERE["reminders"])
            return
        self.board.set_reminders(await reminders.list_reminders())

    # --- following ARIA -----------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        if isinstance(event, SkillDataChanged):
            if event.kind == "timers":
                self.reload("timers")
            elif self.watched():
                self.reload(event.kind)
        elif isinstance(event, TimerFinished):
            self.reload("timers")
        elif isinstance(event, ReminderDue) and self.watched():
            self.reload("reminders")

    def _follow_board(self, part: BoardPart) -> None:
        """The tick runs exactly while a timer counts down."""
        if part != "timers":
            return
        if self.board.counting and not self._tick.isActive():
            self._tick.start()
        elif not self.board.counting:
            self._tick.stop()

    @property
    def ticking(self) -> bool:
        """Whether the 1 s countdown tick runs."""
        return self._tick.isActive()
