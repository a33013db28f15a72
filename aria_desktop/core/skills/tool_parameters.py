"""The parameters of a skill's model tool that does one of several things (its ``action``).

The timer, reminder, lists, media and volume tools take the same shape of JSON schema: a
required ``action`` from a fixed set, the other arguments optional, nothing else accepted
(so a model's invented argument is refused before the tool runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["action_parameters"]


def action_parameters(
    actions: Sequence[str], *, describe: str = "", **properties: dict[str, Any]
) -> dict[str, Any]:
    """The JSON schema: ``action``, one of ``actions`` (``describe`` tells them), then the rest."""
    action: dict[str, Any] = {"type": "string", "enum": list(actions)}
    if describe:
        action["description"] = describe
    return {
        "type": "object",
        "properties": {"action": action, **properties},
        "required": ["action"],
        "additionalProperties": False,
    }
