"""Usage priced and recorded in a real SQLite ledger; cloud budgets refuse before any request.

The Anthropic backend talks to the fake Anthropic server over real HTTP (a refused call must
never reach it), the Ollama backend to the fake Ollama server, and the ledger is a real
SQLite file that is closed and reopened to show the per-day sum survives a restart.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.llm import OllamaBackend
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.budget import CloudLimits, UsageMeter
from aria_desktop.adapters.llm.router import Router
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
from aria_desktop.domain.chat import ChatMessage, ChatRequest, StreamEnd, Usage
from aria_desktop.domain.errors import CloudBudgetError
from aria_desktop.domain.usage import Price, UsageRecord, cost_of, local_midnight, price_for
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.anthropic_server import anthropic_stream, message_start, message_stop, text_block
from tests.fakes.ollama_server import ollama_error, ollama_text
from tests.llm.conftest import FAST, collect, collect_until_error

MODEL = "claude-test-1-20250101"
PRICES = {
    "claude-test-1": Price(
        input_per_mtok=3.0, output_per_mtok=15.0, cache_read_per_mtok=0.3, cache_write_per_mtok=3.75
    )
}
REQUEST = ChatRequest(messages=(ChatMessage(role="user", content="Hello?"),), turn_id="run-1")


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "aria.db")
    try:
        yield database
    finally:
        await database.close()


def anthropic(server: FakeAnthropic) -> AnthropicBackend:
    return AnthropicBackend(api_key="sk-ant-test", model=MODEL, base_url=server.url, timeouts=FAST)


def router(backends: dict[str, object], chain: list[str], meter: UsageMeter) -> Router:
    return Router(backends, {"chat": chain}, meter=meter)  # type: ignore[arg-type]


def claude_reply(server: FakeAnthropic) -> None:
    server.script(
        "/v1/messages",
        anthropic_stream(
            [
                message_start(MODEL, input_tokens=1000, cache_read=10_000, cache_write=2000),
                *text_block(0, "Hi."),
                *message_stop(output_tokens=500),
            ]
        ),
    )


def test_dated_model_ids_take_their_family_price() -> None:
    assert price_for("claude-test-1-20250101", PRICES) is PRICES["claude-test-1"]
    assert price_for("other", PRICES) is None
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
    )
    assert cost_of(usage, PRICES["claude-test-1"]) == pytest.approx(3 + 15 + 0.3 + 3.75)


async def test_cloud_turn_is_priced_with_cache_tokens_and_recorded(
    anthropic_server: FakeAnthropic, ollama_server: FakeOllama, db: Database
) -> None:
    claude_reply(anthropic_server)
    ollama_server.script("/api/chat", ollama_text("Local hi.", prompt_eval_count=20, eval_count=5))
    ledger = SQLiteUsageLedger(db)
    meter = UsageMeter(prices=PRICES, limits=CloudLimits(), ledger=ledger)
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
    r = router({"anthropic": anthropic(anthropic_server), "ollama": backend}, ["anthropic"], meter)
    chunks = await collect(r.stream(REQUEST))
    local = await collect(r.stream(REQUEST, backend="ollama"))
    await r.aclose()
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    expected = (1000 * 3.0 + 500 * 15.0 + 10_000 * 0.3 + 2000 * 3.75) / 1_000_000
    assert end.usage.cost == pytest.approx(expected)
    assert isinstance(local[-1], StreamEnd)
    assert local[-1].usage.cost == 0.0
    totals = {t.backend: t for t in await ledger.totals(0.0)}
    assert totals["anthropic"].usage.cost == pytest.approx(expected)
    assert totals["anthropic"].usage.cache_read_tokens == 10_000
    assert (totals["ollama"].usage.input_tokens, totals["ollama"].usage.output_tokens) == (20, 5)
    assert totals["ollama"].locality == "local"


async def test_day_budget_spent_refuses_cloud_before_any_request_even_after_restart(
    anthropic_server: FakeAnthropic, ollama_server: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "aria.db"
    database = await Database.open(path)
    spent = UsageRecord(
        at=max(time.time() - 1.0, local_midnight(time.time())),
        backend="anthropic",
        model=MODEL,
        locality="cloud",
        agent="chat",
        usage=Usage(input_tokens=10, cost=0.75),
    )
    await SQLiteUsageLedger(database).record(spent)
    await database.close()  # ARIA stops; the day's spending stays in the file

    database = await Database.open(path)
    try:
        meter = UsageMeter(
            prices=PRICES,
            limits=CloudLimits(max_cost_per_day=0.5),
            ledger=SQLiteUsageLedger(database),
        )
        ollama_server.script("/api/chat", ollama_error(404, "model 'llama3.2' not found"))
        backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=FAST)
        r = router(
            {"ollama": backend, "anthropic": anthropic(anthropic_server)},
            ["ollama", "anthropic"],
            meter,
        )
        _, error = await collect_until_error(r.stream(REQUEST))
        await r.aclose()
    finally:
        await database.close()
    assert isinstance(error, CloudBudgetError)
    assert error.code == "cloud_budget"
    assert "llm.cloud.max_cost_per_day" in error.message
    assert "cost 0.7500" in error.message
    assert "limit of 0.5000" in error.message
    assert "aria config set llm.cloud.max_cost_per_day" in error.hint
    assert anthropic_server.requests_to("/v1/messages") == []


async def test_turn_budget_counts_the_turns_earlier_cloud_calls(
    anthropic_server: FakeAnthropic, db: Database
) -> None:
    claude_reply(anthropic_server)
    meter = UsageMeter(
        prices=PRICES,
        limits=CloudLimits(max_cost_per_turn=0.02),
        ledger=SQLiteUsageLedger(db),
    )
    r = router({"anthropic": anthropic(anthropic_server)}, ["anthropic"], meter)
    await collect(r.stream(REQUEST))  # costs 0.021: the turn is now over its limit
    _, error = await collect_until_error(r.stream(REQUEST))
    other_turn = ChatRequest(messages=REQUEST.messages, turn_id="run-2")
    claude_reply(anthropic_server)
    chunks = await collect(r.stream(other_turn))
    await r.aclose()
    assert isinstance(error, CloudBudgetError)
    assert "llm.cloud.max_cost_per_turn" in error.message
    assert len(anthropic_server.requests_to("/v1/messages")) == 2  # the refused one never left
    assert isinstance(chunks[-1], StreamEnd)


async def test_unpriced_cloud_model_is_refused_while_a_budget_is_set(
    anthropic_server: FakeAnthropic,
) -> None:
    meter = UsageMeter(prices={}, limits=CloudLimits(max_cost_per_day=1.0), ledger=None)
    r = router({"anthropic": anthropic(anthropic_server)}, ["anthropic"], meter)
    _, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert isinstance(error, CloudBudgetError)
    assert "no price" in error.message
    assert f'[llm.prices."{MODEL}"]' in error.hint
    assert anthropic_server.requests_to("/v1/messages") == []


async def test_without_a_ledger_the_day_limit_counts_this_process_spending(
    anthropic_server: FakeAnthropic,
) -> None:
    claude_reply(anthropic_server)
    meter = UsageMeter(prices=PRICES, limits=CloudLimits(max_cost_per_day=0.02), ledger=None)
    r = router({"anthropic": anthropic(anthropic_server)}, ["anthropic"], meter)
    await collect(r.stream(REQUEST))  # 0.021: today's limit is passed
    _, error = await collect_until_error(r.stream(ChatRequest(messages=REQUEST.messages)))
    await r.aclose()
    assert isinstance(error, CloudBudgetError)
    assert "today's cloud calls cost 0.0210" in error.message
    assert len(anthropic_server.requests_to("/v1/messages")) == 1
