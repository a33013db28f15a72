"""The computer-use capability: wiring, the switch, the kill switch, perception and commands.

Computer control is off until the user turns it on (``SetComputerControl``; dry runs are
allowed while off because they perform nothing). The kill switch (the orchestrator's stop
hook) aborts the action in flight, releases every key and button, cancels running tasks and
switches control off. Every action goes through the one ``ActionPipeline``; chat turns reach
it through ``ChatComputerTools`` and tasks through ``ComputerAgent``
(``aria_desktop/ARCHITECTURE.md``, computer use).

Core layer: only the standard library, ``domain`` and other ``core`` modules; the screen,
OCR, input and policy come in through ``core.ports`` protocols.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aria_desktop.core.clock import SystemClock
from aria_desktop.core.computer.chat_tools import ChatComputerTools
from aria_desktop.core.computer.config import ComputerConfig
from aria_desktop.core.computer.pipeline import ActionPipeline
from aria_desktop.core.computer.targets import ground
from aria_desktop.core.ports import ActionPolicy, AuditSink, Clock, ComputerPort, ThumbnailSink
from aria_desktop.core.tools import PolicyHook
from aria_desktop.core.untrusted import ContentFlagger
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import (
    CaptureScreen,
    ClickText,
    Command,
    FindOnScreen,
    ReadScreen,
    SetComputerControl,
    TypeText,
)
from aria_desktop.domain.computer import (
    ComputerAction,
    ComputerActionOutcome,
    Grounding,
    Observation,
    Rect,
    Screenshot,
    ScreenText,
)
from aria_desktop.domain.computer_events import ComputerControlChanged
from aria_desktop.domain.errors import ScreenProtectedError
from aria_desktop.domain.events import AssistantState, Event

if TYPE_CHECKING:
    from aria_desktop.core.bus import EventBus
    from aria_desktop.core.confirm import ConfirmationBroker
    from aria_desktop.core.orchestrator import CommandHandler, Orchestrator

__all__ = ["ComputerUse"]

_LOGGER = logging.getLogger(__name__)
_STOP_WAIT_S = 0.15


class ComputerUse:
    """The computer-use capability: one instance per assistant.

    Args:
        port: screen, OCR, windows and input.
        policy: the safety policy (pure).
        audit: the audit log (every proposal, decision and result).
        thumbnails: where audit thumbnails go (None: no thumbnails).
        config: settings.
        clock: time source.
        unavailable_reason: why computer use cannot work here (None: it can).
    """

    def __init__(
        self,
        *,
        port: ComputerPort,
        policy: ActionPolicy,
        audit: AuditSink,
        thumbnails: ThumbnailSink | None = None,
        config: ComputerConfig | None = None,
        clock: Clock | None = None,
        unavailable_reason: Callable[[], str | None] | None = None,
    ) -> None:
        """Wire the capability; ``install`` connects it to an orchestrator."""
        self.port, self.policy, self.audit = port, policy, audit
        self.thumbnails = thumbnails
        self.config = config or ComputerConfig()
        self.clock: Clock = clock or SystemClock()
        self._enabled = self.config.enabled
        self._unavailable_reason = unavailable_reason or (lambda: None)
        self._bus: EventBus | None = None
        self._confirmations: ConfirmationBroker | None = None
        self._orchestrator: Orchestrator | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._last_observation: Observation | None = None
        self._flagger = ContentFlagger(self.publish)
        self._flagged_runs: set[str] = set()
        self._pipeline = ActionPipeline(self)
        self._chat_tools = ChatComputerTools(self, self._pipeline)
        # Every action goes through the one pipeline: these are its entry points.
        self.decide = self._pipeline.decide
        self.perform = self._pipeline.perform

    # --- wiring ---------------------------------------------------------------------------------

    def install(self, orchestrator: Orchestrator) -> None:
        """Register tools, commands, the stop hook and the ``computer`` capability."""
        self._orchestrator = orchestrator
        self._bus = orchestrator.bus
        self._confirmations = orchestrator.confirmations
        for tool in self._chat_tools.tools():
            orchestrator.tools.register(tool)
        commands: dict[type[Command], CommandHandler] = {
            SetComputerControl: self._on_set_control,
            CaptureScreen: self._on_capture,
            ReadScreen: self._on_read,
            FindOnScreen: self._on_find,
            ClickText: self._on_click_text,
            TypeText: self._on_type_text,
        }
        for command_type, handler in commands.items():
            orchestrator.register_command(command_type, handler)
        orchestrator.add_stop_hook(self.stop)
        orchestrator.register_capability("computer", self.capability)

    def policy_hook(self, inner: PolicyHook) -> PolicyHook:
        """A ``PolicyHook``: computer tools by the computer policy, others by ``inner``."""
        return self._chat_tools.policy_hook(inner)

    @property
    def bus(self) -> EventBus:
        """The orchestrator's bus (after ``install``)."""
        if self._bus is None:
            raise RuntimeError("ComputerUse.install() has not been called")
        return self._bus

    @property
    def confirmations(self) -> ConfirmationBroker:
        """The orchestrator's confirmation broker (after ``install``)."""
        if self._confirmations is None:
            raise RuntimeError("ComputerUse.install() has not been called")
        return self._confirmations

    def publish(self, event: Event) -> None:
        """Publish on the bus once installed (events before that are dropped)."""
        if self._bus is not None:
            self._bus.publish(event)

    @property
    def state(self) -> AssistantState | None:
        """The assistant's visible state (None before ``install``)."""
        return self._orchestrator.state if self._orchestrator is not None else None

    def set_state(self, state: AssistantState, run_id: str | None) -> None:
        """Drive the assistant's visible state (acting / idle)."""
        if self._orchestrator is not None:
            self._orchestrator.set_state(state, run_id)

    def restore_state(self, previous: AssistantState | None, run_id: str | None) -> None:
        """After one action, show again what was shown before it.

        A lone click (CLI, API) must not leave the assistant "acting", which keeps the GUI's
        overlay up; a task sets and clears "acting" itself, so it is left alone.
        """
        if previous is None or previous == "acting":
            return
        if self.state == "acting":
            self.set_state(previous, run_id)

    def track(self, task: asyncio.Task[Any]) -> None:
        """Own a running computer task (the kill switch cancels it)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- switch and capability ------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """Whether computer control (real mouse and keyboard) is switched on."""
        return self._enabled

    def set_enabled(self, enabled: bool) -> None:
        """Switch computer control on or off (runtime only; the setting is the start value)."""
        if enabled == self._enabled:
            return
        self._enabled = enabled
        if enabled:
            self.port.reset()
        _LOGGER.info("Computer control switched %s", "on" if enabled else "off")
        self.publish(ComputerControlChanged(enabled=enabled))

    async def _on_set_control(self, command: SetComputerControl) -> bool:
        self.set_enabled(command.enabled)
        return self._enabled

    def capability(self) -> CapabilityStatus:
        """Whether computer use can work here, and whether control is on."""
        reason = self._unavailable_reason()
        return CapabilityStatus(
            name="computer",
            available=reason is None,
            reason=reason or "",
            enabled=self._enabled,
        )

    async def stop(self) -> None:
        """Kill switch: abort the action in flight, release keys, cancel tasks, switch off."""
        self.port.abort()
        for task in list(self._tasks):
            task.cancel()
        pending = self._pipeline.pending()
        if pending:
            await asyncio.wait(pending, timeout=_STOP_WAIT_S)
        await asyncio.to_thread(self.port.release_all)
        self.set_enabled(False)

    # --- perception -----------------------------------------------------------------------------

    @property
    def last_observation(self) -> Observation | None:
        """The screen a model was shown last (chat tools aim on it)."""
        return self._last_observation

    async def capture(self, monitor: int = 0) -> Screenshot:
        """A screenshot at physical resolution."""
        return await asyncio.to_thread(self.port.capture, monitor)

    async def read(self, region: Rect | None = None) -> ScreenText:
        """OCR of the screen or a region."""
        return await asyncio.to_thread(self.port.read, region)

    async def find(self, text: str, region: Rect | None = None) -> Grounding:
        """Where ``text`` is on the screen."""
        return await asyncio.to_thread(self.port.find, text, region)

    async def observe(
        self, *, run_id: str | None = None, ocr: bool = True, flag: bool = True
    ) -> Observation:
        """A look at the screen for a model; suspicious text is flagged on the bus.

        ``flag=False`` when the text goes back as a chat tool's result: the agent loop's
        tool-result path scans it then (one warning, not two).
        """
        observation = await asyncio.to_thread(
            lambda: self.port.observe(
                monitor=self.config.monitor,
                longest_side_px=self.config.longest_side_px,
                ocr=ocr,
            )
        )
        self._last_observation = observation
        if flag and observation.text is not None:
            self.flag(observation.text, run_id)
        return observation

    def flag(self, text: ScreenText, run_id: str | None) -> list[str]:
        """Publish ``untrusted-content-flagged`` for suspicious screen text not yet flagged.

        A run whose screen was flagged is remembered: its further acting steps ask
        (``flagged``), as a chat turn's do after a flagged tool result.
        """
        found = self._flagger.flag_screen(text, run_id)
        if found and run_id is not None:
            self._flagged_runs.add(run_id)
        return [finding.excerpt for finding in found]

    def flagged(self, run_id: str) -> bool:
        """Whether suspicious screen text was seen in this run (task)."""
        return run_id in self._flagged_runs

    def end_run(self, run_id: str) -> None:
        """Forget a finished task's counters and flags."""
        self.policy.end_task(run_id)
        self._flagged_runs.discard(run_id)
        self._flagger.forget_run(run_id)

    async def _on_capture(self, command: CaptureScreen) -> Screenshot:
        return await self.capture(command.monitor)

    async def _on_read(self, command: ReadScreen) -> ScreenText:
        if command.unless_protected:
            return await self.read_unprotected()
        region = Rect(*command.region) if command.region else None
        return await self.read(region)

    async def read_unprotected(self) -> ScreenText:
        """The screen's text for another program; refused while a protected window shows.

        The windows are those of the same capture the text comes from, so a protected window
        cannot appear between the check and the reading.
        """
        observation = await self.observe()
        for window in observation.windows:
            rule = self.policy.protection(window)
            if rule is not None:
                raise ScreenProtectedError(
                    f"A protected window is on screen ({window.title!r}, rule {rule}); "
                    "the screen is not read.",
                    hint="Close or minimise it, then ask again.",
                )
        assert observation.text is not None
        return observation.text

    async def _on_find(self, command: FindOnScreen) -> Grounding:
        region = Rect(*command.region) if command.region else None
        return await self.find(command.text, region)

    # --- actions --------------------------------------------------------------------------------

    async def click_text(
        self, text: str, *, dry_run: bool = False, run_id: str | None = None
    ) -> ComputerActionOutcome:
        """Find ``text`` on screen and click it (through the whole pipeline).

        Raises:
            TargetNotFoundError, TargetAmbiguousError: nothing clicked.
        """
        observation = await self.observe(run_id=run_id)
        assert observation.text is not None
        point = ground(self.port, observation.text, text)
        action = ComputerAction(kind="click", x=point.x, y=point.y, target=text)
        return await self.perform(
            action,
            run_id=run_id,
            task_id=run_id or f"click-{secrets.token_hex(4)}",
            observation=observation,
            dry_run=dry_run,
        )

    async def _on_click_text(self, command: ClickText) -> ComputerActionOutcome:
        return await self.click_text(command.text, dry_run=command.dry_run)

    async def type_text(
        self, text: str, *, source: str, dry_run: bool = False
    ) -> ComputerActionOutcome:
        """Type ``text`` at the focused field (dictation), through the whole pipeline."""
        action = ComputerAction(kind="type", text=text, target=source)
        return await self.perform(
            action,
            run_id=None,
            task_id=f"{source}-{secrets.token_hex(4)}",
            dry_run=dry_run,
            source=source,
        )

    async def _on_type_text(self, command: TypeText) -> ComputerActionOutcome:
        return await self.type_text(command.text, source=command.source, dry_run=command.dry_run)
