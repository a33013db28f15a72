"""``aria bench core``: what the orchestrator adds to a turn, and storage write throughput.

The same scripted reply is streamed by the Ollama test server (a separate process) to a bare
httpx client and to a full ARIA turn (orchestrator, router, agent loop, event bus, SQLite
persistence with fsync), alternating turn by turn so both see the same machine noise. Added
time = ARIA's median minus the bare client's median, per turn and to the first token.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

import httpx

from aria_desktop.bench._util import (
    BENCH_MODEL,
    scripted_ollama_env,
    scripted_ollama_server,
    summary,
)
from aria_desktop.bench.memory_data import quality_set
from aria_desktop.domain.chat import NewMessage
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.events import LlmDelta, RunEnd
from aria_desktop.domain.memory import MemoryDraft
from aria_desktop.settings import load_settings

if TYPE_CHECKING:
    from aria_desktop.adapters.memory.store import SQLiteMemoryStore
    from aria_desktop.compose.app import App

__all__ = ["run_core_bench"]

_RECALL_MEMORIES = 1000
_REPLY = (
    "Sure. Here is a short answer that streams in several pieces, like a real model would "
    "send it, so that per-chunk costs show up in the measurement. "
) * 2


async def _bare_turn(client: httpx.AsyncClient, url: str, text: str) -> tuple[float, float]:
    body = {
        "model": BENCH_MODEL,
        "messages": [{"role": "user", "content": text}],
        "stream": True,
    }
    started = time.perf_counter()
    first = 0.0
    async with client.stream("POST", f"{url}/api/chat", json=body) as response:
        async for line in response.aiter_lines():
            if not line:
                continue
            chunk = json.loads(line)
            if not first and chunk.get("message", {}).get("content"):
                first = time.perf_counter() - started
            if chunk.get("done"):
                break
    return (time.perf_counter() - started) * 1000, first * 1000


async def run_core_bench(*, turns: int, chunks: int, messages: int) -> None:
    """Print the per-turn and first-token overhead and committed messages per second."""
    from aria_desktop.compose.app import build_app

    with tempfile.TemporaryDirectory(prefix="aria-bench-") as tmp:
        os.environ["ARIA_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["ARIA_STATE_DIR"] = str(Path(tmp) / "state")
        settings_file = Path(tmp) / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        async with scripted_ollama_server(_REPLY, chunks) as url:
            settings = load_settings(
                settings_file,
                env={
                    **scripted_ollama_env(url),
                    # Fact extraction would send a second request per turn to the same server.
                    "ARIA_MEMORY__AUTO_EXTRACT": "false",
                },
            )
            app = await build_app(settings)
            try:
                async with httpx.AsyncClient(timeout=30) as client:
                    plain = await _measure(app, client, url, turns)
                    rate = await _write_rate(app, messages)
                    seeded = await _seed_memories(app, _RECALL_MEMORIES)
                    recall = await _measure(app, client, url, max(20, turns // 2))
            finally:
                await app.aclose()

    print(f"aria bench core — {turns} turns per side, {chunks} chunks per reply")
    _report(plain)
    print(f"  committed messages/s (sequential, fsync each): {rate:8.0f}")
    print(f"with long-term memory recall ({seeded} memories, local embedder, before each request):")
    _report(recall, targets=False)


def _report(runs: dict[str, list[float]], *, targets: bool = True) -> None:
    print(f"  bare httpx   turn         {summary(runs['bare_total'])}")
    print(f"  ARIA         turn         {summary(runs['aria_total'])}")
    print(f"  bare httpx   first token  {summary(runs['bare_first'])}")
    print(f"  ARIA         first token  {summary(runs['aria_first'])}")
    added_turn = statistics.median(runs["aria_total"]) - statistics.median(runs["bare_total"])
    added_first = statistics.median(runs["aria_first"]) - statistics.median(runs["bare_first"])
    turn_target = "   (target < 5 ms)" if targets else ""
    first_target = "   (target < 2 ms)" if targets else ""
    print(f"  added per turn (median):       {added_turn:6.2f} ms{turn_target}")
    print(f"  added to first token (median): {added_first:6.2f} ms{first_target}")


async def _measure(
    app: App, client: httpx.AsyncClient, url: str, turns: int
) -> dict[str, list[float]]:
    """Alternate bare and ARIA turns (3 warm-up turns each are not counted)."""
    runs: dict[str, list[float]] = {
        "bare_total": [],
        "bare_first": [],
        "aria_total": [],
        "aria_first": [],
    }
    conversation_id: str | None = None
    for i in range(turns + 3):
        total, first = await _bare_turn(client, url, f"question {i}")
        if i >= 3:
            runs["bare_total"].append(total)
            runs["bare_first"].append(first)
        total, first, conversation_id = await _aria_turn(
            app, f"What did I say about question {i}?", conversation_id if i % 10 else None
        )
        if i >= 3:
            runs["aria_total"].append(total)
            runs["aria_first"].append(first)
    return runs


async def _seed_memories(app: App, count: int) -> int:
    """Fill long-term memory with ``count`` facts (embedded by the local model)."""
    if app.memory is None:
        return 0
    facts = [item.fact for item in quality_set()]
    items = (MemoryDraft(content=f"{facts[i % len(facts)]} (note {i})") for i in range(count))
    store = cast("SQLiteMemoryStore", app.memory.store)
    return await store.add_many(items, dedupe=False)


async def _aria_turn(app: App, text: str, conversation_id: str | None) -> tuple[float, float, str]:
    orchestrator = app.orchestrator
    sub = orchestrator.bus.subscribe()
    try:
        started = time.perf_counter()
        handle = await orchestrator.handle(StartTurn(text=text, conversation_id=conversation_id))
        first = 0.0
        while True:
            event = await sub.get(timeout_s=30)
            if event.run_id != handle.run_id:
                continue
            if isinstance(event, LlmDelta) and not first:
                first = time.perf_counter() - started
            if isinstance(event, RunEnd):
                if event.status != "complete":
                    raise RuntimeError(f"benchmark turn ended {event.status}")
                break
        await handle.wait(timeout_s=30)
        return (time.perf_counter() - started) * 1000, first * 1000, handle.conversation_id
    finally:
        sub.close()


async def _write_rate(app: App, count: int) -> float:
    store = app.store
    conversation = await store.create_conversation("write benchmark")
    started = time.perf_counter()
    for i in range(count):
        await store.add_message(conversation.id, NewMessage(role="user", content=f"message {i}"))
    return count / (time.perf_counter() - started)
