"""The model's ``reminder`` tool: the same reminders, for requests the templates do not cover.

"When the pasta is done, remind me to call mom" goes to the model; it reads the pasta timer
(``timer`` tool) and sets the reminder through this tool, which calls the ``ReminderAccess``
every surface uses — the registry's policy and the audit log see each call, and the change is
told on the bus. ``when`` is said as people say it ("in 7 minutes", "tomorrow at 9 am",
"every weekday at 7") and read by ARIA's own parser, so the model need not know the local
time zone. A reminder is reversible (the default policy lets it run without asking).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from aria_desktop.core.skills.local_zone import local_zone
from aria_desktop.core.skills.ports import ReminderAccess
from aria_desktop.core.skills.tool_parameters import action_parameters
from aria_desktop.core.tools import Tool
from aria_desktop.domain.errors import ToolArgumentsError
from aria_desktop.domain.reminders import MAX_REMINDER_TEXT, REMINDER_KINDS, NewReminder, Reminder

__all__ = ["REMINDER_TOOL", "reminder_tool"]

REMINDER_TOOL = "reminder"

_ACTIONS = ("add", "list", "cancel", "cancel_all")

_PARAMETERS = action_parameters(
    _ACTIONS,
    describe=(
        "add needs when (a reminder also text); list: pending and last week's; "
        "cancel needs reminder_id."
    ),
    text={
        "type": "string",
        "description": 'What to remind of ("call mom").',
        "minLength": 1,
        "maxLength": MAX_REMINDER_TEXT,
    },
    when={
        "type": "string",
        "description": (
            'In words ("in 20 minutes", "tomorrow at 9 am", "every weekday at 7") or '
            "a local ISO time."
        ),
        "minLength": 1,
        "maxLength": 200,
    },
    kind={
        "type": "string",
        "enum": list(REMINDER_KINDS),
        "description": "An alarm rings; default reminder.",
    },
    language={
        "type": "string",
        "enum": ["en", "de"],
        "description": "Language of when (default en).",
    },
    reminder_id={"type": "string", "description": "The id list gives."},
)


def _shown(reminder: Reminder) -> dict[str, Any]:
    due = dt.datetime.fromtimestamp(reminder.due_at, local_zone())
    return {
        "id": reminder.id,
        "kind": reminder.kind,
        "text": reminder.text,
        "due": due.isoformat(timespec="minutes"),
        "recurrence": reminder.recurrence,
        "state": reminder.state,
        "delivered_at": reminder.delivered_at,
    }


def _summarize(arguments: dict[str, Any]) -> str:
    action = str(arguments.get("action", ""))
    kind = str(arguments.get("kind", "reminder"))
    if action == "add":
        text = str(arguments.get("text", ""))[:120]
        return f"set a {kind} {arguments.get('when', '?')}: {text}".rstrip(": ")
    if action == "list":
        return "read the reminders"
    if action == "cancel_all":
        return "cancel every reminder and alarm"
    return f"cancel the reminder {arguments.get('reminder_id', '?')}"


def reminder_tool(reminders: ReminderAccess) -> Tool:
    """The ``reminder`` tool over ``reminders``."""

    async def run(arguments: dict[str, Any]) -> dict[str, Any]:
        action = str(arguments["action"])
        if action == "add":
            when = str(arguments.get("when", "")).strip()
            if not when:
                raise ToolArgumentsError("add needs when.", hint='Give "when": "in 20 minutes".')
            new = NewReminder(
                text=str(arguments.get("text", "")),
                when=when,
                kind=arguments.get("kind", "reminder"),
                language=str(arguments.get("language", "en")),
            )
            return {"added": _shown(await reminders.add_reminder(new))}
        if action == "list":
            return {"reminders": [_shown(r) for r in await reminders.list_reminders()]}
        if action == "cancel_all":
            return {"cancelled": [_shown(r) for r in await reminders.cancel_all_reminders()]}
        reminder_id = str(arguments.get("reminder_id", "")).strip()
        if not reminder_id:
            raise ToolArgumentsError(
                "cancel needs the reminder's id.", hint="list gives every reminder with its id."
            )
        return {"cancelled": _shown(await reminders.cancel_reminder(reminder_id))}

    return Tool(
        name=REMINDER_TOOL,
        description=(
            "Reminders and alarms on this computer: add one (said when due; an alarm rings), "
            "list, cancel."
        ),
        parameters=_PARAMETERS,
        permission="reversible",
        handler=run,
        summarize=_summarize,
    )
