"""``LiveRouter``: the router replaced while ARIA runs, against two Ollama test servers. A task
(a turn) keeps the router of its first model call for its later calls (tool steps) and for the
tasks it starts; a task started after the swap uses the new router; the replaced router is
closed when its last stream ends, and ``aclose`` closes every router still open."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from aria_desktop.adapters.llm import OllamaBackend, Router
from aria_desktop.adapters.llm.live import LiveRouter
from aria_desktop.domain.chat import StreamEnd
from tests.fakes import FakeOllama
from tests.llm.conftest import FAST, REQUEST, collect


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeOllama]]:
    with FakeOllama() as old, FakeOllama() as new:
        yield old, new


def _router(server: FakeOllama, model: str) -> Router:
    backend = OllamaBackend(base_url=server.url, model=model, timeouts=FAST)
    return Router({"ollama": backend}, {"chat": ("ollama",)})


async def _model(live: LiveRouter) -> str:
    chunks = await collect(live.stream(REQUEST))
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    return end.model


def _client_closed(router: Router) -> bool:
    backend = router.backend("ollama")
    assert backend is not None
    return bool(backend._client.is_closed)  # type: ignore[attr-defined]


async def test_a_turn_keeps_its_router_and_the_next_turn_gets_the_new_one(
    servers: tuple[FakeOllama, FakeOllama],
) -> None:
    old, new = _router(servers[0], "llama3.2:latest"), _router(servers[1], "qwen3:8b")
    live = LiveRouter(old)
    first_step, swapped = asyncio.Event(), asyncio.Event()

    async def turn() -> list[str]:
        first = await _model(live)  # step 1
        first_step.set()
        await swapped.wait()  # the settings change lands between two steps of this turn
        second = await _model(live)  # step 2 (after a tool call)
        child = await asyncio.create_task(_model(live))  # work the turn started
        return [first, second, child]

    running = asyncio.create_task(turn())
    await asyncio.wait_for(first_step.wait(), 10)
    await live.swap(new)
    assert not _client_closed(old)  # the turn still holds it
    swapped.set()
    assert await asyncio.wait_for(running, 10) == ["llama3.2:latest"] * 3
    await live.closed()
    assert _client_closed(old)  # closed once the turn ended
    assert await asyncio.create_task(_model(live)) == "qwen3:8b"  # the next turn
    assert live.current is new
    await live.aclose()
    assert _client_closed(new)


async def test_a_replaced_router_closes_when_its_last_stream_ends(
    servers: tuple[FakeOllama, FakeOllama],
) -> None:
    old, new = _router(servers[0], "llama3.2:latest"), _router(servers[1], "qwen3:8b")
    live = LiveRouter(old)
    started, swapped = asyncio.Event(), asyncio.Event()

    async def reply() -> StreamEnd:
        stream = live.stream(REQUEST)
        assert await anext(stream) is not None  # a reply in flight on the old router
        started.set()
        await swapped.wait()
        end = (await collect(stream))[-1]
        assert isinstance(end, StreamEnd)
        return end

    running = asyncio.create_task(reply())
    await asyncio.wait_for(started.wait(), 10)
    await live.swap(new)
    assert live.in_use() == 2  # the turn's pin and its open stream
    swapped.set()
    assert (await asyncio.wait_for(running, 10)).model == "llama3.2:latest"
    await live.closed()
    assert live.in_use() == 0
    assert _client_closed(old)
    await live.aclose()


async def test_swapping_with_nothing_in_flight_closes_the_old_router_at_once(
    servers: tuple[FakeOllama, FakeOllama],
) -> None:
    old, new = _router(servers[0], "a"), _router(servers[1], "b")
    live = LiveRouter(old)
    await live.swap(new)
    assert _client_closed(old)  # nothing held it
    assert live.backend("ollama") is new.backend("ollama")
    assert live.chain("chat") == ("ollama",)
    await live.aclose()
