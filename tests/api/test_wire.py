"""Events survive the trip through JSON (what the API sends and its client decodes)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aria_desktop.api.client.wire import from_json
from aria_desktop.api.server.schemas.chat import ConversationOut, MessageOut
from aria_desktop.api.server.schemas.computer import GroundingOut
from aria_desktop.api.server.schemas.memory import MemoryCandidateOut, MemoryHitOut, MemoryOut
from aria_desktop.api.server.schemas.voice import TranscriptOut
from aria_desktop.domain.audio import Transcript
from aria_desktop.domain.automation_events import AutomationEnd
from aria_desktop.domain.chat import Conversation, StoredMessage, ToolCall, Usage
from aria_desktop.domain.computer import Grounding, Point, Rect, TextMatch
from aria_desktop.domain.event_wire import _event_classes, event_from_dict
from aria_desktop.domain.events import Event, RunEnd, ThinkEnd, ToolCallEvent
from aria_desktop.domain.memory import Memory, MemoryCandidate, MemoryHit


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


# --- domain values through the routes' bodies and back (api.schemas -> api.wire) -------------

_MEMORY = Memory(
    id="mem_1",
    content="My wife's name is Dana",
    kind="fact",
    subject="Dana",
    importance=0.9,
    provenance="api",
    conversation_id="conv_1",
    message_ids=(3, 4),
    topic="wife's name",
    created_at=1.5,
    updated_at=2.5,
    last_accessed_at=3.5,
    access_count=2,
    supersedes="mem_0",
)


@pytest.mark.parametrize(
    ("value", "body"),
    [
        (_MEMORY, MemoryOut),
        (MemoryHit(memory=_MEMORY, score=0.5, lexical_rank=1), MemoryHitOut),
        (MemoryCandidate(id="cand_1", content="I like tea", message_ids=(7,)), MemoryCandidateOut),
        (
            StoredMessage(
                id=9,
                conversation_id="conv_1",
                role="assistant",
                content="Done.",
                status="complete",
                created_at=4.0,
                tool_calls=(ToolCall(id="c1", name="echo", arguments={"text": "hi"}),),
                backend="ollama",
                model="small",
                usage=Usage(input_tokens=3, output_tokens=5),
            ),
            MessageOut,
        ),
        (Conversation(id="conv_1", title="Hi", created_at=1.0, updated_at=2.0), ConversationOut),
        (Transcript(text="hello", language="en", audio_s=1.5, engine="whisper"), TranscriptOut),
        (
            Grounding(
                query="Save",
                status="found",
                matches=(
                    TextMatch(
                        text="Save",
                        box=Rect(10, 20, 30, 40),
                        center=Point(25, 40),
                        score=1.0,
                        exact=True,
                    ),
                ),
            ),
            GroundingOut,
        ),
    ],
    ids=lambda v: type(v).__name__,
)
def test_a_domain_value_survives_its_response_body(value: Any, body: Any) -> None:
    data = json.loads(body.of(value).model_dump_json())
    assert from_json(type(value), data) == value


def test_decoding_ignores_unknown_keys_and_defaults_missing_ones() -> None:
    data = {"id": "cand_2", "content": "I like coffee", "added_in_v9": True}
    assert from_json(MemoryCandidate, data) == MemoryCandidate(id="cand_2", content="I like coffee")
    with pytest.raises(TypeError):
        from_json(MemoryCandidate, {"id": "cand_3"})
