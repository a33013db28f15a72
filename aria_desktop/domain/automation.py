"""Automations: prompts run by a webhook call, a cron schedule or an event instead of a person.

``AutomationSpec`` is what the settings describe (the composition root converts them, so the
core never reads settings); ``AutomationRun`` is what starting one returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from aria_desktop.domain.skill_events import ReminderDue, TimerFinished

ConversationMode = Literal["new", "shared"]

TRIGGER_EVENTS: tuple[str, ...] = (TimerFinished.type, ReminderDue.type)
"""The event types an automation may start on (``on_event``): facts a person waits for, told
once each. Events of ARIA's own turns are left out, so no rule can feed itself."""


@dataclass(frozen=True, kw_only=True)
class AutomationSpec:
    """One automation.

    Attributes:
        name: its name (the webhook path ``/api/v1/hooks/<name>``).
        prompt: the prompt template; ``{field}`` / ``{a.b}`` are filled from the webhook's JSON
            body or the event's fields (``{body}`` is all of it as JSON). Empty on a rule that
            only passes its events on to ``post_url`` (no model involved).
        schedule: a 5-field cron expression in local time ("" = not scheduled).
        webhook: whether ``POST /api/v1/hooks/<name>`` may trigger it.
        on_event: event types that start it (from ``TRIGGER_EVENTS``).
        conversation: ``new`` starts a conversation per run; ``shared`` keeps every run in one
            conversation titled ``Automation: <name>``.
        notify: show the result as a desktop notification (when a GUI runs).
        post_url: POST the result as JSON to this URL ("" = don't).
        backend: force this backend ("" = the chat fallback chain).
    """

    name: str
    prompt: str
    schedule: str = ""
    webhook: bool = True
    on_event: tuple[str, ...] = ()
    conversation: ConversationMode = "new"
    notify: bool = False
    post_url: str = ""
    backend: str = ""


@dataclass(frozen=True, kw_only=True)
class AutomationRun:
    """A started automation run (its turn's events follow on the stream with ``run_id``)."""

    name: str
    run_id: str
    conversation_id: str
