"""``TurnTranscript``: one turn's events folded into the reply, fed plain lists of events."""

from __future__ import annotations

from collections.abc import Iterable

from aria_desktop.domain.chat import Usage
from aria_desktop.domain.events import (
    BackendFallback,
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    RunStart,
    StateChanged,
    ThinkEnd,
    ThinkStart,
    ToolCallEvent,
    ToolResultEvent,
)
from aria_desktop.domain.transcript import ToolCallRecord, TurnTranscript

RUN = "run-1"
CONVERSATION = "conv-1"


def fold(events: Iterable[Event], transcript: TurnTranscript | None = None) -> TurnTranscript:
    transcript = transcript if transcript is not None else TurnTranscript()
    for event in events:
        transcript.add(event)
    return transcript


def step(
    number: int, *texts: str, backend: str = "ollama", tokens: tuple[int, int] = (0, 0)
) -> list[Event]:
    """One model step: think-start, its text, think-end (named backend, usage)."""
    return [
        ThinkStart(run_id=RUN, step=number),
        *(LlmDelta(run_id=RUN, text=text) for text in texts),
        ThinkEnd(
            run_id=RUN,
            step=number,
            backend=backend,
            model="llama3.2" if backend else "",
            locality="local" if backend else "",
            usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]),
        ),
    ]


def tool_round(call_id: str, name: str) -> list[Event]:
    return [
        ToolCallEvent(run_id=RUN, call_id=call_id, name=name, arguments={"query": "tea"}),
        ToolResultEvent(run_id=RUN, call_id=call_id, name=name, status="ok", result="found"),
    ]


def test_a_plain_reply_is_its_text_with_who_answered_and_how_it_ended() -> None:
    transcript = fold(
        [
            RunStart(run_id=RUN, conversation_id=CONVERSATION, text="hi"),
            *step(1, "Hello", ", there.", tokens=(12, 3)),
            RunEnd(run_id=RUN, conversation_id=CONVERSATION, status="complete", latency_ms=840.0),
        ]
    )
    assert transcript.run_id == RUN
    assert transcript.conversation_id == CONVERSATION
    assert transcript.text == "Hello, there."
    assert (transcript.backend, transcript.model, transcript.locality) == (
        "ollama",
        "llama3.2",
        "local",
    )
    assert (transcript.input_tokens, transcript.output_tokens) == (12, 3)
    assert transcript.status == "complete"
    assert transcript.latency_ms == 840.0
    assert transcript.done
    assert transcript.error is None


def test_the_reply_is_the_last_steps_text_and_usage_adds_up_over_steps() -> None:
    transcript = fold(
        [
            *step(1, "Let me look that up.", tokens=(10, 5)),
            *tool_round("c1", "memory_recall"),
            *step(2, "You prefer ", "tea.", tokens=(30, 4)),
        ]
    )
    assert transcript.text == "You prefer tea."
    assert transcript.segment_text == "You prefer tea."
    assert (transcript.input_tokens, transcript.output_tokens) == (40, 9)
    assert not transcript.done


def test_tool_calls_are_recorded_in_order_with_their_outcome() -> None:
    transcript = fold(
        [
            *step(1),
            *tool_round("c1", "memory_recall"),
            ToolCallEvent(run_id=RUN, call_id="c2", name="shell", arguments={"cmd": "ls"}),
            ToolResultEvent(run_id=RUN, call_id="c2", name="shell", status="denied", result="no"),
            ToolResultEvent(run_id=RUN, call_id="c3", name="late", status="error", result="x"),
        ]
    )
    assert list(transcript.tool_calls) == ["c1", "c2", "c3"]
    assert transcript.tool_calls["c1"] == ToolCallRecord(
        call_id="c1", name="memory_recall", arguments={"query": "tea"}, status="ok", result="found"
    )
    assert (transcript.tool_calls["c2"].status, transcript.tool_calls["c2"].arguments) == (
        "denied",
        {"cmd": "ls"},
    )
    # A result whose call was never seen still counts, under the result's name.
    assert transcript.tool_calls["c3"] == ToolCallRecord(
        call_id="c3", name="late", arguments={}, status="error", result="x"
    )


def test_a_tool_call_starts_a_new_segment_but_a_pending_call_has_no_outcome() -> None:
    transcript = fold(
        [
            ThinkStart(run_id=RUN),
            LlmDelta(run_id=RUN, text="Checking."),
            ToolCallEvent(run_id=RUN, call_id="c1", name="memory_recall", arguments={}),
        ]
    )
    assert transcript.text == "Checking."
    assert transcript.segment_text == ""
    assert transcript.tool_calls["c1"].status is None


def test_the_first_error_is_the_turns_error() -> None:
    first = ErrorEvent(run_id=RUN, code="backend_unreachable", message="ollama is down")
    transcript = fold(
        [
            *step(1, "Part"),
            first,
            ErrorEvent(run_id=RUN, code="turn_failed", message="the turn failed"),
            RunEnd(run_id=RUN, conversation_id=CONVERSATION, status="error"),
        ]
    )
    assert transcript.error is first
    assert transcript.status == "error"
    assert transcript.text == "Part"
    assert transcript.segment_text == ""


def test_a_fallback_keeps_who_answered_last_and_starts_a_new_segment() -> None:
    transcript = fold(
        [
            ThinkStart(run_id=RUN),
            LlmDelta(run_id=RUN, text="partial"),
            BackendFallback(
                run_id=RUN, from_backend="ollama", to_backend="openai", reason="timeout"
            ),
            LlmDelta(run_id=RUN, text="Answer."),
            ThinkEnd(
                run_id=RUN,
                backend="openai",
                model="gpt",
                locality="cloud",
                usage=Usage(input_tokens=1, output_tokens=2),
            ),
        ]
    )
    assert transcript.segment_text == "Answer."
    assert (transcript.backend, transcript.model, transcript.locality) == (
        "openai",
        "gpt",
        "cloud",
    )


def test_a_step_no_backend_answered_does_not_erase_who_answered_before() -> None:
    transcript = fold([*step(1, tokens=(5, 5)), *step(2, backend="", tokens=(0, 0))])
    assert (transcript.backend, transcript.locality) == ("ollama", "local")
    assert (transcript.input_tokens, transcript.output_tokens) == (5, 5)


def test_events_of_other_runs_are_ignored() -> None:
    transcript = fold(
        [
            *step(1, "Mine."),
            LlmDelta(run_id="run-2", text=" Theirs."),
            ThinkEnd(run_id="run-2", backend="anthropic", model="c", locality="cloud"),
            ErrorEvent(run_id="run-2", code="x", message="not mine"),
            RunEnd(run_id="run-2", conversation_id="conv-2", status="cancelled"),
        ]
    )
    assert transcript.text == "Mine."
    assert transcript.locality == "local"
    assert transcript.error is None
    assert transcript.status is None
    assert not transcript.accepts(LlmDelta(run_id="run-2", text="x"))
    assert transcript.accepts(LlmDelta(run_id=RUN, text="x"))
    assert transcript.accepts(StateChanged(state="idle"))  # outside any turn: not another run


def test_a_given_run_id_filters_from_the_first_event() -> None:
    transcript = fold(
        [LlmDelta(run_id="run-0", text="old"), *step(1, "new")], TurnTranscript(run_id=RUN)
    )
    assert transcript.text == "new"


def test_a_cancelled_turn_keeps_what_arrived() -> None:
    transcript = fold(
        [
            RunStart(run_id=RUN, conversation_id=CONVERSATION),
            ThinkStart(run_id=RUN),
            LlmDelta(run_id=RUN, text="Counting: one, "),
            ThinkEnd(run_id=RUN),
            RunEnd(run_id=RUN, conversation_id="", status="cancelled", latency_ms=75.5),
        ]
    )
    assert transcript.text == "Counting: one, "
    assert (transcript.status, transcript.latency_ms) == ("cancelled", 75.5)
    assert transcript.conversation_id == CONVERSATION  # an empty run-end keeps the known one
    assert transcript.backend == ""
