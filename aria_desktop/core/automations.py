"""Automations: run a prompt when a webhook is called, a cron schedule fires or an event happens.

The engine registers the ``RunAutomation`` and ``ListAutomations`` commands, so webhooks (the
API), the CLI, the scheduler and events all start runs the same way: a normal turn with source
``automation``, framed by ``automation-start`` / ``automation-end`` events. The end event
carries the answer (front-ends show it as a notification when ``notify`` is set) and, when
``post_url`` is configured, the result is POSTed there through the ``ResultSender`` port.

A rule with ``on_event`` and no prompt runs no turn: each of its events is passed on to
``post_url`` as it is (a timer's end reaching Home Assistant must not wait for a model, nor
fail without one). Its subscription is taken when the engine is built, so the events told at
start-up (a timer that ended while ARIA was off) reach it too.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from aria_desktop.core.bus import Subscription
from aria_desktop.core.clock import SystemClock
from aria_desktop.core.orchestrator import Orchestrator, TurnHandle
from aria_desktop.core.ports import Clock, ResultSender
from aria_desktop.domain.automation import TRIGGER_EVENTS, AutomationRun, AutomationSpec
from aria_desktop.domain.automation_events import AutomationEnd, AutomationStart
from aria_desktop.domain.commands import ListAutomations, RunAutomation, StartTurn
from aria_desktop.domain.cron import CronSchedule
from aria_desktop.domain.errors import AriaError, AutomationError, ConfigError, NotFoundError
from aria_desktop.domain.events import ErrorEvent, Event, RunStatus

__all__ = ["AutomationEngine", "event_fields", "render_prompt"]

_LOGGER = logging.getLogger(__name__)
_PLACEHOLDER_RE = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}")
_MAX_SLEEP_S = 30.0
"""Longest single sleep of the scheduler, seconds: it re-reads the wall clock at least this
often, so a suspended laptop or a clock change delays a run by at most this much."""
_SHARED_TITLE = "Automation: {name}"
_SEARCH_CONVERSATIONS = 500

Sleep = Callable[[float], Awaitable[None]]


def _lookup(payload: Mapping[str, Any], dotted: str) -> Any:
    if dotted == "body":
        return payload
    node: Any = payload
    for part in dotted.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(dotted)
    return node


def event_fields(event: Event) -> dict[str, Any]:
    """An event as an automation's payload: its type and fields, without the turn id."""
    fields = event.to_dict()
    fields.pop("run_id", None)
    return fields


def render_prompt(template: str, payload: Mapping[str, Any], *, name: str = "") -> str:
    """Fill ``{field}`` / ``{a.b}`` / ``{body}`` from ``payload``; ``{{`` and ``}}`` are braces.

    Strings are inserted as they are, anything else as JSON.

    Raises:
        AutomationError: the payload lacks a field the template needs.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        key = match.group(1)
        try:
            value = _lookup(payload, key)
        except KeyError:
            raise AutomationError(
                f"The automation {name!r} needs the field {key!r}, which the request lacks.",
                hint=f'Send it in the JSON body, e.g. {{"{key.split(".")[0]}": "..."}}.',
            ) from None
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    return _PLACEHOLDER_RE.sub(replace, template)


class AutomationEngine:
    """Runs the configured automations for one orchestrator.

    Args:
        orchestrator: runs the turns; the engine registers its commands there.
        specs: the automations (names must be unique; schedules valid cron).
        sender: delivers results to ``post_url`` (None: automations with a URL are refused).
        clock: wall clock for schedules (UNIX seconds).
        sleep: how the scheduler waits (injected so tests run schedules fast).

    Raises:
        ConfigError: a duplicate name, a bad cron expression, an event no automation can
            start on, or an automation that can never run or has nothing to do.
    """

    def __init__(
        self,
        orchestrator: Orchestrator,
        specs: Sequence[AutomationSpec],
        *,
        sender: ResultSender | None = None,
        clock: Clock | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._orchestrator = orchestrator
        self._specs: dict[str, AutomationSpec] = {}
        self._schedules: dict[str, CronSchedule] = {}
        for spec in specs:
            key = f"automations.rules.{spec.name}"
            if spec.name in self._specs:
                raise ConfigError(f"Two automations are named {spec.name!r}.")
            if spec.schedule:
                try:
                    self._schedules[spec.name] = CronSchedule.parse(spec.schedule)
                except ValueError as exc:
                    raise ConfigError(
                        f"Setting '{key}.schedule' is not a valid cron expression: {exc}.",
                        hint="Use five fields, e.g. '0 8 * * mon-fri' (08:00 on weekdays).",
                    ) from None
            elif not spec.webhook and not spec.on_event:
                raise ConfigError(
                    f"The automation {spec.name!r} has no schedule and webhooks are off.",
                    hint=f"Set '{key}.schedule' or '{key}.webhook = true'.",
                )
            _check_events(spec, key)
            if spec.post_url and sender is None:
                raise ConfigError(f"The automation {spec.name!r} has a post_url but no sender.")
            self._specs[spec.name] = spec
        self._sender = sender
        self._clock = clock or SystemClock()
        self._sleep = sleep
        self._shared: dict[str, str] = {}
        self._scheduler: asyncio.Task[Any] | None = None
        self._listener: asyncio.Task[Any] | None = None
        wanted = {event for spec in specs for event in spec.on_event}
        self._events = (
            orchestrator.bus.subscribe(event_filter=lambda event: event.type in wanted)
            if wanted
            else None
        )
        orchestrator.register_command(RunAutomation, self._on_run)
        orchestrator.register_command(ListAutomations, self._on_list)

    @property
    def specs(self) -> list[AutomationSpec]:
        """The automations, by name."""
        return [self._specs[name] for name in sorted(self._specs)]

    def start(self) -> None:
        """Start the scheduler and the event listener (orchestrator-owned tasks), as needed."""
        if self._schedules and self._scheduler is None:
            self._scheduler = self._orchestrator.spawn(
                self._run_schedules(), name="aria-automation-scheduler"
            )
        if self._events is not None and self._listener is None:
            self._listener = self._orchestrator.spawn(
                self._run_event_triggers(self._events), name="aria-automation-events"
            )

    async def stop(self) -> None:
        """Stop the scheduler and the listener: no run starts any more (runs in progress go on)."""
        if self._events is not None:
            self._events.close()
        tasks = [task for task in (self._scheduler, self._listener) if task is not None]
        self._scheduler = self._listener = None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)

    async def _on_list(self, _command: ListAutomations) -> list[AutomationSpec]:
        return self.specs

    async def _on_run(self, command: RunAutomation) -> AutomationRun:
        return await self.run(command.name, command.payload, trigger=command.trigger)

    async def run(
        self, name: str, payload: Mapping[str, Any] | None = None, *, trigger: str = "manual"
    ) -> AutomationRun:
        """Start one run now; its result arrives as an ``automation-end`` event.

        Raises:
            NotFoundError: no such automation (or, for webhooks, webhooks are off for it).
            AutomationError: the payload lacks a field the prompt template needs.
        """
        spec = self._specs.get(name)
        if spec is None or (trigger == "webhook" and not spec.webhook):
            raise NotFoundError(
                f"There is no automation {name!r}"
                + (" that webhooks may trigger." if spec is not None else "."),
                hint="Automations are configured under [automations.rules.<name>] in settings.",
            )
        if not spec.prompt.strip():
            raise AutomationError(
                f"The automation {name!r} only passes its events on; it has no prompt to run.",
                hint="Give it a prompt to run it by hand or from a webhook.",
            )
        prompt = render_prompt(spec.prompt, payload or {}, name=name)
        conversation_id = await self._conversation_for(spec)
        handle = await self._orchestrator.handle(
            StartTurn(
                text=prompt,
                conversation_id=conversation_id,
                backend=spec.backend or None,
                source="automation",
            )
        )
        self._orchestrator.bus.publish(
            AutomationStart(
                run_id=handle.run_id,
                name=name,
                trigger=trigger,
                conversation_id=handle.conversation_id,
            )
        )
        event = dict(payload or {}) if trigger == "event" else None
        self._orchestrator.spawn(
            self._finish(spec, trigger, handle, event),
            name=f"aria-automation-{name}-{handle.run_id}",
        )
        return AutomationRun(
            name=name, run_id=handle.run_id, conversation_id=handle.conversation_id
        )

    async def _conversation_for(self, spec: AutomationSpec) -> str | None:
        if spec.conversation != "shared":
            return None
        store = self._orchestrator.store
        known = self._shared.get(spec.name)
        if known is not None and await store.get_conversation(known) is not None:
            return known
        title = _SHARED_TITLE.format(name=spec.name)
        for conversation in await store.list_conversations(limit=_SEARCH_CONVERSATIONS):
            if conversation.title == title:
                self._shared[spec.name] = conversation.id
                return conversation.id
        created = await store.create_conversation(title)
        self._shared[spec.name] = created.id
        return created.id

    async def _finish(
        self,
        spec: AutomationSpec,
        trigger: str,
        handle: TurnHandle,
        event: Mapping[str, Any] | None = None,
    ) -> None:
        status: RunStatus = await handle.wait()
        result = ""
        if status == "complete":
            last = await self._orchestrator.store.list_messages(handle.conversation_id, limit=1)
            if last and last[-1].role == "assistant":
                result = last[-1].content
        payload: dict[str, Any] = {
            "automation": spec.name,
            "trigger": trigger,
            "status": status,
            "result": result,
            "run_id": handle.run_id,
            "conversation_id": handle.conversation_id,
            "ts": self._clock.time(),
        }
        if event is not None:
            payload["event"] = dict(event)
        delivery_error = await self._deliver(spec, payload)
        self._orchestrator.bus.publish(
            AutomationEnd(
                run_id=handle.run_id,
                name=spec.name,
                trigger=trigger,
                status=status,
                conversation_id=handle.conversation_id,
                result=result,
                notify=spec.notify,
                delivered_to=spec.post_url,
                delivery_error=delivery_error,
            )
        )

    async def _deliver(self, spec: AutomationSpec, payload: Mapping[str, Any]) -> str:
        """POST ``payload`` to the rule's ``post_url``; why it failed ("" when it did not)."""
        if not spec.post_url or self._sender is None:
            return ""
        try:
            await self._sender.post_json(spec.post_url, payload)
        except AriaError as exc:
            _LOGGER.warning("Automation %s: result not delivered: %s", spec.name, exc)
            return exc.message
        return ""

    async def _run_event_triggers(self, events: Subscription) -> None:
        """Start the rules each event names, in the order the events happened."""
        async for event in events:
            for spec in self.specs:
                if event.type not in spec.on_event:
                    continue
                if not spec.prompt.strip():
                    self._orchestrator.spawn(
                        self._pass_on(spec, event), name=f"aria-automation-{spec.name}-event"
                    )
                    continue
                try:
                    await self.run(spec.name, event_fields(event), trigger="event")
                except AriaError as exc:
                    _LOGGER.warning(
                        "Automation %s did not start on %s: %s", spec.name, event.type, exc
                    )
                    self._orchestrator.bus.publish(
                        ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint)
                    )

    async def _pass_on(self, spec: AutomationSpec, event: Event) -> None:
        """A rule without a prompt: the event goes to ``post_url`` as it is, no turn runs."""
        fields = event_fields(event)
        message = str(fields.get("message", ""))
        self._orchestrator.bus.publish(AutomationStart(name=spec.name, trigger="event"))
        payload = {
            "automation": spec.name,
            "trigger": "event",
            "status": "complete",
            "result": message,
            "event": fields,
            "ts": self._clock.time(),
        }
        delivery_error = await self._deliver(spec, payload)
        self._orchestrator.bus.publish(
            AutomationEnd(
                name=spec.name,
                trigger="event",
                status="complete",
                result=message,
                notify=spec.notify,
                delivered_to=spec.post_url,
                delivery_error=delivery_error,
            )
        )

    def _now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self._clock.time())

    async def _run_schedules(self) -> None:
        """Fire each schedule at its minutes; missed runs (sleep, suspend) fire once."""
        now = self._now()
        due: dict[str, dt.datetime | None] = {
            name: schedule.next_after(now) for name, schedule in self._schedules.items()
        }
        for name, when in due.items():
            _LOGGER.info("Automation %s: next run at %s", name, when)
        while True:
            now = self._now()
            for name, when in list(due.items()):
                if when is None or when > now:
                    continue
                due[name] = self._schedules[name].next_after(now)
                try:
                    await self.run(name, {}, trigger="schedule")
                except AriaError as exc:
                    _LOGGER.warning("Scheduled automation %s did not start: %s", name, exc)
                    self._orchestrator.bus.publish(
                        ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint)
                    )
            upcoming = [when for when in due.values() if when is not None]
            if not upcoming:
                return
            delay_s = min(upcoming).timestamp() - self._clock.time()
            await self._sleep(min(max(delay_s, 0.0), _MAX_SLEEP_S))


def _check_events(spec: AutomationSpec, key: str) -> None:
    """Events it can start on, and something to do with them."""
    unknown = [event for event in spec.on_event if event not in TRIGGER_EVENTS]
    if unknown:
        raise ConfigError(
            f"Setting '{key}.on_event' names {', '.join(map(repr, unknown))}, which no "
            "automation can start on.",
            hint=f"Use any of: {', '.join(TRIGGER_EVENTS)}.",
        )
    if not spec.prompt.strip() and not (spec.on_event and spec.post_url):
        raise ConfigError(
            f"The automation {spec.name!r} has no prompt.",
            hint=f"Set '{key}.prompt', or '{key}.on_event' and '{key}.post_url' to pass events on.",
        )
