"""``ApiClient``: the Assistant protocol over real HTTP behaves like the in-process one."""

from __future__ import annotations

import asyncio
import socket
import ssl
from typing import Any

import pytest

from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.api.client.transport import tls_verification
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.commands import ConfirmAction, StartTurn, StopEverything
from aria_desktop.domain.errors import ApiAuthError, ConfirmationError, NotFoundError
from aria_desktop.domain.events import (
    ActionConfirmRequest,
    Event,
    LlmDelta,
    RunEnd,
    ThinkEnd,
    ToolCallEvent,
)
from tests.api.conftest import Api
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls


async def run_turn(assistant: Assistant, text: str) -> list[Event]:
    sub = assistant.subscribe()
    try:
        started = await assistant.start_turn(StartTurn(text=text))
        events: list[Event] = []
        async with asyncio.timeout(15):
            async for event in sub:
                if event.run_id == started.run_id:
                    events.append(event)
                    if isinstance(event, ActionConfirmRequest):
                        await assistant.confirm_action(
                            ConfirmAction(
                                request_id=event.request_id, nonce=event.nonce, approved=True
                            )
                        )
                    if isinstance(event, RunEnd):
                        return events
    finally:
        sub.close()
    raise AssertionError("the stream ended before run-end")


async def test_client_turn_events_decode_to_domain_classes(api: Api, ollama: FakeOllama) -> None:
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("send", {"text": "x"})], with_ids=True),
        ollama_text("Done.", chunks=2),
    )
    async with ApiClient(api.url, api.token) as client:
        await client.connect()
        assert client.state == "idle"
        events = await run_turn(client, "do it")
    kinds = [type(e) for e in events]
    assert kinds.index(ToolCallEvent) < kinds.index(RunEnd)
    assert "".join(e.text for e in events if isinstance(e, LlmDelta)) == "Done."
    think_end = [e for e in events if isinstance(e, ThinkEnd)][-1]
    assert think_end.usage.output_tokens == 7  # nested dataclass decoded
    assert isinstance(events[-1], RunEnd)
    assert events[-1].status == "complete"
    assert api.calls == [{"text": "x"}]


async def test_client_conversations_and_messages(api: Api, ollama: FakeOllama) -> None:
    ollama.script("/api/chat", ollama_text("One."), ollama_text("Two."))
    async with ApiClient(api.url, api.token) as client:
        events = await run_turn(client, "first")
        assert isinstance(events[-1], RunEnd)
        cid = events[-1].conversation_id
        sub = client.subscribe()
        await client.start_turn(StartTurn(text="second", conversation_id=cid))
        async with asyncio.timeout(10):
            async for event in sub:
                if isinstance(event, RunEnd):
                    break
        sub.close()
        messages = await client.list_messages(cid)
        assert [m.content for m in messages] == ["first", "One.", "second", "Two."]
        assert [m.content for m in await client.list_messages(cid, limit=2)] == ["second", "Two."]
        assert (await client.get_conversation(cid)) is not None
        await client.rename_conversation(cid, "Renamed")
        listed = await client.list_conversations()
        assert [c.title for c in listed] == ["Renamed"]
        created = await client.create_conversation("Empty")
        await client.delete_conversation(created.id)
        assert await client.get_conversation(created.id) is None
        with pytest.raises(NotFoundError):
            await client.delete_conversation("missing")
        with pytest.raises(ConfirmationError):
            await client.confirm_action(ConfirmAction(request_id="x", nonce="y", approved=True))
        assert await client.execute(StopEverything()) == 0
        assert await client.capabilities() == []
        settings = await client.get_settings()
        assert settings["agent"]["max_steps"] == 8
        assert (await client.update_settings({"agent.max_steps": 3}))["agent"]["max_steps"] == 3


async def test_rotated_token_is_refused_at_once(api: Api) -> None:
    old = api.token
    async with ApiClient(api.url, old) as client:
        await client.connect()
        api.token_file.rotate()
        with pytest.raises(ApiAuthError):
            await client.connect()
    async with ApiClient(api.url, api.token) as fresh:
        await fresh.connect()


async def test_a_proxy_in_the_environment_never_sees_the_local_owners_token(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_proxies(monkeypatch)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    with socket.socket() as proxy:  # a "proxy" that accepts and would read what it is sent
        proxy.bind(("127.0.0.1", 0))
        proxy.listen()
        proxy.setblocking(False)
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.getsockname()[1]}")
        async with ApiClient(api.url, api.token) as client:
            await client.connect()  # answered by the owner itself
        with pytest.raises(BlockingIOError):
            proxy.accept()  # nobody connected to the proxy


def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for scheme in ("http", "https", "all"):
        monkeypatch.delenv(f"{scheme}_proxy", raising=False)
        monkeypatch.delenv(f"{scheme.upper()}_PROXY", raising=False)


def _count_ca_loads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record every CA bundle an SSL context loads from now on."""
    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def load(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load)
    return loads


async def test_a_client_of_a_plain_http_url_loads_no_ca_bundle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_proxies(monkeypatch)
    loads = _count_ca_loads(monkeypatch)
    async with ApiClient("http://127.0.0.1:9", "token"):
        pass
    assert loads == []
    async with ApiClient("https://127.0.0.1:9", "token"):
        pass
    assert loads != []  # https keeps httpx's default verification


def test_the_http_context_verifies_and_trusts_no_ca_so_https_fails_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_proxies(monkeypatch)
    context = tls_verification("http://127.0.0.1:8731")
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0
    assert tls_verification("https://aria.example:8731") is True
    assert tls_verification("HTTPS://aria.example:8731") is True


def test_an_https_proxy_for_http_keeps_the_default_verification(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_proxies(monkeypatch)
    monkeypatch.setenv("http_proxy", "https://proxy.example:3128")
    assert tls_verification("http://127.0.0.1:8731") is True
