"""Tray behaviour: state icon and tooltip, capability-dependent items, the kill switch."""

from __future__ import annotations

import dataclasses
import logging

from PySide6.QtCore import QObject, QTimer, Signal

from aria_desktop.core.ports import Assistant
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import (
    PushToTalk,
    SetComputerControl,
    SetMicrophoneMuted,
    StopEverything,
)
from aria_desktop.domain.computer_events import ComputerControlChanged
from aria_desktop.domain.error_text import NO_MODEL_SET_UP, plain_error, short_line
from aria_desktop.domain.events import ThinkEnd
from aria_desktop.domain.intents import SKILLS_BACKEND
from aria_desktop.domain.settings_events import ModelStatus, SettingsApplied
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.format import model_status_line, tray_tooltip
from aria_desktop.gui.icons import NO_MODEL, IconSet
from aria_desktop.gui.views.actions import ActionSet
from aria_desktop.gui.views.overlay import ActingOverlayView
from aria_desktop.gui.views.tray import TrayView

__all__ = ["NOT_INSTALLED", "TrayController"]

_LOGGER = logging.getLogger(__name__)
CAPABILITY_REFRESH_MS = 10_000
NOT_INSTALLED = {
    "voice": "Voice is not installed. This version of ARIA has no voice support.",
    "computer": "Not installed. This version of ARIA cannot control the computer.",
    "memory": "Long-term memory is not set up in this ARIA.",
}


class TrayController(QObject):
    """Keeps the tray (or, without a tray, the menus) in step with the assistant."""

    state_shown = Signal(str)
    """The state now shown by the icon."""
    model_reach_changed = Signal(str)
    """Why no model can answer, in plain words ("" once one can): the no-model notices."""

    def __init__(
        self,
        actions: ActionSet,
        icons: IconSet,
        context: GuiContext,
        overlay: ActingOverlayView,
        tray: TrayView | None,
    ) -> None:
        super().__init__()
        self.actions = actions
        self.icons = icons
        self.context = context
        self.overlay = overlay
        self.tray = tray
        self.state = "offline"
        self.backend = ""
        self.locality = ""
        self.detail = "Starting…"
        self.model = ""
        """The chat model, as a settings change last named it (the badge)."""
        self.model_line = ""
        """The warm-up's line: "Loading model …" or why it failed ("" once loaded)."""
        self.skill_lines: list[str] = []
        """What counts down or rings now ("Pasta — 4:12 left"), under the state."""
        self.capabilities: dict[str, CapabilityStatus] = {}
        self.no_model = ""
        """Why no model can answer now ("" while one can, or nothing says otherwise)."""
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(CAPABILITY_REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh_capabilities)
        actions.push_to_talk.triggered.connect(lambda: self.push_to_talk("toggle"))
        actions.dictate.triggered.connect(lambda: self.push_to_talk("toggle", purpose="dictate"))
        actions.mute.triggered.connect(self._on_mute_clicked)
        actions.computer_control.triggered.connect(self._on_computer_clicked)
        for kill_switch in (actions.stop_everything.triggered, overlay.stop_button.clicked):
            kill_switch.connect(self.stop_everything)
        context.bridge.state_changed.connect(self.show_state)
        context.bridge.event_received.connect(self._on_event)
        context.on_attach(self._on_attached)
        if tray is not None:
            tray.menu.aboutToShow.connect(self.refresh_capabilities)
        self._apply_capabilities()
        self.show_state("offline", "", "")

    def attach_tray(self, tray: TrayView) -> None:
        """Drive ``tray`` from now on (a tray host appeared after the app started)."""
        self.tray = tray
        tray.menu.aboutToShow.connect(self.refresh_capabilities)
        tray.set_state(self.icons.for_state(self.shown_state), self.tooltip)

    def _on_attached(self, assistant: Assistant) -> None:
        self.detail = ""
        self.show_state(assistant.state, self.backend, self.locality)
        self.refresh_capabilities()
        self._refresh_timer.start()

    def set_offline(self, detail: str) -> None:
        """Not connected (``detail`` says why)."""
        self.detail = detail
        self._refresh_timer.stop()
        self.capabilities = {}
        self._apply_capabilities()
        self.show_state("offline", "", "")

    # --- state --------------------------------------------------------------------------------

    def show_state(self, state: str, backend: str, locality: str) -> None:
        """Icon, tooltip, mute check mark and the acting overlay for ``state``.

        ``backend`` and its ``locality`` come from the ``state-changed`` event ("" keeps the
        last known pair): the tooltip shows where the model runs as decided, never guessed.
        """
        self.state = state
        # A local skill's answer is not the model's: the tooltip keeps naming the model.
        if backend and backend != SKILLS_BACKEND:
            if backend != self.backend:
                self.model = ""  # another backend answered (a fallback): its model is unknown
            self.backend, self.locality = backend, locality
        tooltip = self.tooltip
        if self.tray is not None:
            self.tray.set_state(self.icons.for_state(self.shown_state), tooltip)
            _LOGGER.debug("Tray icon shows %s", self.shown_state)
        if state == "acting":
            self.overlay.present()
        else:
            self.overlay.hide()
        if state == "muted":
            self.actions.mute.setChecked(True)
        self.state_shown.emit(state)
        if self.context.connected and state in ("muted", "acting", "idle"):
            self.refresh_capabilities()

    @property
    def shown_state(self) -> str:
        """The icon's state: "no-model" while idle with no model that can answer."""
        if self.no_model and self.state == "idle":
            return NO_MODEL
        return self.state

    @property
    def tooltip(self) -> str:
        """The tooltip as shown now (each line cut at a word, never in one)."""
        lines = (*self.skill_lines, self.detail, self.model_line)
        detail = "\n".join(short_line(line, 90) for line in lines if line)
        if self.no_model and self.state == "idle":
            return f"ARIA — No model can answer\n{short_line(self.no_model, 90)}"
        return tray_tooltip(self.state, self.backend, self.locality, detail, model=self.model)

    def set_no_model(self, reason: str) -> None:
        """Whether a model can answer (``reason`` why not, "" when one can)."""
        if reason == self.no_model:
            return
        self.no_model = reason
        self.refresh_tooltip()  # the icon too: "no model" is how the idle state looks now
        self.model_reach_changed.emit(reason)

    # --- capabilities -------------------------------------------------------------------------

    def refresh_capabilities(self) -> None:
        """Ask the assistant which capabilities are usable (menu items follow)."""
        if self.context.connected:
            self.context.tasks.spawn(self._refresh(), name="aria-gui-capabilities")

    async def _refresh(self) -> None:
        statuses = await self.context.assistant.capabilities()
        self.capabilities = {status.name: status for status in statuses}
        self._apply_capabilities()
        model = self.capabilities.get("model")
        if model is not None and not model.available and not self.no_model:
            if model.reason.startswith(NO_MODEL_SET_UP):  # written for people already
                self.set_no_model(model.reason)
                return
            code = "llm_model_not_found" if "not found" in model.reason else "backend_unreachable"
            self.set_no_model(plain_error(code, model.reason).message)
        elif model is not None and model.available:
            self.set_no_model("")

    def _on_event(self, event: object) -> None:
        """Follow computer control and the model at once.

        Computer control may be switched elsewhere (API, CLI, the kill switch); the model shows
        its warm-up and a model changed in the settings (without a restart).
        """
        if isinstance(event, ModelStatus | SettingsApplied):
            self._follow_model(event)
        elif isinstance(event, ThinkEnd) and event.backend and event.backend != SKILLS_BACKEND:
            self.set_no_model("")  # a model answered: one can be reached
        elif isinstance(event, ComputerControlChanged):
            current = self.capabilities.get("computer")
            if current is not None:
                self.capabilities["computer"] = dataclasses.replace(current, enabled=event.enabled)
                self._apply_capabilities()
            else:
                self.refresh_capabilities()

    def _follow_model(self, event: ModelStatus | SettingsApplied) -> None:
        if isinstance(event, ModelStatus):
            self.model_line = model_status_line(event.status, event.model, event.code, event.error)
            if event.status == "failed":
                reason = plain_error(event.code, event.error, backend=event.backend).message
                self.set_no_model(reason)
            elif event.status == "ready":
                self.set_no_model("")
        elif event.model:
            self.model, self.backend, self.locality = event.model, event.backend, event.locality
        self.refresh_tooltip()

    def refresh_tooltip(self) -> None:
        """Show the tooltip anew; the state (icon, overlay, ``state_shown``) stays as it is."""
        if self.tray is not None:
            self.tray.set_state(self.icons.for_state(self.shown_state), self.tooltip)

    def _status(self, name: str) -> CapabilityStatus:
        status = self.capabilities.get(name)
        if status is not None:
            return status
        if not self.context.connected:
            return CapabilityStatus(name=name, available=False, reason="ARIA is not connected.")
        return CapabilityStatus(name=name, available=False, reason=NOT_INSTALLED[name])

    def _apply_capabilities(self) -> None:
        actions = self.actions
        voice = self._status("voice")
        microphone = self.capabilities.get("microphone", voice)
        computer = self._status("computer")
        actions.set_availability(actions.push_to_talk, voice.available, voice.reason)
        actions.set_availability(actions.dictate, voice.available, voice.reason)
        actions.set_availability(actions.mute, microphone.available, microphone.reason)
        actions.mute.setChecked(self.state == "muted" or not microphone.enabled)
        actions.set_availability(actions.computer_control, computer.available, computer.reason)
        actions.computer_control.setChecked(computer.available and computer.enabled)
        memory = self.memory_status()
        actions.set_availability(actions.memory, memory.available, memory.reason)
        actions.stop_everything.setEnabled(self.context.connected)

    def memory_status(self) -> CapabilityStatus:
        """Whether the memory browser can work: the assistant reports the "memory" capability.

        ``MemoryService`` registers it; an Assistant without it (memory not set up) answers
        memory calls with ``MemoryUnavailableError``, so the browser explains instead.
        """
        return self._status("memory")

    # --- commands -----------------------------------------------------------------------------

    def push_to_talk(self, action: str, *, purpose: str = "ask") -> None:
        """Push-to-talk (or dictation) from the menu (toggle) or a hotkey (press/release)."""
        voice = self._status("voice")
        if not voice.available:
            if action != "release":  # one notice per attempt, not one per key edge
                what = "Dictation" if purpose == "dictate" else "Push to talk"
                self.notify(f"{what} is unavailable", voice.reason)
            return
        self.context.tasks.spawn(
            self.context.assistant.execute(PushToTalk(action=action, purpose=purpose)),
            name="aria-gui-ptt",
        )

    def _on_mute_clicked(self, checked: bool) -> None:
        self.context.tasks.spawn(
            self.context.assistant.execute(SetMicrophoneMuted(muted=checked)),
            name="aria-gui-mute",
        )

    def _on_computer_clicked(self, checked: bool) -> None:
        self.context.tasks.spawn(self._set_computer(checked), name="aria-gui-computer-control")

    async def _set_computer(self, enabled: bool) -> None:
        await self.context.assistant.execute(SetComputerControl(enabled=enabled))
        await self._refresh()

    def stop_everything(self) -> None:
        """The kill switch."""
        if not self.context.connected:
            return
        self.context.tasks.spawn(
            self.context.assistant.execute(StopEverything()), name="aria-gui-stop-everything"
        )

    def notify(self, title: str, text: str, *, warning: bool = False) -> None:
        """A tray notification (logged when there is no tray)."""
        if self.tray is not None:
            self.tray.notify(title, text, warning=warning)
        _LOGGER.info("%s: %s", title, text)
