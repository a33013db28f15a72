"""``GET /api/v1/usage`` and the API client's ``ReportUsage``: totals from a real SQLite
usage ledger, through the owner's command, over a real socket."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.compose.usage import install_usage_report
from aria_desktop.domain.chat import Usage
from aria_desktop.domain.commands import ReportUsage
from aria_desktop.domain.usage import UsageRecord, UsageTotal
from tests.api.conftest import Api


@pytest.fixture
async def ledger(api: Api, tmp_path: Path) -> AsyncIterator[SQLiteUsageLedger]:
    db = await Database.open(tmp_path / "usage.db", take_lock=False)
    ledger = SQLiteUsageLedger(db)
    install_usage_report(api.orchestrator, ledger)
    try:
        yield ledger
    finally:
        await db.close()


def record(at: float, backend: str, locality: str, usage: Usage) -> UsageRecord:
    return UsageRecord(
        at=at, backend=backend, model=f"{backend}-m", locality=locality, agent="chat", usage=usage
    )


async def test_usage_route_sums_per_backend_since_a_time(
    api: Api, ledger: SQLiteUsageLedger
) -> None:
    now = time.time()
    cloud = Usage(input_tokens=100, output_tokens=50, cache_read_tokens=1000, cost=0.01)
    await ledger.record(record(now - 10, "anthropic", "cloud", cloud))
    await ledger.record(record(now - 5, "anthropic", "cloud", cloud))
    await ledger.record(record(now - 5, "ollama", "local", Usage(input_tokens=7, output_tokens=3)))
    await ledger.record(record(now - 86_400 * 40, "anthropic", "cloud", cloud))  # long ago

    response = await api.client.get("/api/v1/usage", params={"since": now - 3600})
    assert response.status_code == 200, response.text
    rows = response.json()
    assert [(r["backend"], r["locality"], r["calls"]) for r in rows] == [
        ("anthropic", "cloud", 2),
        ("ollama", "local", 1),
    ]
    assert rows[0]["usage"]["cost"] == pytest.approx(0.02)
    assert rows[0]["usage"]["cache_read_tokens"] == 2000

    client = ApiClient(api.url, api.token)
    try:
        totals = await client.execute(ReportUsage(since=0.0))
    finally:
        await client.aclose()
    assert all(isinstance(t, UsageTotal) for t in totals)
    assert {t.backend: t.calls for t in totals} == {"anthropic": 3, "ollama": 1}
    assert totals[0].usage.cost == pytest.approx(0.03)


async def test_usage_route_refuses_a_bad_since(api: Api, ledger: SQLiteUsageLedger) -> None:
    response = await api.client.get("/api/v1/usage", params={"since": "yesterday"})
    assert response.status_code == 422
