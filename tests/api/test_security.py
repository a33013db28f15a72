"""Attacks on the local API over real HTTP: DNS rebinding, cross-origin requests, forms, huge
bodies (with and without Content-Length), header floods, stream floods, rate limits, token
handling."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import stat
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi.routing import APIRoute

from aria_desktop.api.app import ROUTERS
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import bind_socket
from aria_desktop.api.server.ratelimit import RateLimiter, route_class
from aria_desktop.api.token import TokenFile
from aria_desktop.domain.errors import ApiAuthError, ApiBindError
from tests.api.conftest import Api

MiB = 1024 * 1024


async def test_dns_rebinding_host_is_rejected(api: Api) -> None:
    port = api.server.port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1"):
        response = await api.client.get("/api/v1/state", headers={"Host": host})
        assert response.status_code == 403, host
        assert response.json()["error"]["code"] == "host_not_allowed"
    health = await api.client.get("/api/v1/health", headers={"Host": "evil.example"})
    assert health.status_code == 403
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert (await api.client.get("/api/v1/state", headers={"Host": host})).status_code == 200


async def test_cross_origin_post_is_rejected(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/conversations",
        json={"title": "csrf"},
        headers={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "origin_not_allowed"
    preflight = await api.client.options(
        "/api/v1/conversations",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 403
    assert await api.store.list_conversations() == []


@pytest.mark.parametrize(
    "api_config",
    [ApiConfig(port=0, allowed_origins=("http://ha.local:8123",), rate_limit_burst=1000)],
)
async def test_allowlisted_origin_gets_cors_headers(api: Api) -> None:
    origin = {"Origin": "http://ha.local:8123"}
    preflight = await api.client.options(
        "/api/v1/conversations", headers={**origin, "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "http://ha.local:8123"
    assert "authorization" in preflight.headers["access-control-allow-headers"]
    created = await api.client.post("/api/v1/conversations", json={}, headers=origin)
    assert created.status_code == 201
    assert created.headers["access-control-allow-origin"] == "http://ha.local:8123"


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", ""],
)
async def test_state_changes_accept_no_form_or_text_bodies(api: Api, content_type: str) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = await api.client.post(
        "/api/v1/conversations", content=b'{"title": "x"}', headers=headers
    )
    assert response.status_code == 415
    assert await api.store.list_conversations() == []


@pytest.mark.parametrize(
    "path", ["/api/v1/stop", "/api/v1/turns/cancel", "/api/v1/hooks/x", "/api/v1/turns"]
)
async def test_state_changes_never_accept_get(api: Api, path: str) -> None:
    response = await api.client.get(path)
    assert response.status_code == 405


def _paths_and_methods() -> dict[str, set[str]]:
    """Every route path (templates filled in) -> the methods it answers."""
    routes = [r for router in ROUTERS for r in router.routes if isinstance(r, APIRoute)]
    paths: dict[str, set[str]] = {}
    for route in routes:
        paths.setdefault(re.sub(r"\{[^}]+\}", "x1", route.path), set())
    for path, methods in paths.items():
        exact = [r for r in routes if r.path == path]
        for route in exact or [r for r in routes if r.path_regex.match(path)]:
            methods.update(route.methods or ())
    return paths


async def test_every_wrong_method_is_405_with_allow_even_beside_a_template(api: Api) -> None:
    """``GET /memories/search`` once reached ``GET /memories/{id}`` and answered 404."""
    checked = 0
    for path, allowed in _paths_and_methods().items():
        for method in {"GET", "POST", "PUT", "PATCH", "DELETE"} - allowed:
            response = await api.client.request(method, path)
            assert response.status_code == 405, (method, path, response.text)
            assert response.headers["allow"] == ", ".join(sorted(allowed)), (method, path)
            error = response.json()["error"]
            if path.startswith("/api/v1/"):
                assert error["code"] == "method_not_allowed", (method, path)
            else:  # the compatible endpoints answer in their protocol's error shape
                assert error, (method, path)
            checked += 1
    assert checked > 100
    search = await api.client.get("/api/v1/memories/search")
    assert (search.status_code, search.headers["allow"]) == (405, "POST")


async def _chunks(total: int, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        sent += piece
        yield b" " * piece


@pytest.mark.parametrize("with_length", [True, False], ids=["content-length", "chunked"])
async def test_17_mib_body_is_refused_without_buffering_it(api: Api, with_length: bool) -> None:
    total = 17 * MiB
    headers = {"Content-Type": "application/json"}
    if with_length:
        headers["Content-Length"] = str(total)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        response = await api.client.post(
            "/api/v1/conversations", content=_chunks(total), headers=headers
        )
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    assert peak < 4 * MiB, f"peak traced memory {peak / MiB:.1f} MiB"
    assert await api.store.list_conversations() == []
    # the connection and the server are still fine
    assert (await api.client.get("/api/v1/state")).status_code == 200


async def test_body_just_under_the_cap_is_read(api: Api) -> None:
    title = "x" * 400
    response = await api.client.post("/api/v1/conversations", json={"title": title})
    assert response.status_code == 201


async def test_huge_headers_are_refused(api: Api) -> None:
    response = await api.client.get("/api/v1/state", headers={"X-Junk": "a" * 20_000})
    assert response.status_code in (400, 431)
    many = {f"X-H{i}": "1" for i in range(150)}
    assert (await api.client.get("/api/v1/state", headers=many)).status_code == 431


@pytest.mark.parametrize("api_config", [ApiConfig(port=0, max_sse_streams=32)])
@pytest.mark.slow
async def test_100_streams_extras_refused_while_health_still_answers(api: Api) -> None:
    """The stream cap holds and the server keeps answering beside the open streams.

    How fast it answers then is measured by ``aria bench api`` (a test asserts no wall-clock
    figure: a loaded CI machine would fail it, a fast one would hide a regression).
    """
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
    async with httpx.AsyncClient(
        base_url=api.url, headers=api.headers(), limits=limits, timeout=10
    ) as client:
        opened: list[httpx.Response] = []
        statuses: list[int] = []
        try:
            for _ in range(100):
                request = client.build_request("GET", "/api/v1/events")
                response = await client.send(request, stream=True)
                statuses.append(response.status_code)
                if response.status_code == 200:
                    opened.append(response)
                else:
                    assert response.headers["retry-after"]
                    await response.aclose()
            # One program gets 28 of the 32 slots; the rest are kept for other programs.
            assert statuses.count(200) == 28
            assert set(statuses[28:]) <= {429, 503}
            assert api.server.app.streams.count == 28
            tray = _as("tray", api)
            for _ in range(5):
                request = client.build_request("GET", "/api/v1/events", headers=tray)
                response = await client.send(request, stream=True)
                statuses.append(response.status_code)
                if response.status_code == 200:
                    opened.append(response)
                else:
                    await response.aclose()
            assert statuses[100:] == [200, 200, 200, 200, 503]  # then the cap of 32 holds
            assert api.server.app.streams.count == 32
            async with httpx.AsyncClient(base_url=api.url, timeout=10) as probe:
                for _ in range(50):
                    assert (await probe.get("/api/v1/health")).status_code == 200
            assert api.server.app.streams.count == 32  # none of them was dropped meanwhile
        finally:
            for response in opened:
                await response.aclose()
    async with asyncio.timeout(5):
        while api.server.app.streams.count:
            await asyncio.sleep(0.02)


@pytest.mark.parametrize(
    "api_config", [ApiConfig(port=0, rate_limit_per_s=2.0, rate_limit_burst=5)]
)
async def test_rate_limit_answers_429_with_retry_after(api: Api) -> None:
    # The limiter reads the middleware's clock: stepping it shows the refill without waiting.
    now = [time.monotonic()]
    api.server.app.asgi.clock = lambda: now[0]
    statuses = [(await api.client.get("/api/v1/state")).status_code for _ in range(5)]
    assert statuses == [200] * 5
    limited = await api.client.get("/api/v1/state")
    assert limited.status_code == 429
    assert int(limited.headers["retry-after"]) >= 1
    now[0] += 0.4  # 2 requests/s: 0.8 of a request refilled, not enough
    assert (await api.client.get("/api/v1/state")).status_code == 429
    now[0] += 0.2
    assert (await api.client.get("/api/v1/state")).status_code == 200


def _as(name: str, api: Api) -> dict[str, str]:
    """Headers of an authenticated program that names itself ``name``."""
    return {**api.headers(), "X-Aria-Client": name}


@pytest.mark.parametrize("api_config", [ApiConfig(port=0, max_sse_streams=115)])
@pytest.mark.slow
async def test_100_open_streams_starve_no_health_probe_or_cheap_read(api: Api) -> None:
    """The finding: with one program's 100 streams open, 119 of 200 health probes got 429.

    Default limits (50/s, burst 200); streams, health and reads are counted in separate
    buckets, and per client.
    """
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
    async with httpx.AsyncClient(
        base_url=api.url, headers=_as("flooder", api), limits=limits, timeout=10
    ) as flooder:
        opened: list[httpx.Response] = []
        try:
            for _ in range(100):
                request = flooder.build_request("GET", "/api/v1/events")
                opened.append(await flooder.send(request, stream=True))
            assert [r.status_code for r in opened] == [200] * 100
            async with httpx.AsyncClient(base_url=api.url, timeout=10) as probe:
                health = [(await probe.get("/api/v1/health")).status_code for _ in range(200)]
            assert health == [200] * 200
            tray = _as("tray", api)
            reads = [
                (await api.client.get("/api/v1/state", headers=tray)).status_code
                for _ in range(200)
            ]
            assert reads == [200] * 200
            assert api.server.app.streams.count == 100
        finally:
            for response in opened:
                await response.aclose()


@pytest.mark.parametrize("api_config", [ApiConfig(port=0, max_sse_streams=4)])
async def test_one_program_cannot_take_every_event_stream(api: Api) -> None:
    async with contextlib.AsyncExitStack() as stack:
        flood = [
            await stack.enter_async_context(
                api.client.stream("GET", "/api/v1/events", headers=_as("flood", api))
            )
            for _ in range(4)
        ]
        assert [r.status_code for r in flood] == [200, 200, 200, 503]
        refused = json.loads(await flood[3].aread())["error"]
        assert refused["code"] == "too_many_streams"
        assert "already holds 3 of the 4" in refused["message"]
        tray = await stack.enter_async_context(
            api.client.stream("GET", "/api/v1/events", headers=_as("tray", api))
        )
        assert tray.status_code == 200
        assert api.server.app.streams.count == 4


@pytest.mark.parametrize(
    "api_config", [ApiConfig(port=0, rate_limit_per_s=1.0, rate_limit_burst=5)]
)
async def test_only_the_misbehaving_client_is_limited(api: Api) -> None:
    now = [time.monotonic()]
    api.server.app.asgi.clock = lambda: now[0]
    flood, tray = _as("flood", api), _as("tray", api)
    statuses = [
        (await api.client.get("/api/v1/state", headers=flood)).status_code for _ in range(6)
    ]
    assert statuses == [200] * 5 + [429]
    # The same program's health probes and writes are other route classes...
    assert (await api.client.get("/api/v1/health", headers=flood)).status_code == 200
    stop = await api.client.post("/api/v1/turns/cancel", headers=flood, json={})
    assert stop.status_code != 429
    # ...and another program (another name, or none: its User-Agent) is not limited at all.
    for _ in range(5):
        assert (await api.client.get("/api/v1/state", headers=tray)).status_code == 200
        assert (await api.client.get("/api/v1/state")).status_code == 200
    assert (await api.client.get("/api/v1/state", headers=flood)).status_code == 429


@pytest.mark.parametrize(
    "api_config", [ApiConfig(port=0, rate_limit_per_s=1.0, rate_limit_burst=5)]
)
async def test_requests_without_a_valid_token_are_limited_per_address(api: Api) -> None:
    now = [time.monotonic()]
    api.server.app.asgi.clock = lambda: now[0]
    async with httpx.AsyncClient(base_url=api.url) as anonymous:
        statuses = []
        for number in range(6):
            # Naming itself anew each time does not help a client without the token.
            headers = {"Authorization": "Bearer wrong", "X-Aria-Client": f"c{number}"}
            statuses.append((await anonymous.get("/api/v1/state", headers=headers)).status_code)
    assert statuses == [401] * 5 + [429]
    assert (await api.client.get("/api/v1/state", headers=_as("tray", api))).status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "kind"),
    [
        ("GET", "/api/v1/health", "health"),
        ("POST", "/api/v1/health", "write"),
        ("GET", "/api/v1/events", "stream"),
        ("GET", "/api/v1/state", "read"),
        ("HEAD", "/api/v1/memories", "read"),
        ("POST", "/api/v1/memories/search", "write"),
        ("DELETE", "/api/v1/memories/x", "write"),
    ],
)
def test_route_classes(method: str, path: str, kind: str) -> None:
    assert route_class(method, path) == kind


def test_rate_limiter_forgets_idle_buckets_and_stays_bounded() -> None:
    limiter = RateLimiter(rate_per_s=1.0, burst=2)
    for number in range(25_000):
        limiter.take(f"token:c{number}", "read", now=float(number) / 1000)
    assert len(limiter) <= 10_000


async def test_stop_ends_open_streams_with_a_close_frame(api: Api) -> None:
    async with api.client.stream("GET", "/api/v1/events") as response:
        lines = response.aiter_lines()
        assert await anext(lines) == ": ready"
        stopping = asyncio.create_task(api.server.stop())
        rest = []
        # The stream ends because the server closed it (not at the client's timeout), and stop
        # returns: the bound only keeps a regression from hanging the suite.
        async with asyncio.timeout(5):
            async for line in lines:
                rest.append(line)
            await stopping
    assert "event: close" in rest
    assert 'data: {"reason":"shutdown"}' in rest


def test_token_file_is_private(tmp_path: Path) -> None:
    token = TokenFile(tmp_path / "cfg" / "api" / "token")
    token.ensure()
    assert stat.S_IMODE(token.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(token.path.parent.stat().st_mode) == 0o700
    value = token.read()
    assert len(value) >= 40
    token.ensure()
    assert token.read() == value  # stable across starts


def test_readable_token_is_replaced_and_refused_to_clients(tmp_path: Path) -> None:
    token = TokenFile(tmp_path / "api" / "token")
    token.ensure()
    old = token.read()
    os.chmod(token.path, 0o644)
    with pytest.raises(ApiAuthError, match="readable by other users"):
        token.read()
    token.ensure()  # what the server does at start
    assert stat.S_IMODE(token.path.stat().st_mode) == 0o600
    assert token.read() != old


async def test_rotated_token_is_refused_over_http(api: Api) -> None:
    old_headers = api.headers()
    assert (await api.client.get("/api/v1/state", headers=old_headers)).status_code == 200
    new = api.token_file.rotate()
    assert (await api.client.get("/api/v1/state", headers=old_headers)).status_code == 401
    ok = await api.client.get("/api/v1/state", headers={"Authorization": f"Bearer {new}"})
    assert ok.status_code == 200


async def test_token_never_reaches_the_log(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    api.token_file.rotate()
    await api.client.get("/api/v1/state", headers=api.headers())
    await api.client.get("/api/v1/state", headers={"Authorization": "Bearer wrong"})
    assert api.token not in caplog.text


def test_remote_bind_needs_explicit_permission() -> None:
    with pytest.raises(ApiBindError, match="other computers") as info:
        bind_socket("0.0.0.0", 0, allow_remote=False)
    assert "allow_remote" in info.value.hint


def test_busy_port_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(ApiBindError, match="already in use"):
            bind_socket("127.0.0.1", taken.getsockname()[1], allow_remote=False)
