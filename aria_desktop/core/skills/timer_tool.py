"""The model's ``timer`` tool: the same timers, for requests the sentence templates do not cover.

"Time my tea, it needs four minutes" goes to the model; it starts, reads and cancels timers
through this tool, which calls the ``TimerAccess`` every surface uses, so the registry's
policy and the audit log see each call and the change is told on the bus. A timer is
reversible (the default policy lets it run without asking).
"""

from __future__ import annotations

from typing import Any

from aria_desktop.core.skills.ports import TimerAccess
from aria_desktop.core.skills.tool_parameters import action_parameters
from aria_desktop.core.tools import Tool
from aria_desktop.domain.errors import ToolArgumentsError
from aria_desktop.domain.timers import MAX_TIMER_S, Timer

__all__ = ["TIMER_TOOL", "timer_tool"]

TIMER_TOOL = "timer"

_ACTIONS = ("start", "status", "pause", "resume", "cancel", "cancel_all")

_PARAMETERS = action_parameters(
    _ACTIONS,
    describe="start (needs seconds), status, pause, resume, cancel, cancel_all.",
    seconds={
        "type": "number",
        "description": "For start: seconds (300 = 5 minutes).",
        "minimum": 1,
        "maximum": MAX_TIMER_S,
    },
    name={
        "type": "string",
        "description": "A name for start; the timer's name or id for the others.",
        "minLength": 1,
        "maxLength": 60,
    },
)


def _shown(timer: Timer) -> dict[str, Any]:
    return {
        "id": timer.id,
        "name": timer.name,
        "state": timer.state,
        "set_for_s": round(timer.duration_s),
        "remaining_s": round(timer.remaining_s),
        "ends_at": timer.ends_at,
    }


def _summarize(arguments: dict[str, Any]) -> str:
    action = str(arguments.get("action", ""))
    name = str(arguments.get("name", ""))
    if action == "start":
        named = f" named {name}" if name else ""
        return f"start a timer{named} for {arguments.get('seconds', '?')} s"
    if action == "status":
        return "read the timers"
    return "cancel every timer" if action == "cancel_all" else f"{action} the timer {name}"


def timer_tool(timers: TimerAccess) -> Tool:
    """The ``timer`` tool over ``timers``."""

    async def run(arguments: dict[str, Any]) -> dict[str, Any]:
        action = str(arguments["action"])
        name = str(arguments.get("name", "")).strip()
        if action == "start":
            seconds = arguments.get("seconds")
            if not isinstance(seconds, (int, float)):
                raise ToolArgumentsError("start needs seconds.", hint='Give "seconds": 300.')
            return {"started": _shown(await timers.start_timer(float(seconds), name=name))}
        if action == "status":
            return {"timers": [_shown(t) for t in await timers.list_timers()]}
        if action == "cancel_all":
            return {"cancelled": [_shown(t) for t in await timers.cancel_all_timers()]}
        if not name:
            listed = [t for t in await timers.list_timers()]
            if len(listed) != 1:
                raise ToolArgumentsError(
                    f"{action} needs the timer's name or id ({len(listed)} are running).",
                    hint='Give "name": the timer\'s name or id (status lists them).',
                )
            name = listed[0].id
        change = {
            "pause": timers.pause_timer,
            "resume": timers.resume_timer,
            "cancel": timers.cancel_timer,
        }
        return {action: _shown(await change[action](name))}

    return Tool(
        name=TIMER_TOOL,
        description="Kitchen timers here: start (named or not), what is left, pause, cancel.",
        parameters=_PARAMETERS,
        permission="reversible",
        handler=run,
        summarize=_summarize,
    )
