"""A reply's first piece reaches subscribers before the agent goes on to the rest.

Model servers often deliver several pieces in one read (the scripted model yields its whole
reply without waiting). The agent turns the event loop once after publishing a step's first
piece, so a front-end writes it out before the agent publishes the others and stores the row
(ARCHITECTURE.md: first-chunk latency).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import Event, LlmDelta, RunEnd
from tests.fakes.harness import FakeCore, fake_cores
from tests.fakes.ports import text_reply

CoreFactory = Callable[..., Awaitable[FakeCore]]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:
        yield make


async def test_a_subscriber_gets_the_first_piece_before_the_second_is_published(
    make_core: CoreFactory,
) -> None:
    core = await make_core()
    core.model.script(text_reply("one two three four", chunks=4))
    happened: list[tuple[str, str]] = []

    def published(event: Event) -> bool:
        if isinstance(event, LlmDelta):
            happened.append(("published", event.text))
        return True

    sub = core.orchestrator.bus.subscribe(event_filter=published)
    try:
        handle = await core.orchestrator.handle(StartTurn(text="count"))
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, LlmDelta):
                    happened.append(("received", event.text))
                if isinstance(event, RunEnd):
                    break
        assert await handle.wait(5) == "complete"
    finally:
        sub.close()

    pieces = [text for kind, text in happened if kind == "published"]
    assert "".join(pieces) == "one two three four"
    assert len(pieces) > 2
    assert happened[:3] == [
        ("published", pieces[0]),
        ("received", pieces[0]),
        ("published", pieces[1]),
    ]
