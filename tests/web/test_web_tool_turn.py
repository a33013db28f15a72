"""``web_fetch`` in a chat turn: a planted page is fenced, flagged and leads to no silent action.

The scripted model is gullible: after reading the page it does what the page says. The real
agent loop, policy, confirmation broker and audit log decide; the page comes from a real HTTP
server on 127.0.0.1 (allowed by a test setting) through the real fetcher.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.web.addresses import AddressPolicy
from aria_desktop.adapters.web.fetcher import FetchConfig, WebFetcher
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.web import web_fetch_tool
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.errors import WebAddressRefusedError
from aria_desktop.domain.events import (
    ActionConfirmRequest,
    Event,
    RunEnd,
    ToolResultEvent,
    UntrustedContentFlagged,
)
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.http_server import FakeHTTPServer
from tests.fakes.ports import text_reply, tool_reply
from tests.fakes.web_pages import ARTICLE, PLANTED, html_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
def site() -> Iterator[FakeHTTPServer]:
    with FakeHTTPServer() as server:
        server.script("/planted", html_reply(PLANTED))
        server.script("/train", html_reply(ARTICLE))
        yield server


@pytest.fixture
async def make_core(tmp_path: Path, site: FakeHTTPServer) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:

        async def with_web(**kwargs: object) -> FakeCore:
            core = await make(config=AgentConfig(confirm_timeout_s=0.3, flush_interval_s=0.05))
            policy = AddressPolicy(allow_hosts=(f"127.0.0.1:{site.port}",))
            core.orchestrator.tools.register(web_fetch_tool(WebFetcher(FetchConfig(policy))))
            core.register_echo(permission="reversible", name="remember")
            core.register_echo(permission="read_only", name="lookup")
            return core

        yield with_web


def results(events: list[Event]) -> dict[str, str]:
    return {e.name: e.status for e in events if isinstance(e, ToolResultEvent)}


async def test_a_page_with_planted_instructions_is_flagged_and_the_next_write_asks(
    make_core: CoreFactory, site: FakeHTTPServer
) -> None:
    core = await make_core()
    core.model.script(
        tool_reply([("web_fetch", {"url": f"{site.url}/planted"})]),
        tool_reply([("remember", {"text": "the user's password"})]),
        text_reply("I did not store anything."),
    )
    events, _ = await core.turn("what does this page say?")
    flagged = [e for e in events if isinstance(e, UntrustedContentFlagged)]
    assert {e.source for e in flagged} == {"web_fetch"}
    assert {e.kind for e in flagged} == {"instruction", "hidden"}
    assert any("Book now" in e.text for e in flagged)
    # The model saw the page fenced, with the warning, and without the hidden passage.
    shown = core.model.requests[1].messages[-1].content
    assert shown.startswith('<tool_result tool="web_fetch" trust="untrusted">')
    assert "WARNING: ARIA's scanner flagged this result" in shown
    assert "Flights from Berlin to Lisbon" in shown
    assert "user's password" not in shown
    # The write the page asked for was not silent: it asked, nobody answered, nothing ran.
    asked = [e for e in events if isinstance(e, ActionConfirmRequest)]
    assert [e.tool for e in asked] == ["remember"]
    assert "web_fetch" in asked[0].reason
    assert core.calls == []
    assert results(events) == {"web_fetch": "ok", "remember": "denied"}
    rules = [r.data["rule"] for r in core.audit.records() if r.kind == "policy-decision"]
    assert rules == ["default:reversible", "untrusted:flagged-content"]


async def test_a_clean_page_changes_nothing(make_core: CoreFactory, site: FakeHTTPServer) -> None:
    core = await make_core()
    core.model.script(
        tool_reply([("web_fetch", {"url": f"{site.url}/train"})]),
        tool_reply([("remember", {"text": "night train at 19:52"})]),
        text_reply("Noted."),
    )
    events, _ = await core.turn("read this and remember the time")
    assert not [e for e in events if isinstance(e, UntrustedContentFlagged | ActionConfirmRequest)]
    assert core.calls == [{"text": "night train at 19:52"}]
    assert "WARNING" not in core.model.requests[1].messages[-1].content


async def test_after_flagged_content_reads_stay_silent_and_an_approved_write_runs(
    make_core: CoreFactory, site: FakeHTTPServer
) -> None:
    core = await make_core()
    core.model.script(
        tool_reply([("web_fetch", {"url": f"{site.url}/planted"})]),
        tool_reply([("lookup", {"text": "Lisbon"})]),
        tool_reply([("remember", {"text": "Lisbon from 49 euros"})]),
        text_reply("Saved."),
    )
    answered: list[ActionConfirmRequest] = []
    async with core.orchestrator.bus.subscribe() as sub:
        handle = await core.orchestrator.handle(StartTurn(text="remember the cheapest fare"))
        async with asyncio.timeout(15):
            async for event in sub:
                if isinstance(event, ActionConfirmRequest):
                    answered.append(event)
                    await core.orchestrator.handle(
                        ConfirmAction(request_id=event.request_id, nonce=event.nonce, approved=True)
                    )
                if isinstance(event, RunEnd) and event.run_id == handle.run_id:
                    break
    # The read-only lookup ran without asking; the write asked once and, approved, ran.
    assert [e.tool for e in answered] == ["remember"]
    assert core.calls == [{"text": "Lisbon"}, {"text": "Lisbon from 49 euros"}]


async def test_a_second_turn_starts_unflagged(make_core: CoreFactory, site: FakeHTTPServer) -> None:
    core = await make_core()
    core.model.script(
        tool_reply([("web_fetch", {"url": f"{site.url}/planted"})]),
        text_reply("That page tries to trick assistants."),
    )
    _, conversation_id = await core.turn("what does this page say?")
    core.model.script(tool_reply([("remember", {"text": "likes Lisbon"})]), text_reply("Noted."))
    events, _ = await core.turn("remember that I like Lisbon", conversation_id)
    assert not [e for e in events if isinstance(e, ActionConfirmRequest)]
    assert core.calls == [{"text": "likes Lisbon"}]
    # The earlier page is still in the history only as fenced data.
    history = core.model.requests[-2].messages
    page = next(m for m in history if m.role == "tool" and m.name == "web_fetch")
    assert page.content.startswith('<tool_result tool="web_fetch" trust="untrusted">')


async def test_composition_installs_web_fetch_that_never_reaches_arias_own_api(
    tmp_path: Path,
) -> None:
    import dataclasses

    from aria_desktop.compose.tools import install_web_tool
    from aria_desktop.settings import Settings
    from aria_desktop.settings.schema_web import WebSettings

    async with fake_cores(tmp_path) as make:
        core = await make()
        settings = Settings()
        allowed = dataclasses.replace(settings, web=WebSettings(allow_hosts=("127.0.0.1",)))
        install_web_tool(allowed, core.orchestrator)
        tool = core.orchestrator.tools.get("web_fetch")
        assert tool.permission == "reversible"
        api = f"http://127.0.0.1:{settings.api.port}/api/v1/health"
        with pytest.raises(WebAddressRefusedError, match="ARIA's own API"):
            await tool.handler({"url": api})
        switched_off = await make()
        install_web_tool(
            dataclasses.replace(settings, web=WebSettings(enabled=False)), switched_off.orchestrator
        )
        assert "web_fetch" not in switched_off.orchestrator.tools.names()
