"""Router: retries, Retry-After, circuit breakers and the fallback chain, over real HTTP."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncGenerator, Iterator

import pytest

from aria_desktop.adapters.llm import (
    BreakerPolicy,
    CircuitBreaker,
    OllamaBackend,
    RetryPolicy,
    Router,
    Timeouts,
)
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    FallbackNotice,
    LLMChunk,
    ModelFacts,
    ModelInfo,
    StreamEnd,
    TextDelta,
)
from aria_desktop.domain.errors import (
    BackendUnreachableError,
    CapabilityMissingError,
    CircuitOpenError,
    ClientRequestError,
    ContextOverflowError,
    NoBackendError,
    StreamInterruptedError,
)
from aria_desktop.domain.locality import Locality
from tests.fakes import Drop, FakeAnthropic, FakeOllama, Hang, closed_port
from tests.fakes.anthropic_server import anthropic_error, anthropic_text
from tests.fakes.ollama_server import ollama_error, ollama_stream, ollama_text, text_steps
from tests.llm.conftest import FAST, REQUEST, FakeClock, collect, collect_until_error, text_of

NO_JITTER = RetryPolicy(max_attempts=3, base_delay_s=0.5, max_delay_s=8.0, jitter_ratio=0.0)
CLAUDE = "claude-test-1"


def ollama(server_url: str, *, model: str = "llama3.2", name: str = "ollama") -> OllamaBackend:
    return OllamaBackend(base_url=server_url, model=model, timeouts=FAST, name=name)


def claude(server: FakeAnthropic) -> AnthropicBackend:
    return AnthropicBackend(api_key="sk-ant-x", model=CLAUDE, base_url=server.url, timeouts=FAST)


def router(
    backends: dict[str, object],
    chain: list[str],
    clock: FakeClock,
    **kwargs: object,
) -> Router:
    kwargs.setdefault("retry", NO_JITTER)
    return Router(
        backends,  # type: ignore[arg-type]
        {"chat": chain},
        monotonic=clock.monotonic,
        sleep=clock.sleep,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def dead_url() -> Iterator[str]:
    with closed_port() as port:
        yield f"http://127.0.0.1:{port}"


# --- retries ----------------------------------------------------------------------------------

RETRY_TABLE = [
    (400, "invalid request", False),
    (401, "unauthorized", False),
    (403, "forbidden", False),
    (404, 'model "llama3.2" not found', False),
    (408, "request timeout", True),
    (413, "request entity too large", False),
    (422, "unprocessable", False),
    (429, "too many requests", True),
    (500, "internal error", True),
    (502, "bad gateway", True),
    (503, "server busy, please try again", True),
    (504, "gateway timeout", True),
    (529, "overloaded", True),
]


@pytest.mark.parametrize(("status", "message", "retried"), RETRY_TABLE)
async def test_retry_table_per_status(
    ollama_server: FakeOllama, clock: FakeClock, status: int, message: str, retried: bool
) -> None:
    ollama_server.script("/api/chat", *[ollama_error(status, message)] * 3)
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock)
    _, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    # A request too large for the server is too large for the whole chain, not a missing backend.
    assert isinstance(error, ContextOverflowError if status == 413 else NoBackendError)
    expected_requests = 3 if retried else 1
    assert len(ollama_server.requests_to("/api/chat")) == expected_requests
    assert clock.sleeps == ([0.5, 1.0] if retried else [])
    assert error.__cause__ is not None
    assert getattr(error.__cause__, "status", None) == status


async def test_retry_then_success_yields_one_clean_reply(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.script("/api/chat", ollama_error(503, "busy"), ollama_text("Recovered."))
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock)
    chunks = await collect(r.stream(REQUEST))
    await r.aclose()
    assert text_of(chunks) == "Recovered."
    assert not any(isinstance(c, FallbackNotice) for c in chunks)
    assert sum(isinstance(c, StreamEnd) for c in chunks) == 1
    assert clock.sleeps == [0.5]


async def test_backoff_is_exponential_and_capped(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.script("/api/chat", *[ollama_error(500, "boom")] * 5)
    policy = RetryPolicy(max_attempts=5, base_delay_s=0.5, max_delay_s=1.5, jitter_ratio=0.0)
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock, retry=policy)
    await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert clock.sleeps == [0.5, 1.0, 1.5, 1.5]


def test_jitter_stays_within_the_configured_fraction() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, jitter_ratio=0.5)
    assert policy.delay_s(3, None, lambda: 0.0) == 4.0
    assert policy.delay_s(3, None, lambda: 0.999) == pytest.approx(2.002)
    assert policy.delay_s(10, None, lambda: 0.0) == 8.0


async def test_retry_after_seconds_is_honoured(ollama_server: FakeOllama, clock: FakeClock) -> None:
    ollama_server.script(
        "/api/chat", ollama_error(429, "slow down", retry_after="3"), ollama_text("ok")
    )
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock)
    chunks = await collect(r.stream(REQUEST))
    await r.aclose()
    assert text_of(chunks) == "ok"
    assert clock.sleeps == [3.0]


async def test_retry_after_is_capped(ollama_server: FakeOllama, clock: FakeClock) -> None:
    ollama_server.script(
        "/api/chat", ollama_error(429, "slow down", retry_after="3600"), ollama_text("ok")
    )
    policy = RetryPolicy(max_attempts=3, retry_after_cap_s=30.0, jitter_ratio=0.0)
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock, retry=policy)
    await collect(r.stream(REQUEST))
    await r.aclose()
    assert clock.sleeps == [30.0]


async def test_retry_after_http_date_is_honoured(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    ollama_server.script(
        "/api/chat", ollama_error(503, "busy", retry_after=when), ollama_text("ok")
    )
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock)
    await collect(r.stream(REQUEST))
    await r.aclose()
    assert len(clock.sleeps) == 1
    assert 3.0 <= clock.sleeps[0] <= 5.0


# --- circuit breakers ---------------------------------------------------------------------------


async def test_breaker_opens_fails_fast_without_io_then_probes_and_closes(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.default_reply = lambda request: ollama_error(500, "down")
    r = router(
        {"ollama": ollama(ollama_server.url)},
        ["ollama"],
        clock,
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=3, reset_s=30.0),
    )
    for _ in range(3):
        _, error = await collect_until_error(r.stream(REQUEST))
        assert isinstance(error, NoBackendError)
    assert r.breaker_state("ollama") == "open"
    assert len(ollama_server.requests_to("/api/chat")) == 3

    # Open: fails fast, nothing reaches the server.
    _, error = await collect_until_error(r.stream(REQUEST))
    assert isinstance(error, NoBackendError)
    assert isinstance(error.__cause__, CircuitOpenError)
    assert "llm_circuit_open" in str(error)
    assert len(ollama_server.requests_to("/api/chat")) == 3

    # After reset_s one probe goes through; its success closes the breaker.
    clock.advance(30.0)
    assert r.breaker_state("ollama") == "half_open"
    ollama_server.script("/api/chat", ollama_text("back"))
    chunks = await collect(r.stream(REQUEST))
    assert text_of(chunks) == "back"
    assert len(ollama_server.requests_to("/api/chat")) == 4
    assert r.breaker_state("ollama") == "closed"
    await r.aclose()


async def test_failed_probe_reopens_the_breaker(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.default_reply = lambda request: ollama_error(500, "down")
    r = router(
        {"ollama": ollama(ollama_server.url)},
        ["ollama"],
        clock,
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=2, reset_s=10.0),
    )
    for _ in range(2):
        await collect_until_error(r.stream(REQUEST))
    clock.advance(10.0)
    await collect_until_error(r.stream(REQUEST))  # the probe fails
    assert len(ollama_server.requests_to("/api/chat")) == 3
    assert r.breaker_state("ollama") == "open"
    await collect_until_error(r.stream(REQUEST))
    assert len(ollama_server.requests_to("/api/chat")) == 3  # no I/O while re-opened
    await r.aclose()


async def test_breaker_opening_during_retries_stops_them(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.default_reply = lambda request: ollama_error(500, "down")
    r = router(
        {"ollama": ollama(ollama_server.url)},
        ["ollama"],
        clock,
        retry=RetryPolicy(max_attempts=5, jitter_ratio=0.0),
        breaker=BreakerPolicy(failure_threshold=2, reset_s=30.0),
    )
    _, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert isinstance(error, NoBackendError)
    assert isinstance(error.__cause__, CircuitOpenError)
    assert len(ollama_server.requests_to("/api/chat")) == 2


async def test_breakers_are_independent_per_backend_and_model(
    ollama_server: FakeOllama, clock: FakeClock, dead_url: str
) -> None:
    r = router(
        {
            "dead": ollama(dead_url, model="llama3.2", name="dead"),
            "small": ollama(ollama_server.url, model="llama3.2:1b", name="small"),
            "big": ollama(ollama_server.url, model="qwen3:8b", name="big"),
        },
        ["dead"],
        clock,
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=1, reset_s=30.0),
    )
    await collect_until_error(r.stream(REQUEST))
    assert r.breaker_state("dead") == "open"

    ollama_server.script("/api/chat", ollama_error(500, "down"))
    await collect_until_error(r.stream(REQUEST, backend="small"))
    assert r.breaker_state("small") == "open"
    assert r.breaker_state("big") == "closed"
    chunks = await collect(r.stream(REQUEST, backend="big"))
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert end.model == "qwen3:8b"
    assert ollama_server.requests_to("/api/chat")[-1].json()["model"] == "qwen3:8b"
    await r.aclose()


async def test_a_success_resets_the_failure_count(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.script(
        "/api/chat",
        ollama_error(500, "x"),
        ollama_error(500, "x"),
        ollama_text("ok"),
        ollama_error(500, "x"),
        ollama_error(500, "x"),
    )
    r = router(
        {"ollama": ollama(ollama_server.url)},
        ["ollama"],
        clock,
        retry=RetryPolicy(max_attempts=1),
        breaker=BreakerPolicy(failure_threshold=3),
    )
    for _ in range(5):
        await collect_until_error(r.stream(REQUEST))
    assert r.breaker_state("ollama") == "closed"
    await r.aclose()


def test_half_open_breaker_lets_exactly_one_probe_through(clock: FakeClock) -> None:
    breaker = CircuitBreaker(
        BreakerPolicy(failure_threshold=1, reset_s=5.0), monotonic=clock.monotonic
    )
    breaker.record_failure()
    assert breaker.state == "open"
    assert not breaker.allow()
    clock.advance(5.0)
    assert breaker.allow()
    assert not breaker.allow()  # the probe is in flight
    breaker.release()  # probe cancelled without a verdict
    assert breaker.allow()
    breaker.record_success()
    state: str = breaker.state  # a new read (mypy keeps the narrowing from the assert above)
    assert state == "closed"
    assert breaker.allow()


# --- fallback -----------------------------------------------------------------------------------


async def test_falls_back_from_unreachable_ollama_to_anthropic(
    anthropic_server: FakeAnthropic, clock: FakeClock, dead_url: str
) -> None:
    anthropic_server.script("/v1/messages", anthropic_text("Claude here.", model=CLAUDE))
    r = router(
        {"ollama": ollama(dead_url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks = await collect(r.stream(REQUEST))
    await r.aclose()
    assert chunks[0] == FallbackNotice(
        from_backend="ollama", to_backend="anthropic", reason="backend_unreachable"
    )
    assert text_of(chunks) == "Claude here."
    end = chunks[-1]
    assert isinstance(end, StreamEnd)
    assert (end.backend, end.model, end.locality) == ("anthropic", CLAUDE, "cloud")
    assert clock.sleeps == [0.5, 1.0]  # ollama was retried before falling back


async def test_falls_back_on_context_overflow_without_retrying(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    ollama_server.script("/api/chat", ollama_error(400, "prompt exceeds the context length"))
    anthropic_server.script("/v1/messages", anthropic_text("Long context ok.", model=CLAUDE))
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks = await collect(r.stream(REQUEST))
    await r.aclose()
    assert chunks[0] == FallbackNotice(
        from_backend="ollama", to_backend="anthropic", reason="llm_context_overflow"
    )
    assert len(ollama_server.requests_to("/api/chat")) == 1
    assert clock.sleeps == []
    assert isinstance(chunks[-1], StreamEnd)
    assert chunks[-1].backend == "anthropic"


async def test_context_overflow_fallback_can_be_disabled(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    ollama_server.script("/api/chat", ollama_error(400, "prompt exceeds the context length"))
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
        fallback_on=frozenset({"error", "capability"}),
    )
    chunks, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert chunks == []
    assert isinstance(error, ContextOverflowError)
    assert anthropic_server.requests == []


async def test_error_fallback_can_be_disabled(
    anthropic_server: FakeAnthropic, clock: FakeClock, dead_url: str
) -> None:
    r = router(
        {"ollama": ollama(dead_url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
        fallback_on=frozenset(),
    )
    _, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert isinstance(error, BackendUnreachableError)
    assert anthropic_server.requests == []


async def test_backend_lacking_a_needed_capability_is_skipped_without_a_chat_request(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    anthropic_server.script("/v1/messages", anthropic_text("I can see.", model=CLAUDE))
    request = ChatRequest(messages=REQUEST.messages, needs=frozenset({"vision"}))
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks = await collect(r.stream(request))
    await r.aclose()
    assert chunks[0] == FallbackNotice(
        from_backend="ollama", to_backend="anthropic", reason="llm_capability_missing"
    )
    assert ollama_server.requests_to("/api/chat") == []
    assert text_of(chunks) == "I can see."


async def test_capability_fallback_can_be_disabled(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    request = ChatRequest(messages=REQUEST.messages, needs=frozenset({"vision"}))
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
        fallback_on=frozenset({"error"}),
    )
    _, error = await collect_until_error(r.stream(request))
    await r.aclose()
    assert isinstance(error, CapabilityMissingError)
    assert ollama_server.requests_to("/api/chat") == []
    assert anthropic_server.requests == []


async def test_stream_cut_mid_way_is_interrupted_with_no_retry_or_fallback(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    ollama_server.script(
        "/api/chat", ollama_stream([*text_steps("The capital of", chunks=3), Drop()])
    )
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert isinstance(error, StreamInterruptedError)
    assert error.partial_text == "The capital of" == text_of(chunks)
    assert not any(isinstance(c, FallbackNotice) for c in chunks)
    assert len(ollama_server.requests_to("/api/chat")) == 1
    assert anthropic_server.requests == []
    assert clock.sleeps == []


async def test_everything_failing_lists_each_backend_and_how_to_configure(
    anthropic_server: FakeAnthropic, clock: FakeClock, dead_url: str
) -> None:
    anthropic_server.script("/v1/messages", anthropic_error(401, "invalid x-api-key"))
    r = router(
        {"ollama": ollama(dead_url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert chunks == [
        FallbackNotice(from_backend="ollama", to_backend="anthropic", reason="backend_unreachable")
    ]
    assert isinstance(error, NoBackendError)
    assert "ollama: backend_unreachable" in str(error)
    assert "anthropic: llm_auth_failed" in str(error)
    assert "aria config set llm.ollama.url" in error.hint
    assert "set-secret anthropic_api_key" in error.hint


@pytest.mark.parametrize("chains", [{}, {"chat": []}, {"other": ["ollama"]}])
async def test_empty_or_unknown_chain_is_no_backend_with_hint(
    chains: dict[str, list[str]], ollama_server: FakeOllama
) -> None:
    r = Router({"ollama": ollama(ollama_server.url)}, chains)
    _, error = await collect_until_error(r.stream(REQUEST, agent="chat"))
    await r.aclose()
    assert isinstance(error, NoBackendError)
    assert "aria config set llm.ollama.url" in error.hint
    assert ollama_server.requests_to("/api/chat") == []


async def test_forced_backend_is_the_only_one_tried(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic, clock: FakeClock
) -> None:
    anthropic_server.script("/v1/messages", anthropic_error(401, "bad key"))
    r = router(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server)},
        ["ollama", "anthropic"],
        clock,
    )
    chunks, error = await collect_until_error(r.stream(REQUEST, backend="anthropic"))
    assert chunks == []
    assert isinstance(error, NoBackendError)
    assert ollama_server.requests_to("/api/chat") == []
    _, error = await collect_until_error(r.stream(REQUEST, backend="nope"))
    assert isinstance(error, ClientRequestError)  # the caller's mistake, not an outage
    assert "no nope backend" in str(error)
    await r.aclose()


async def test_cancelling_the_router_consumer_closes_the_http_stream(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    ollama_server.script("/api/chat", ollama_stream([*text_steps("Hi", chunks=1), Hang()]))
    slow = Timeouts(connect_s=1, first_token_s=5, stall_s=30, total_s=60)
    backend = OllamaBackend(base_url=ollama_server.url, model="llama3.2", timeouts=slow)
    r = router({"ollama": backend}, ["ollama"], clock)
    stream = r.stream(REQUEST)
    assert await asyncio.wait_for(anext(stream), 5) == TextDelta(text="Hi")
    await asyncio.wait_for(stream.aclose(), 5)
    assert await ollama_server.wait_disconnect(2.0)
    assert r.breaker_state("ollama") == "closed"
    await r.aclose()


class _StubBackend:
    """Records aclose; used only to check Router.aclose bookkeeping (no protocol involved)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.model = "m"
        self.capabilities = frozenset({"tools"})
        self.locality: Locality = "local"
        self.closed = 0

    async def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]:
        yield StreamEnd(backend=self.name, model=self.model)

    async def model_facts(self) -> ModelFacts:
        return ModelFacts(context_tokens=4096, capabilities=self.capabilities, source="settings")

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(name=self.model)]

    async def aclose(self) -> None:
        self.closed += 1


async def test_aclose_closes_every_backend_once_and_lists_names() -> None:
    a, b = _StubBackend("a"), _StubBackend("b")
    r = Router({"a": a, "b": b, "alias": a}, {"chat": ["a"]})
    assert r.backend_names() == ["a", "b", "alias"]
    assert r.backend("b") is b
    assert r.backend("missing") is None
    assert r.chain("chat") == ("a",)
    await r.aclose()
    assert (a.closed, b.closed) == (1, 1)


async def test_request_messages_reach_the_backend_unchanged(
    ollama_server: FakeOllama, clock: FakeClock
) -> None:
    request = ChatRequest(messages=(ChatMessage(role="user", content="ping"),), max_tokens=5)
    r = router({"ollama": ollama(ollama_server.url)}, ["ollama"], clock)
    await collect(r.stream(request))
    await r.aclose()
    body = ollama_server.requests_to("/api/chat")[0].json()
    assert body["messages"] == [{"role": "user", "content": "ping"}]
    assert body["options"]["num_predict"] == 5


async def test_backends_not_set_up_are_passed_over_without_a_fallback_notice(
    anthropic_server: FakeAnthropic, clock: FakeClock, dead_url: str
) -> None:
    anthropic_server.script("/v1/messages", anthropic_text("Claude here.", model=CLAUDE))
    r = router(
        {"ollama": ollama(dead_url), "anthropic": claude(anthropic_server)},
        ["ollama", "openai", "anthropic"],
        clock,
    )
    chunks = await collect(r.stream(REQUEST))
    await r.aclose()
    notices = [c for c in chunks if isinstance(c, FallbackNotice)]
    assert notices == [
        FallbackNotice(from_backend="ollama", to_backend="anthropic", reason="backend_unreachable")
    ]


async def test_a_chain_ending_in_a_backend_not_set_up_says_so(
    clock: FakeClock, dead_url: str
) -> None:
    r = router({"ollama": ollama(dead_url)}, ["ollama", "anthropic"], clock)
    chunks, error = await collect_until_error(r.stream(REQUEST))
    await r.aclose()
    assert not [c for c in chunks if isinstance(c, FallbackNotice)]
    assert isinstance(error, NoBackendError)
    assert "anthropic is not set up" in error.message


async def test_a_request_naming_a_backend_not_set_up_is_the_callers_mistake(
    clock: FakeClock, dead_url: str
) -> None:
    r = router({"ollama": ollama(dead_url)}, ["ollama"], clock)
    with pytest.raises(ClientRequestError, match="no openai backend set up"):
        async for _chunk in r.stream(REQUEST, backend="openai"):
            pass
    await r.aclose()
