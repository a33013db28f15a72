"""What every controller shares: the Assistant (once connected), the event bridge, tasks."""

from __future__ import annotations

from collections.abc import Callable

from aria_desktop.core.ports import Assistant
from aria_desktop.domain.errors import AriaError
from aria_desktop.gui.bridge import EventBridge
from aria_desktop.gui.tasks import TaskOwner

__all__ = ["GuiContext", "NotConnectedError"]


class NotConnectedError(AriaError):
    """The GUI is not connected to ARIA yet (still starting, or the connection failed)."""

    code = "gui_not_connected"


class GuiContext:
    """Shared state of the desktop app's controllers."""

    def __init__(self, bridge: EventBridge, tasks: TaskOwner) -> None:
        self.bridge = bridge
        self.tasks = tasks
        self._assistant: Assistant | None = None
        self.connection_problem = "ARIA is starting…"
        self._listeners: list[Callable[[Assistant], None]] = []

    @property
    def connected(self) -> bool:
        """Whether an Assistant is attached."""
        return self._assistant is not None

    @property
    def assistant(self) -> Assistant:
        """The Assistant; NotConnectedError while there is none."""
        if self._assistant is None:
            raise NotConnectedError(self.connection_problem, hint="Wait a moment and try again.")
        return self._assistant

    def attach(self, assistant: Assistant) -> None:
        """Connected: start forwarding events and tell every controller."""
        self._assistant = assistant
        self.connection_problem = ""
        self.bridge.start(assistant)
        for listener in list(self._listeners):
            listener(assistant)

    def detach(self, problem: str) -> None:
        """Disconnected (``problem`` says why)."""
        self._assistant = None
        self.connection_problem = problem
        self.bridge.stop()

    def on_attach(self, listener: Callable[[Assistant], None]) -> None:
        """Call ``listener`` whenever an Assistant is attached (now, if one already is)."""
        self._listeners.append(listener)
        if self._assistant is not None:
            listener(self._assistant)
