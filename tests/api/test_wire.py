"""Events survive the trip through JSON (what the API sends and its client decodes)."""

from __future__ import annotations

import json

import pytest

from aria_desktop.domain.chat import Usage
from aria_desktop.domain.events import (
    AutomationEnd,
    Event,
    RunEnd,
    ThinkEnd,
    ToolCallEvent,
    _event_classes,
    event_from_dict,
)


@pytest.mark.parametrize(
    "event",
    [
        ThinkEnd(run_id="r", step=2, backend="ollama", model="m", usage=Usage(input_tokens=3)),
        ToolCallEvent(run_id="r", call_id="c", name="echo", arguments={"a": [1, {"b": None}]}),
        RunEnd(run_id="r", conversation_id="c", status="interrupted", latency_ms=1.5),
        AutomationEnd(name="n", trigger="webhook", status="complete", result="ok", notify=True),
    ],
)
def test_round_trip(event: Event) -> None:
    assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event


def test_every_event_class_has_a_unique_type() -> None:
    classes = _event_classes()
    assert len({cls.type for cls in classes.values()}) == len(classes)
    assert "run-end" in classes
    assert "automation-start" in classes


def test_unknown_fields_are_ignored_and_unknown_types_refused() -> None:
    data = RunEnd(run_id="r", conversation_id="c", status="complete").to_dict()
    data["added_in_a_later_version"] = 1
    assert isinstance(event_from_dict(data), RunEnd)
    with pytest.raises(ValueError, match="unknown event type"):
        event_from_dict({"type": "from-the-future"})
    with pytest.raises(ValueError, match="malformed"):
        event_from_dict({"type": "run-end"})
