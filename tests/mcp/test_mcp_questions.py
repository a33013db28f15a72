"""A tool server's questions to the user (MCP elicitation), asked out of band.

The checks of the answer are plain functions; the broker publishes on a real ``EventBus``; a
real server (tests/fakes/mcp_servers.py ``asks``, SDK-written, over stdio) asks in the middle
of its tool call, and the person answers through the event the front-ends see.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.mcp import oauth
from aria_desktop.adapters.mcp.spec import server_spec
from aria_desktop.adapters.mcp.supervisor import ServerSupervisor
from aria_desktop.core.bus import EventBus, Subscription
from aria_desktop.core.mcp.questions import QuestionBroker, form_values
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.events import Event
from aria_desktop.domain.mcp import McpAsk
from aria_desktop.domain.mcp_events import McpQuestion, McpQuestionAnswered
from aria_desktop.settings.schema_mcp import McpServerSettings

ROOT = Path(__file__).resolve().parents[2]
FIELDS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "guests": {"type": "integer", "default": 2, "minimum": 1, "maximum": 12},
        "seat": {"type": "string", "enum": ["inside", "terrace"], "default": "inside"},
        "vegan": {"type": "boolean"},
    },
    "required": ["name"],
}


def test_an_answer_takes_the_servers_defaults_for_fields_left_out() -> None:
    assert form_values(FIELDS, {"name": "Ada"}) == {"name": "Ada", "guests": 2, "seat": "inside"}


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({}, "Name needs an answer"),
        ({"name": "A"}, "Name needs at least 2 characters"),
        ({"name": "Ada", "guests": "two"}, "guests should be a whole number"),
        ({"name": "Ada", "guests": True}, "guests should be a whole number"),
        ({"name": "Ada", "guests": 40}, "guests should be at most 12"),
        ({"name": "Ada", "seat": "roof"}, "seat is not one of the choices"),
        ({"name": "Ada", "card": "1234"}, "card was not asked for"),
    ],
)
def test_an_answer_that_does_not_fit_the_question_is_refused_in_words(
    given: dict[str, object], problem: str
) -> None:
    with pytest.raises(ConfirmationError, match=problem):
        form_values(FIELDS, given)


async def next_question(subscription: Subscription) -> McpQuestion:
    """The next question the front-ends see."""
    while True:
        event = await subscription.get(timeout_s=30)
        if isinstance(event, McpQuestion):
            return event


Reply = Callable[[McpQuestion], tuple[str, dict[str, object]]]


def answering(bus: EventBus, broker: QuestionBroker, reply: Reply) -> asyncio.Task[list[Event]]:
    """A front-end: answers each question as ``reply`` says; returns what it saw."""
    subscription = bus.subscribe()

    async def run() -> list[Event]:
        seen: list[Event] = []
        async for event in subscription:
            seen.append(event)
            if isinstance(event, McpQuestion):
                action, values = reply(event)
                broker.answer(event.request_id, event.nonce, action, values)
            if isinstance(event, McpQuestionAnswered):
                return seen
        return seen

    return asyncio.create_task(run())


async def test_a_question_is_answered_only_with_its_nonce() -> None:
    bus = EventBus()
    broker = QuestionBroker(bus)
    front = answering(bus, broker, lambda q: ("accept", {"name": "Ada"}))
    reply = await broker.ask(McpAsk(server="restaurant", message="Who?", fields=FIELDS))
    assert (reply.action, reply.values["name"], reply.values["guests"]) == ("accept", "Ada", 2)
    seen = await front
    question = next(e for e in seen if isinstance(e, McpQuestion))
    assert (question.server, question.message, question.mode) == ("restaurant", "Who?", "form")
    with pytest.raises(ConfirmationError, match="No open question"):
        broker.answer(question.request_id, question.nonce, "accept", {"name": "Ada"})


async def test_a_wrong_nonce_or_a_bad_answer_leaves_the_question_open() -> None:
    bus = EventBus()
    broker = QuestionBroker(bus)
    subscription = bus.subscribe()
    asked = asyncio.create_task(broker.ask(McpAsk(server="s", message="?", fields=FIELDS)))
    question = await next_question(subscription)
    with pytest.raises(ConfirmationError, match="nonce does not match"):
        broker.answer(question.request_id, "guess", "accept", {"name": "Ada"})
    with pytest.raises(ConfirmationError, match="Name needs an answer"):
        broker.answer(question.request_id, question.nonce, "accept", {})
    assert not asked.done()
    broker.answer(question.request_id, question.nonce, "decline", {})
    assert (await asked).action == "decline"


async def test_no_answer_in_time_and_the_kill_switch_decline() -> None:
    bus = EventBus()
    broker = QuestionBroker(bus, timeout_s=0.05)
    timed_out = await broker.ask(McpAsk(server="s", message="?", fields=FIELDS))
    assert timed_out.action == "decline"
    patient = QuestionBroker(bus)
    subscription = bus.subscribe()
    page = McpAsk(server="s", message="?", mode="url", url="https://pay.example/x")
    asked = asyncio.create_task(patient.ask(page))
    question = await next_question(subscription)
    assert question.domain == "pay.example"
    patient.decline_all()
    assert (await asked).action == "decline"


async def supervisor_asking(broker: QuestionBroker) -> AsyncIterator[ServerSupervisor]:
    settings = McpServerSettings(
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_servers", "asks"),
        env=(f"PYTHONPATH={ROOT}",),
        call_timeout_s=0.5,  # shorter than the person takes: the timeout pauses while asked
    )
    supervisor = ServerSupervisor(
        server_spec("restaurant", settings, lambda _name: None),
        max_restarts=0,
        on_tools=lambda _s: None,
    )
    supervisor.ask = broker.ask
    supervisor.start()
    await supervisor.wait_started()
    try:
        yield supervisor
    finally:
        await supervisor.stop()


async def test_a_server_asks_during_its_call_and_gets_the_persons_answer() -> None:
    bus = EventBus()
    broker = QuestionBroker(bus)
    subscription = bus.subscribe()
    async for supervisor in supervisor_asking(broker):
        call = asyncio.create_task(supervisor.call("book_table", {}))
        question = await next_question(subscription)
        assert question.message == "Which name and how many guests?"
        assert question.fields["properties"]["guests"]["default"] == 2
        await asyncio.sleep(1.0)  # the person takes longer than the call's own timeout
        assert not call.done()
        broker.answer(
            question.request_id, question.nonce, "accept", {"name": "Ada", "terrace": True}
        )
        result = await call
        assert result.text == "booked for Ada, 2 guests, terrace True"
        assert supervisor.status().state == "running"


async def test_a_page_opens_only_after_the_person_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.types import ElicitRequestURLParams

    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)

    monkeypatch.setattr(oauth, "system_browser", browser)
    bus = EventBus()
    broker = QuestionBroker(bus)
    subscription = bus.subscribe()
    settings = McpServerSettings(url="https://shop.example/mcp", oauth=False)
    supervisor = ServerSupervisor(
        server_spec("shop", settings, lambda _name: None), max_restarts=0, on_tools=lambda _s: None
    )
    supervisor.ask = broker.ask
    page = ElicitRequestURLParams(
        message="Pay 12 EUR on the shop's page",
        url="https://pay.shop.example/42",
        elicitation_id="pay-42",
    )
    for action, expected in (("decline", []), ("accept", ["https://pay.shop.example/42"])):
        asked = asyncio.create_task(supervisor._elicit(None, page))
        question = await next_question(subscription)
        assert (question.mode, question.domain) == ("url", "pay.shop.example")
        assert opened == []  # nothing opens before the person agreed
        broker.answer(question.request_id, question.nonce, action, {})
        result = await asked
        assert (result.action, result.content) == (action, None)
        assert opened == expected


async def test_the_terminal_asks_each_field_and_again_when_the_answer_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from aria_desktop.cli._questions import answer_question

    bus = EventBus()
    broker = QuestionBroker(bus)
    subscription = bus.subscribe()
    ask = McpAsk(server="restaurant", message="Who?", fields=FIELDS)
    asked = asyncio.create_task(broker.ask(ask))
    question = await next_question(subscription)
    # name, guests, seat, vegan, send — first with the required name left empty, then again.
    typed = iter(["", "", "", "", "", "Ada", "4", "terrace", "y", ""])
    monkeypatch.setattr("builtins.input", lambda _prompt: next(typed))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)

    class Here:  # the Assistant port, in-process: commands reach the broker
        async def execute(self, command: Any) -> None:
            broker.answer(command.request_id, command.nonce, command.action, command.values)

    await answer_question(Here(), question)  # type: ignore[arg-type]
    reply = await asked
    assert reply.values == {"name": "Ada", "guests": 4, "seat": "terrace", "vegan": True}
    shown = capsys.readouterr()
    assert "The tool server restaurant asks: Who?" in shown.out
    assert "Name needs an answer" in shown.err
