"""Events' wire form: the event a ``to_dict()`` result describes, decoded back.

Kept apart from the event modules, which stay pages of facts. ``EVENT_FAMILIES`` is the one
list of those modules: importing them here is what makes every event class found by its
``type`` (as is any subclass another imported module defines).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from aria_desktop.domain import (
    automation_events,
    computer_events,
    events,
    mcp_events,
    memory_events,
    settings_events,
    skill_events,
    voice_events,
)
from aria_desktop.domain.chat import PromptBudgeted, Usage
from aria_desktop.domain.events import Event
from aria_desktop.domain.knowledge import Citation

EVENT_FAMILIES = (
    events,
    voice_events,
    computer_events,
    memory_events,
    automation_events,
    settings_events,
    skill_events,
    mcp_events,
)
"""Every module of event classes: the turn's (with the base ``Event``) and each family's."""


def _event_classes() -> dict[str, type[Event]]:
    """Every concrete event class by its ``type`` (subclasses added by any module count)."""
    found: dict[str, type[Event]] = {}
    pending: list[type[Event]] = [Event]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls is not Event:
            found.setdefault(cls.type, cls)
    return found


_NESTED: dict[str, type[Any]] = {"usage": Usage, "citations": Citation, "fit": PromptBudgeted}
"""Fields whose wire form is a nested object, decoded back into their dataclass."""


def _nested(cls: type[Any], value: dict[str, Any]) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in value.items() if k in names})


def event_from_dict(data: dict[str, Any]) -> Event:
    """The event a ``to_dict()`` result (e.g. received over the HTTP API) describes.

    Unknown fields are ignored, so an older client can read events from a newer ARIA.

    Raises:
        ValueError: ``data`` has no known ``type`` or lacks a required field.
    """
    kind = data.get("type")
    cls = _event_classes().get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        if name not in names:
            continue
        nested = _NESTED.get(name)
        if nested is not None and isinstance(value, dict):
            value = _nested(nested, value)
        elif nested is not None and isinstance(value, list):
            value = tuple(_nested(nested, item) for item in value if isinstance(item, dict))
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"malformed {kind} event: {exc}") from None
