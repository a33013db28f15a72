"""``aria bench api``: throughput and latency of the local HTTP API over the loopback.

In one run: ARIA's API (full security middleware, token check, FastAPI routes over the real
orchestrator and SQLite) and, as the reference, a bare uvicorn + Starlette hello-world served
the same way on the same loop. The load comes from a child process (raw keep-alive HTTP/1.1,
16 connections), so client and server do not share an event loop. The rate limit is raised
for the run (its check still runs on every request). SSE latency: the wall-clock delay from
the creation of a turn's first ``llm-delta`` event (the model's first token, parsed) to its
arrival at a streaming ``POST /api/v1/chat`` client. ``POST /api/v1/memories/search`` runs
over 1,000 seeded memories with the configured embedder (default: the packaged local model),
so each search embeds the query and fuses keyword and vector results. Health beside open
streams: ``GET /api/v1/health`` latency while every allowed event stream is held open (target:
median under 20 ms; the security tests check only that it answers). First streamed text
through the OpenAI- and Ollama-compatible endpoints beside the model server directly, before
the memories are seeded and after (``bench/compat.py``; target: ARIA adds at most 5 ms).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aria_desktop.api.runner import _EmbeddedServer
from aria_desktop.bench._util import percentile, scripted_ollama_env, scripted_ollama_server
from aria_desktop.bench.compat import print_first_chunk
from aria_desktop.domain.memory import NewMemory
from aria_desktop.settings import Settings, load_settings

__all__ = ["run_api_bench"]


async def _loadgen(*args: str, token: str = "") -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "aria_desktop.bench._loadgen",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate(f"{token}\n".encode())
    result: dict[str, Any] = json.loads(out.decode())
    return result


def _merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Rounds combined: the median round's rate, every latency, every error."""
    rates = sorted(r["count"] / r["seconds"] for r in results)
    return {
        "count": statistics.median(rates),
        "seconds": 1.0,
        "latencies_ms": [x for r in results for x in r["latencies_ms"]],
        "errors": sum(r["errors"] for r in results),
    }


def _line(name: str, result: dict[str, Any]) -> tuple[str, float]:
    latencies = result["latencies_ms"]
    rate = result["count"] / result["seconds"]
    text = (
        f"  {name:<34} {rate:8.0f} req/s   p50 {statistics.median(latencies):6.2f} ms"
        f"   p99 {percentile(latencies, 0.99):6.2f} ms   errors {result['errors']}"
    )
    return text, rate


async def _reference_server() -> tuple[Any, asyncio.Task[None], int]:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def hello(_request: Any) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    app = Starlette(routes=[Route("/", hello)])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    sock.setblocking(False)
    config = uvicorn.Config(app, lifespan="off", log_config=None, access_log=False)
    server = _EmbeddedServer(config)  # the same uvicorn set-up as ARIA's, minus the app
    task = asyncio.create_task(server.serve(sockets=[sock]), name="bench-reference")
    async with asyncio.timeout(10):
        while not server.started:  # noqa: ASYNC110 - uvicorn offers no "started" event
            await asyncio.sleep(0.01)
    return server, task, int(sock.getsockname()[1])


_HEALTH_PROBES = 50
_HEALTH_MEDIAN_TARGET_MS = 20.0


async def _health_beside_open_streams(port: int, token: str, streams: int) -> list[float]:
    """Latencies (ms) of health checks while ``streams`` event streams are held open.

    Open streams must not slow the server's other answers: each holds a connection and a
    task, and a client that opens the most allowed should not make ARIA unresponsive.
    """
    import httpx

    url = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=streams + 1, max_keepalive_connections=0)
    headers = {"Authorization": f"Bearer {token}"}
    latencies_ms: list[float] = []
    async with httpx.AsyncClient(
        base_url=url, headers=headers, limits=limits, timeout=10
    ) as client:
        opened: list[httpx.Response] = []
        try:
            for number in range(streams):
                # One program may hold only a share of the streams (api/server/sse.py): as many
                # programs as streams, so every slot is taken.
                named = {"X-Aria-Client": f"bench-{number}"}
                response = await client.send(
                    client.build_request("GET", "/api/v1/events", headers=named), stream=True
                )
                opened.append(response)
            async with httpx.AsyncClient(base_url=url, timeout=10) as probe:
                for _ in range(_HEALTH_PROBES):
                    started = time.perf_counter()
                    (await probe.get("/api/v1/health")).raise_for_status()
                    latencies_ms.append((time.perf_counter() - started) * 1000)
        finally:
            for response in opened:
                await response.aclose()
    return latencies_ms


_SEED_MEMORIES = 1000
_WHO = ("My sister", "Aunt Rosa", "The landlord", "Coach Peters", "My neighbour", "Dr Chen")
_VERB = ("lives in", "prefers", "works near", "grew up in", "dislikes", "visits")
_WHAT = ("Lisbon", "green tea", "the harbour", "Porto", "jazz records", "the old mill", "Oslo")


async def _seed_memories(assistant: Any, count: int) -> float:
    """Store ``count`` varied memories (with vectors); returns the seconds it took."""
    started = time.perf_counter()
    for n in range(count):
        content = f"{_WHO[n % 6]} {_VERB[n // 6 % 6]} {_WHAT[n // 36 % 7]}, note {n}"
        await assistant.add_memory(NewMemory(content=content, provenance="import"))
    return time.perf_counter() - started


#: (label, method, path, body) of each route measured against the reference.
_ROUTES = (
    ("GET /api/v1/health", "GET", "/api/v1/health", ""),
    ("GET /api/v1/state (token)", "GET", "/api/v1/state", ""),
    ("POST /api/v1/turns/cancel (token)", "POST", "/api/v1/turns/cancel", '{"run_id":null}'),
    (
        "POST /api/v1/conversations (SQLite)",
        "POST",
        "/api/v1/conversations",
        '{"title":"bench"}',
    ),
    (
        "POST /api/v1/memories/search",
        "POST",
        "/api/v1/memories/search",
        '{"query":"which city does my sister live in","limit":10}',
    ),
)


async def run_api_bench(
    *, seconds: float, concurrency: int, sse_turns: int, rounds: int = 3, first_chunk: int = 30
) -> None:
    """Print req/s and p50/p99 per route, the reference, and SSE first-event latency."""
    from aria_desktop.compose.owner import start_owner

    with tempfile.TemporaryDirectory(prefix="aria-bench-api-") as tmp:
        for name, sub in (("CONFIG", "config"), ("DATA", "data"), ("STATE", "state")):
            os.environ[f"ARIA_{name}_DIR"] = str(Path(tmp) / sub)
        settings_file = Path(tmp) / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        async with scripted_ollama_server("Short benchmark answer, streamed.", 8) as url:
            settings = _bench_settings(settings_file, url)
            owner = await start_owner(settings)
            reference, ref_task, ref_port = await _reference_server()
            try:
                port = owner.server.port
                token = owner.server._token.read()
                await print_first_chunk(
                    url, port, token, first_chunk, label="no memories yet (recall finds none)"
                )
                seeded_s = await _seed_memories(owner.assistant, _SEED_MEMORIES)
                print(
                    f"Seeded {_SEED_MEMORIES} memories in {seeded_s:.1f} s "
                    f"(embedder: {settings.memory.embedder})"
                )
                print(
                    f"aria bench api — concurrency {concurrency}, {rounds} alternating rounds "
                    f"of {seconds:g} s against the reference (medians)"
                )
                load = _Load(
                    port=port,
                    ref_port=ref_port,
                    token=token,
                    concurrency=concurrency,
                    seconds=seconds,
                    rounds=rounds,
                )
                for route in _ROUTES:
                    await _print_route(load, *route)
                await _print_health_beside_streams(port, token, settings.api.max_sse_streams)
                await _print_sse_delay(port, token, sse_turns)
                await print_first_chunk(
                    url, port, token, first_chunk, label=f"{_SEED_MEMORIES} memories recalled from"
                )
            finally:
                reference.should_exit = True
                await ref_task
                await owner.stop()


def _bench_settings(settings_file: Path, url: str) -> Settings:
    """Settings for the run: the scripted model, no voice, any port, the rate limit raised."""
    settings = load_settings(
        settings_file,
        env={
            **scripted_ollama_env(url),
            "ARIA_VOICE__ENABLED": "false",  # no model loading during the run
        },
    )
    return dataclasses.replace(
        settings,
        api=dataclasses.replace(
            settings.api, port=0, rate_limit_per_s=1e9, rate_limit_burst=1_000_000_000
        ),
    )


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Load:
    """Where the load goes (ARIA's port and the reference's) and how much of it."""

    port: int
    ref_port: int
    token: str
    concurrency: int
    seconds: float
    rounds: int


async def _print_route(load: _Load, name: str, method: str, path: str, body: str) -> None:
    """One route's line beside the reference's, from alternating rounds of load."""
    conc, secs = str(load.concurrency), str(load.seconds)
    refs: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for _ in range(load.rounds):
        refs.append(await _loadgen("load", str(load.ref_port), "GET", "/", "", conc, secs))
        runs.append(
            await _loadgen("load", str(load.port), method, path, body, conc, secs, token=load.token)
        )
    ref_text, _ = _line("  reference: uvicorn+Starlette hello", _merge(refs))
    text, _ = _line(name, _merge(runs))
    ratios = [
        (r["count"] / r["seconds"]) / (f["count"] / f["seconds"])
        for r, f in zip(runs, refs, strict=True)
    ]
    print(f"{text}   {statistics.median(ratios):5.0%} of reference")
    print(ref_text)


async def _print_health_beside_streams(port: int, token: str, streams: int) -> None:
    """``GET /api/v1/health`` latency while every allowed event stream is held open."""
    health_ms = await _health_beside_open_streams(port, token, streams)
    median_ms = statistics.median(health_ms)
    verdict = "ok" if median_ms < _HEALTH_MEDIAN_TARGET_MS else "OVER TARGET"
    print(
        f"  GET /api/v1/health beside {streams} open event streams: median "
        f"{median_ms:.2f} ms, max {max(health_ms):.2f} ms ({len(health_ms)} requests; "
        f"target median < {_HEALTH_MEDIAN_TARGET_MS:g} ms: {verdict})"
    )


async def _print_sse_delay(port: int, token: str, sse_turns: int) -> None:
    """The first streamed text-delta's delay after the model's first token, over turns."""
    sse = await _loadgen("sse", str(port), str(sse_turns), token=token)
    delays = sse["delays_ms"]
    print(
        f"  SSE first text-delta after the first model token: median "
        f"{statistics.median(delays):.2f} ms, p90 {percentile(delays, 0.9):.2f} ms, "
        f"max {max(delays):.2f} ms ({len(delays)} turns)"
    )
