"""Commands whose answer's type tells a route whether the owner has the capability at all."""

from __future__ import annotations

from typing import TypeVar

from aria_desktop.core.ports import Assistant
from aria_desktop.domain.commands import Command
from aria_desktop.domain.errors import AriaError

__all__ = ["execute_expecting"]

_T = TypeVar("_T")


async def execute_expecting(
    assistant: Assistant, command: Command, result_type: type[_T], unavailable: AriaError
) -> _T:
    """``command``'s answer; raises ``unavailable`` when the answer is not a ``result_type``.

    ``Assistant.execute`` is typed ``Any``; routes whose capability may be missing check the
    answer's type before they use it, and report any other answer as ``unavailable`` instead of
    failing on an attribute it lacks.
    """
    result = await assistant.execute(command)
    if not isinstance(result, result_type):
        raise unavailable
    return result
