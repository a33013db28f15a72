"""The attack tests of test_security.py, on the OpenAI- and Ollama-compatible routes: the token,
DNS rebinding, cross-origin requests, forms, huge bodies (with and without Content-Length) and
the rate limit hold there exactly as on /api/v1, with errors in each protocol's shape."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from aria_desktop.api.config import ApiConfig
from tests.api.conftest import Api
from tests.api.test_security import MiB, _chunks

CHAT = {"model": "aria", "messages": [{"role": "user", "content": "hi"}], "stream": False}
READS = ["/v1/models", "/api/tags", "/api/ps", "/api/version"]
WRITES = [
    "/v1/chat/completions",
    "/v1/responses",
    "/api/chat",
    "/api/generate",
    "/api/show",
    "/api/pull",
]


def _message(path: str, response: httpx.Response) -> str:
    """The error text in the path's protocol shape (asserting the shape)."""
    error = response.json()["error"]
    if path.startswith("/v1/"):
        assert set(error) == {"message", "type", "param", "code"}
        return str(error["message"])
    assert isinstance(error, str)
    return error


@pytest.mark.parametrize("path", READS + WRITES)
async def test_no_token_no_answer(api: Api, path: str) -> None:
    async with httpx.AsyncClient(base_url=api.url) as anonymous:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
            method = "GET" if path in READS else "POST"
            response = await anonymous.request(method, path, json=CHAT, headers=headers)
            assert response.status_code == 401, headers
            assert "token" in _message(path, response)
            assert response.headers["www-authenticate"].startswith("Bearer")
    assert await api.store.list_conversations() == []


@pytest.mark.parametrize("path", READS)
async def test_dns_rebinding_host_is_rejected(api: Api, path: str) -> None:
    port = api.server.port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
        response = await api.client.get(path, headers={"Host": host})
        assert response.status_code == 403, host
        assert "Host" in _message(path, response)
    assert (await api.client.get(path, headers={"Host": f"localhost:{port}"})).status_code == 200


@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/responses", "/api/chat", "/api/generate"]
)
async def test_cross_origin_and_form_posts_are_rejected(api: Api, path: str) -> None:
    response = await api.client.post(path, json=CHAT, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert "origin" in _message(path, response)
    for content_type in ("application/x-www-form-urlencoded", "text/plain"):
        form = await api.client.post(
            path, content=b'{"model": "aria"}', headers={"Content-Type": content_type}
        )
        assert form.status_code == 415
        _message(path, form)
    assert await api.store.list_conversations() == []


@pytest.mark.parametrize("with_length", [True, False], ids=["content-length", "chunked"])
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/api/chat"])
async def test_17_mib_body_is_refused(api: Api, path: str, with_length: bool) -> None:
    total = 17 * MiB
    headers = {"Content-Type": "application/json"}
    if with_length:
        headers["Content-Length"] = str(total)
    response = await api.client.post(path, content=_chunks(total), headers=headers)
    assert response.status_code == 413
    assert "larger than" in _message(path, response)
    assert await api.store.list_conversations() == []
    assert (await api.client.get("/api/tags")).status_code == 200


@pytest.mark.parametrize(
    "api_config", [ApiConfig(port=0, rate_limit_per_s=2.0, rate_limit_burst=4)]
)
async def test_rate_limit_holds_on_the_compatible_routes(api: Api) -> None:
    now = [time.monotonic()]
    api.server.app.asgi.clock = lambda: now[0]
    statuses = [(await api.client.get(path)).status_code for path in READS]
    assert statuses == [200] * 4
    for path in ("/v1/models", "/api/tags"):
        limited = await api.client.get(path)
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        assert "Too many" in _message(path, limited)


async def test_wrong_methods_are_405_in_shape(api: Api) -> None:
    for path, method in (("/v1/chat/completions", "GET"), ("/api/chat", "GET")):
        response = await api.client.request(method, path)
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
        _message(path, response)


async def test_unknown_fields_are_ignored_and_wrong_types_refused(api: Api) -> None:
    extra: dict[str, Any] = {**CHAT, "n": 1, "seed": 3, "whatever": {"deep": [1]}}
    assert (await api.client.post("/v1/chat/completions", json=extra)).status_code == 200
    wrong = await api.client.post("/v1/chat/completions", json={**CHAT, "stream": "yes"})
    assert wrong.status_code == 400
    assert "stream" in _message("/v1/chat/completions", wrong)
