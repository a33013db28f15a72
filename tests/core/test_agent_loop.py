"""The agent loop's tool handling through the orchestrator, on in-memory ports.

A scripted chat model asks for tool calls; the real tool registry, policy hook, confirmation
broker and audit log decide and record what happens. Each test is about core logic only (what
is executed, what the model is told, what is audited), so no HTTP server or database is used:
see tests/core/test_orchestrator.py for the adapter end of a turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.tools import PolicyDecision, Tool
from aria_desktop.domain.chat import ToolCall
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.events import ActionConfirmRequest, RunEnd, ToolResultEvent
from tests.fakes.harness import FakeCore, event_types, fake_cores
from tests.fakes.ports import text_reply, tool_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:
        yield make


async def test_tool_call_runs_once_and_its_result_goes_back_to_the_model(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.register_echo()
    core.model.script(
        tool_reply([("echo", {"text": "ping"})], ids=["call_1"]), text_reply("The tool said ping.")
    )
    events, conversation_id = await core.turn("use the tool")
    assert core.calls == [{"text": "ping"}]
    order = [
        t
        for t in event_types(events)
        if t in {"think-start", "tool-call", "tool-result", "run-end"}
    ]
    assert order == ["think-start", "tool-call", "tool-result", "think-start", "run-end"]
    answer_to_tool = core.model.requests[1].messages[-1]
    assert (answer_to_tool.role, answer_to_tool.tool_call_id) == ("tool", "call_1")
    # The result goes back fenced as untrusted data (the one tool-result path).
    assert answer_to_tool.content.startswith('<tool_result tool="echo" trust="untrusted">')
    assert answer_to_tool.content.endswith('\n{"echoed": "ping"}\n</tool_result>')
    messages = await core.store.list_messages(conversation_id)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1].tool_calls[0].name == "echo"
    assert [r.kind for r in core.audit.records()] == ["tool-call", "policy-decision", "tool-result"]
    assert core.audit.verify().ok


async def test_a_repeated_tool_call_id_is_not_executed_twice(make_core: CoreFactory) -> None:
    core = await make_core()
    core.register_echo()
    core.model.script(
        tool_reply([("echo", {"text": "once"})], ids=["call_same"]),
        tool_reply([("echo", {"text": "once"})], ids=["call_same"]),
        text_reply("Done."),
    )
    events, _ = await core.turn("go")
    assert core.calls == [{"text": "once"}]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [r.status for r in results] == ["ok", "ok"]
    assert results[0].result == results[1].result


async def test_consequential_tool_waits_for_approval_with_the_right_nonce(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.register_echo(permission="consequential")
    core.model.script(tool_reply([("echo", {"text": "send it"})]), text_reply("Sent."))
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text="send"))
        async with asyncio.timeout(10):
            request = None
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    request = event
                    break
    assert request is not None
    assert core.calls == []
    with pytest.raises(ConfirmationError):
        await core.orchestrator.handle(
            ConfirmAction(request_id=request.request_id, nonce="forged", approved=True)
        )
    await core.orchestrator.handle(
        ConfirmAction(request_id=request.request_id, nonce=request.nonce, approved=True)
    )
    assert await handle.wait(timeout_s=10) == "complete"
    assert core.calls == [{"text": "send it"}]
    # The model never saw the nonce.
    for sent in core.model.requests:
        assert all(request.nonce not in message.content for message in sent.messages)


async def test_unanswered_confirmation_times_out_to_deny(make_core: CoreFactory) -> None:
    core = await make_core(config=AgentConfig(confirm_timeout_s=0.2))
    core.register_echo(permission="consequential")
    core.model.script(
        tool_reply([("echo", {"text": "delete all"})]), text_reply("I was not allowed.")
    )
    events, _ = await core.turn("delete")
    assert core.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert "did not answer in time" in result.result
    confirmations = [r for r in core.audit.records() if r.kind == "confirmation"]
    assert confirmations[0].data["timed_out"] is True


async def test_policy_denial_is_reported_to_the_model_and_audited(make_core: CoreFactory) -> None:
    async def deny_all(tool: Tool, call: ToolCall) -> PolicyDecision:
        return PolicyDecision(verdict="deny", rule="deny:test", reason="tests deny everything")

    core = await make_core(policy=deny_all)
    core.register_echo()
    core.model.script(tool_reply([("echo", {"text": "x"})]), text_reply("Denied."))
    events, _ = await core.turn("try")
    assert core.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert "deny:test" in result.result
    assert "deny:test" in core.model.requests[1].messages[-1].content
    decision = next(r for r in core.audit.records() if r.kind == "policy-decision")
    assert decision.data["rule"] == "deny:test"


async def test_invalid_tool_arguments_are_refused_before_execution(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.register_echo()
    core.model.script(tool_reply([("echo", {"txt": 1})]), text_reply("Oops."))
    events, _ = await core.turn("bad args")
    assert core.calls == []
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "error"
    assert "tool_arguments_invalid" in result.result


async def test_last_step_offers_no_tools_so_the_model_must_answer(make_core: CoreFactory) -> None:
    core = await make_core(config=AgentConfig(max_steps=2))
    core.register_echo()
    core.model.script(tool_reply([("echo", {"text": "a"})]), text_reply("Final words."))
    events, _ = await core.turn("loop")
    assert [bool(request.tools) for request in core.model.requests] == [True, False]
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
