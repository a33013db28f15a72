"""Fixtures for the LLM adapter tests: fake servers over real HTTP, fast timeouts, a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from aria_desktop.adapters.llm import Timeouts
from aria_desktop.domain.chat import ChatMessage, ChatRequest, LLMChunk, TextDelta
from tests.fakes import FakeAnthropic, FakeOllama, FakeOpenAI

#: Short enough to keep the suite fast, long enough not to flake on a busy 2-core machine.
FAST = Timeouts(connect_s=0.5, first_token_s=1.0, stall_s=0.5, total_s=5.0)

REQUEST = ChatRequest(messages=(ChatMessage(role="user", content="Hello?"),))


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


async def collect(stream: AsyncIterator[LLMChunk], timeout_s: float = 10.0) -> list[LLMChunk]:
    """All chunks of a stream, bounded in time."""

    async def run() -> list[LLMChunk]:
        return [chunk async for chunk in stream]

    return await asyncio.wait_for(run(), timeout_s)


async def collect_until_error(
    stream: AsyncIterator[LLMChunk], timeout_s: float = 10.0
) -> tuple[list[LLMChunk], BaseException | None]:
    """Chunks received before the stream raised, and the exception (None if it ended)."""
    chunks: list[LLMChunk] = []

    async def run() -> None:
        async for chunk in stream:
            chunks.append(chunk)

    try:
        await asyncio.wait_for(run(), timeout_s)
    except Exception as exc:
        return chunks, exc
    return chunks, None


def text_of(chunks: list[Any]) -> str:
    return "".join(c.text for c in chunks if isinstance(c, TextDelta))


class FakeClock:
    """Monotonic clock and sleep for router tests: sleeping advances time, nothing waits."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
