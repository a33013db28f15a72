"""Automation events: an automation began and ended (webhook, schedule or manual run)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aria_desktop.domain.events import Event, RunStatus


@dataclass(frozen=True, kw_only=True)
class AutomationStart(Event):
    """An automation began (a webhook call, a schedule firing, an event or a manual run).

    Attributes:
        name: the automation's name in the settings.
        trigger: webhook, schedule, event or manual.
        conversation_id: the conversation its turn runs in.
    """

    type: ClassVar[str] = "automation-start"
    name: str
    trigger: str
    conversation_id: str = ""


@dataclass(frozen=True, kw_only=True)
class AutomationEnd(Event):
    """An automation finished; front-ends show ``result`` as a notification when ``notify``.

    Attributes:
        name: the automation's name.
        trigger: webhook, schedule, event or manual.
        status: the turn's status (complete, interrupted, error, cancelled).
        result: the answer text ("" unless complete).
        notify: whether the user asked to be notified of the result.
        delivered_to: the URL the result was POSTed to ("" when none was configured).
        delivery_error: why that POST failed ("" when it succeeded or there was none).
    """

    type: ClassVar[str] = "automation-end"
    name: str
    trigger: str
    status: RunStatus
    conversation_id: str = ""
    result: str = ""
    notify: bool = False
    delivered_to: str = ""
    delivery_error: str = ""
