"""Shows the dictation sign while ARIA listens for words to type, and says why nothing was typed.

It follows the events only (``stt-start`` with the ``dictation`` trigger, ``stt-vad-end``,
``dictation-end``): whichever surface started the dictation (the hotkey, ``aria dictate``, a
sway key binding), the person sees it listen.
"""

from __future__ import annotations

from collections.abc import Callable

from aria_desktop.domain.events import Event, StateChanged
from aria_desktop.domain.voice_events import DictationEnd, SttEnd, SttStart, SttVadEnd
from aria_desktop.gui.bridge import EventBridge
from aria_desktop.gui.views.dictation_overlay import DictationOverlayView

__all__ = ["DictationController"]

_QUIET_STATES = frozenset({"idle", "muted", "offline"})


class DictationController:
    """Connects the event bridge to the dictation sign and the tray's notices."""

    def __init__(
        self,
        bridge: EventBridge,
        notify: Callable[[str, str], None],
        hotkey: Callable[[], str],
        view: DictationOverlayView | None = None,
    ) -> None:
        self.view = view or DictationOverlayView()
        self._notify = notify
        self._hotkey = hotkey
        self.active = False
        bridge.event_received.connect(self.on_event)

    def on_event(self, event: Event) -> None:
        """Show, change or hide the sign for one event."""
        if isinstance(event, SttStart):
            self.active = event.trigger == "dictation"
            if self.active:
                self.view.listening(self._hotkey())
            else:
                self.view.hide()
        elif not self.active:
            return
        elif isinstance(event, SttVadEnd):
            self.view.typing()
        elif isinstance(event, DictationEnd):
            self._end()
            if event.status in {"refused", "failed"}:
                self._notify("Dictation", event.detail)
        elif (isinstance(event, SttEnd) and not event.text) or (
            isinstance(event, StateChanged) and event.state in _QUIET_STATES
        ):
            self._end()

    def _end(self) -> None:
        self.active = False
        self.view.hide()
