"""The memory requests: a front-end's request becomes a store draft field for field."""

from __future__ import annotations

from dataclasses import fields

from aria_desktop.domain.memory import MemoryDraft, NewMemory


def test_a_draft_has_every_field_of_a_request_and_takes_them_over() -> None:
    new = NewMemory(content="I like tea", kind="preference", subject="me", importance=0.7)
    draft = MemoryDraft.of(new)
    assert {f.name for f in fields(NewMemory)} <= {f.name for f in fields(MemoryDraft)}
    assert (draft.content, draft.kind, draft.subject, draft.importance, draft.provenance) == (
        "I like tea",
        "preference",
        "me",
        0.7,
        "manual",
    )
    assert (draft.topic, draft.confidence, draft.supersedes) == ("", 1.0, None)


def test_a_draft_passed_as_a_request_states_no_more_than_a_request() -> None:
    stated = MemoryDraft(content="I like tea", topic="drink", confidence=0.2, supersedes="mem_1")
    assert MemoryDraft.of(stated) == MemoryDraft(content="I like tea")
