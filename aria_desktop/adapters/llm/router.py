"""The fallback chain: retries with backoff, circuit breakers, and moving on to the next backend.

``Router`` satisfies ``core.ports.ChatModel``. For each agent it walks an ordered chain of
backends. On one backend it retries retryable failures with exponential backoff and jitter
(honouring ``Retry-After``, capped). When a backend is exhausted, and the failure's condition is
one the router may fall back on, it tells the consumer with a ``FallbackNotice`` and tries the
next one. Once any text or tool call has been yielded the reply belongs to that backend: a later
failure is a ``StreamInterruptedError`` carrying the partial text, never a retry (the user has
already seen the text, and a retried reply would not continue it).

A circuit breaker per backend and model keeps a dead server from costing a connect timeout on
every turn: after ``failure_threshold`` consecutive failures calls fail fast (no network I/O)
until ``reset_s`` has passed, then one probe is let through.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from typing import Protocol, TypeVar

from aria_desktop.adapters.llm._timing import Timeouts
from aria_desktop.adapters.llm.breaker import (
    BreakerPolicy,
    BreakerState,
    CircuitBreaker,
    RetryPolicy,
)
from aria_desktop.adapters.llm.budget import UsageMeter
from aria_desktop.adapters.llm.text_call_filter import recognise_text_calls
from aria_desktop.domain.chat import (
    ChatRequest,
    FallbackNotice,
    LLMChunk,
    ModelFacts,
    ModelInfo,
    PromptBudgeted,
    StreamEnd,
    TextDelta,
    ThinkingDelta,
    ToolCallChunk,
)
from aria_desktop.domain.error_text import join_failures
from aria_desktop.domain.errors import (
    BackendUnreachableError,
    CapabilityMissingError,
    CircuitOpenError,
    ClientRequestError,
    CloudBudgetError,
    ContextOverflowError,
    LLMError,
    LLMTimeoutError,
    MalformedResponseError,
    NoBackendError,
    RateLimitedError,
    ServerError,
    StreamInterruptedError,
)
from aria_desktop.domain.locality import Locality
from aria_desktop.domain.prompt_budget import FittedRequest, estimate_prompt, fit_request
from aria_desktop.domain.tool_call_format import tool_call_format

__all__ = [
    "CONFIGURE_HINT",
    "ChatBackend",
    "Router",
    "Timeouts",  # re-exported: the composition root configures backends and router together
]

_LOGGER = logging.getLogger(__name__)
_E = TypeVar("_E", bound=LLMError)


#: Prompts shorter than this (estimated tokens) do not calibrate the estimate.
_CALIBRATION_MIN_TOKENS = 256
#: The largest factor the estimate is scaled by.
_MAX_SCALE = 2.0

CONFIGURE_HINT = (
    "Configure a reachable backend, e.g. `aria config set llm.ollama.url http://GPU-HOST:11434` "
    "or `aria config set-secret anthropic_api_key`, and check it with `aria doctor`."
)

#: Failures that say something about the backend's health (and so count for the breaker).
_HEALTH_FAILURES: tuple[type[LLMError], ...] = (
    BackendUnreachableError,
    LLMTimeoutError,
    ServerError,
    RateLimitedError,
    MalformedResponseError,
    StreamInterruptedError,
)


class ChatBackend(Protocol):
    """One LLM backend (Ollama, Anthropic, an OpenAI-compatible server), as the router uses it.

    Declared here, where it is used: the core talks only to the router (``core.ports.ChatModel``).
    ``model_facts`` (context window, capabilities) is learned from the server once per model and
    never raises: a server that cannot tell gives the settings' facts
    (``adapters/llm/model_facts.py``); ``capabilities`` is what it has learned so far, else the
    settings'.
    """

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[str]: ...

    @property
    def locality(self) -> Locality: ...

    def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]:
        """Stream one reply, ending with exactly one ``StreamEnd``.

        Before it come ``TextDelta`` and complete ``ToolCallChunk`` values. Closing the iterator
        (``aclose``) closes the HTTP stream.

        Raises:
            LLMError: a subclass naming the failure; ``StreamInterruptedError`` once content has
                been yielded.
        """

    async def model_facts(self) -> ModelFacts: ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...


def _failed_tries(count: int) -> str:
    """What paused a backend, counted ("1 failed try", "5 failed tries"), retries included.

    Said as a count, not "failed repeatedly": one question whose retries all failed can pause it.
    """
    return "1 failed try" if count == 1 else f"{count} failed tries"


def _budget_notice(fitted: FittedRequest) -> PromptBudgeted:
    budget = fitted.budget
    _LOGGER.info(
        "%s: prompt fitted to %d tokens: left out %d history message(s), %d recalled item(s), "
        "%d tool(s)",
        budget.backend,
        budget.context_tokens,
        budget.dropped_messages,
        budget.dropped_recalled,
        budget.dropped_tools,
    )
    return budget


def _fallback_condition(exc: LLMError) -> str:
    if isinstance(exc, ContextOverflowError):
        return "context_overflow"
    if isinstance(exc, CapabilityMissingError):
        return "capability"
    return "error"


class Router:
    """``ChatModel`` over named backends and per-agent fallback chains.

    Args:
        backends: backend name -> backend.
        chains: agent name ("chat", "extract", ...) -> ordered backend names to try.
        retry: per-backend retry policy.
        breaker: circuit-breaker policy (one breaker per backend and model).
        fallback_on: conditions that move on to the next backend: ``error`` (anything else,
            after retries), ``context_overflow`` and ``capability``.
        monotonic: clock for the breakers (injectable for tests).
        sleep: coroutine used for backoff waits (injectable so tests don't wait).
        rand: uniform [0, 1) source for jitter.
        meter: prices and records every reply's usage and refuses cloud backends over the
            cloud budget (``adapters/llm/budget.py``); None records nothing.
    """

    def __init__(
        self,
        backends: Mapping[str, ChatBackend],
        chains: Mapping[str, Sequence[str]],
        *,
        retry: RetryPolicy | None = None,
        breaker: BreakerPolicy | None = None,
        fallback_on: frozenset[str] = frozenset({"error", "context_overflow", "capability"}),
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rand: Callable[[], float] = random.random,
        meter: UsageMeter | None = None,
    ) -> None:
        """Store the configuration; no I/O."""
        self._meter = meter
        self._backends = dict(backends)
        self._chains = {agent: tuple(names) for agent, names in chains.items()}
        self._retry = retry or RetryPolicy()
        self._breaker_policy = breaker or BreakerPolicy()
        self._fallback_on = fallback_on
        self._monotonic = monotonic
        self._sleep = sleep
        self._rand = rand
        self._breakers: dict[tuple[str, str], CircuitBreaker] = {}
        self._scales: dict[tuple[str, str], float] = {}

    def backend_names(self) -> list[str]:
        """Names of all configured backends."""
        return list(self._backends)

    def backend(self, name: str) -> ChatBackend | None:
        """The backend called ``name``, or None (for ``aria doctor`` and ``aria models``)."""
        return self._backends.get(name)

    def chain(self, agent: str = "chat") -> tuple[str, ...]:
        """The ordered backend names tried for ``agent``."""
        return self._chains.get(agent, ())

    def breaker_state(self, name: str) -> BreakerState:
        """State of the breaker of backend ``name`` and its current model (for ``aria doctor``).

        Raises:
            KeyError: no backend has that name.
        """
        return self._breaker(name, self._backends[name].model).state

    def _breaker(self, name: str, model: str) -> CircuitBreaker:
        key = (name, model)
        breaker = self._breakers.get(key)
        if breaker is None:
            breaker = CircuitBreaker(self._breaker_policy, monotonic=self._monotonic)
            self._breakers[key] = breaker
        return breaker

    async def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        """Stream a reply from the first backend of the chain that can give one.

        A request that offers tools (and wants no JSON answer) has its reply read for tool
        calls written as text (``adapters/llm/text_call_filter.py``), whichever backend answers.

        Args:
            request: the prompt.
            agent: which chain to walk.
            backend: force this backend alone (no fallback to others).

        Raises:
            NoBackendError: nothing configured, or every backend failed (message lists why).
            StreamInterruptedError: a backend failed after content was yielded.
            LLMError: a failure whose condition is not in ``fallback_on``.
        """
        chunks = self._walk_chain(request, agent=agent, backend=backend)
        if request.tools and request.response_format is None:
            chunks = recognise_text_calls(chunks, request.tools, request.tool_choice)
        async with contextlib.aclosing(chunks):
            async for chunk in chunks:
                yield chunk

    async def _walk_chain(
        self, request: ChatRequest, *, agent: str, backend: str | None
    ) -> AsyncGenerator[LLMChunk, None]:
        """The chain walk behind :meth:`stream`: fallback notices and the answering stream."""
        if backend is not None:
            if backend not in self._backends:
                # The request named it: the caller's mistake (HTTP 400), not an outage (503).
                raise ClientRequestError(
                    f"There is no {backend} backend set up.",
                    hint="Leave the backend out to use the configured chain, or set it up.",
                )
            names: tuple[str, ...] = (backend,)
        else:
            names = self._chains.get(agent, ())
        if not names:
            raise NoBackendError(
                f"no language-model backend is configured for agent {agent!r}",
                hint=CONFIGURE_HINT,
            )
        failures: list[tuple[str, LLMError]] = []
        previous: str | None = None
        for name in names:
            prepared = await self._prepare(name, request)
            if not isinstance(prepared, LLMError) and self._meter is not None:
                refusal = await self._meter.refusal(self._backends[name], prepared.request)
                prepared = refusal if refusal is not None else prepared
            if not isinstance(prepared, LLMError) and previous is not None:
                # Announce a move only to a backend that is really tried next.
                reason = next(err.code for failed, err in reversed(failures) if failed == previous)
                yield FallbackNotice(from_backend=previous, to_backend=name, reason=reason)
            if name in self._backends:
                previous = name  # an unconfigured name is not announced as tried or failed
            if isinstance(prepared, LLMError):
                error = prepared
            else:
                if prepared.trimmed:
                    yield _budget_notice(prepared)
                outcome: list[LLMError] = []
                # aclosing: a consumer that stops early must close the HTTP stream now, not at GC.
                attempts = self._try_backend(name, prepared.request, outcome, agent)
                async with contextlib.aclosing(attempts):
                    async for chunk in attempts:
                        if isinstance(chunk, StreamEnd):
                            self._calibrate(name, prepared.request, chunk)
                        yield chunk
                if not outcome:
                    return
                error = outcome[0]
            failures.append((name, error))
            condition = _fallback_condition(error)
            if condition not in self._fallback_on and not isinstance(error, CloudBudgetError):
                _LOGGER.info("%s failed (%s); fallback on %s is disabled", name, error, condition)
                raise error
            _LOGGER.info("%s failed (%s: %s); trying the next backend", name, error.code, error)
        raise self._all_failed(failures)

    async def _prepare(self, name: str, request: ChatRequest) -> FittedRequest | LLMError:
        """``request`` as backend ``name`` gets it, or why ``name`` is not even tried.

        The backend's model facts decide (``adapters/llm/model_facts.py``, learned once per model):
        a model lacking what the request needs is skipped (``capability``); a model without tools
        gets no tool schemas; the prompt is fitted to the model's window
        (``domain/prompt_budget.py``), or skipped (``context_overflow``) when the system prompt and
        the newest message alone do not fit. A backend whose breaker is open is not asked about its
        model: its attempt fails fast without I/O anyway.
        """
        backend = self._backends.get(name)
        if backend is None:
            return NoBackendError(f"{name} is not set up", hint=CONFIGURE_HINT)
        if self._breaker(name, backend.model).state == "open":
            unsent = PromptBudgeted(backend=name, context_tokens=0, estimated_tokens=0)
            return FittedRequest(request=request, reserve_tokens=0, budget=unsent)
        facts = await backend.model_facts()
        missing = request.needs - facts.capabilities
        if missing:
            return CapabilityMissingError(
                f"{name} ({backend.model}) lacks {', '.join(sorted(missing))}",
                backend=name,
                hint=f"Pick a model with {', '.join(sorted(missing))} for llm.{name}.model, or "
                "add a backend that has it to the chain.",
            )
        if request.tools and "tools" not in facts.capabilities:
            request = _without_native_tools(name, backend.model, request)
        # A window the request names (a client's num_ctx, already capped) wins over the model's.
        window = request.context_tokens or facts.context_tokens
        scale = self._scales.get((name, backend.model), 1.0)
        try:
            return fit_request(request, window, backend=name, scale=scale)
        except ContextOverflowError as exc:
            return exc

    def _calibrate(self, name: str, sent: ChatRequest, end: StreamEnd) -> None:
        """Learn how far the token estimate falls short for this model (never how far over).

        The estimate is conservative for common tokenizers (``domain/prompt_budget.py``); a
        model whose server reports more prompt tokens than estimated (a small or unusual
        vocabulary, a long chat template) gets its later prompts scaled by the ratio, at most
        2. Short prompts say more about the template than the tokenizer and are not used; a
        server that counts only uncached tokens (Ollama) can only report less, which is ignored.
        """
        estimated = estimate_prompt(sent.messages, sent.tools)
        if estimated < _CALIBRATION_MIN_TOKENS or end.usage.input_tokens <= estimated:
            return
        key = (name, self._backends[name].model)
        ratio = min(end.usage.input_tokens / estimated, _MAX_SCALE)
        if ratio > self._scales.get(key, 1.0):
            _LOGGER.info("%s: %s counts %.2fx the estimated prompt tokens", name, key[1], ratio)
            self._scales[key] = ratio

    async def _try_backend(
        self, name: str, request: ChatRequest, outcome: list[LLMError], agent: str
    ) -> AsyncGenerator[LLMChunk, None]:
        """Stream from one backend with retries; on final failure put the error in ``outcome``.

        Raises:
            StreamInterruptedError: the backend failed after content was yielded.
        """
        backend = self._backends[name]
        breaker = self._breaker(name, backend.model)
        attempt = 0
        while True:
            attempt += 1
            if not breaker.allow():
                outcome.append(
                    CircuitOpenError(
                        f"{name} ({backend.model}) is paused after "
                        f"{_failed_tries(breaker.failures)}; ARIA tries it again in "
                        f"{breaker.retry_in_s:.0f} s",
                        backend=name,
                        hint="Check the backend with `aria doctor`.",
                    )
                )
                return
            partial: list[str] = []
            delivered = False
            verdict = False
            try:
                async with contextlib.aclosing(backend.stream_chat(request)) as chunks:
                    async for chunk in chunks:
                        if isinstance(chunk, TextDelta):
                            partial.append(chunk.text)
                            delivered = True
                        elif isinstance(chunk, ToolCallChunk | ThinkingDelta):
                            delivered = True
                        elif isinstance(chunk, StreamEnd):
                            breaker.record_success()
                            verdict = True
                            yield await self._metered(chunk, agent, request.turn_id)
                            return
                        yield chunk
                raise MalformedResponseError(
                    f"{name}: the reply ended without an end marker", backend=name
                )
            except LLMError as exc:
                verdict = True
                if isinstance(exc, _HEALTH_FAILURES):
                    breaker.record_failure()
                else:
                    # The server answered coherently (a 4xx): it is alive.
                    breaker.record_success()
                if delivered:
                    raise StreamInterruptedError(
                        f"{name}: the reply broke off after {len(''.join(partial))} "
                        f"characters: {exc.message}",
                        partial_text="".join(partial),
                        backend=name,
                        status=exc.status,
                        hint=exc.hint
                        or "The partial reply was kept; ask again to get a complete answer.",
                    ) from exc
                if not exc.retryable or attempt >= self._retry.max_attempts:
                    outcome.append(exc)
                    return
                delay_s = self._retry.delay_s(attempt, exc.retry_after_s, self._rand)
                _LOGGER.info(
                    "%s attempt %d failed (%s); retrying in %.2f s",
                    name,
                    attempt,
                    exc.code,
                    delay_s,
                )
            finally:
                if not verdict:
                    breaker.release()
            await self._sleep(delay_s)

    async def _metered(self, end: StreamEnd, agent: str, turn_id: str) -> StreamEnd:
        """``end`` priced and recorded by the meter (as it is without one)."""
        if self._meter is None:
            return end
        end = self._meter.priced(end)
        await self._meter.record(end, agent=agent, turn_id=turn_id)
        return end

    def _all_failed(self, failures: list[tuple[str, LLMError]]) -> LLMError:
        lines = "; ".join(f"{name}: {err.code}: {err.message}" for name, err in failures)
        last = failures[-1][1]
        budget = next((err for _, err in failures if isinstance(err, CloudBudgetError)), None)
        if budget is not None:
            # The limit is why nothing answered, and what the user can act on: say it first.
            return _restated(budget, f"{budget.message} (all backends: {lines})", last)
        overflow = next((err for _, err in failures if isinstance(err, ContextOverflowError)), None)
        if overflow is not None and all(_too_big_or_absent(err) for _, err in failures):
            # Every model that could be asked is reachable; the message is too long for each.
            too_long = f"The message is too long for every model that could answer it ({lines})"
            return _restated(overflow, too_long, last)
        hints = [err.hint for _, err in failures if err.hint]
        hint = " ".join(dict.fromkeys([*hints, CONFIGURE_HINT]))
        reasons = join_failures((name, err.code, err.message) for name, err in failures)
        error = NoBackendError(reasons, hint=hint)
        error.__cause__ = last
        return error

    async def list_models(self, name: str) -> list[ModelInfo]:
        """Models backend ``name`` offers (for ``aria models``)."""
        return await self._backends[name].list_models()

    async def aclose(self) -> None:
        """Close every backend (each once), logging rather than raising failures."""
        seen: set[int] = set()
        for name, backend in self._backends.items():
            if id(backend) in seen:
                continue
            seen.add(id(backend))
            try:
                await backend.aclose()
            except Exception:
                _LOGGER.exception("closing backend %s failed", name)


def _without_native_tools(name: str, model: str, request: ChatRequest) -> ChatRequest:
    """``request`` for a model without native tool calls: no tool schemas sent.

    A reply that must be a tool call (``tool_choice``) is asked for as structured output
    instead: the server constrains the model to ``{"name", "arguments"}`` JSON, which the
    text-call filter turns into a validated call (``domain/tool_call_format.py``).
    """
    forced = None
    if request.tool_choice is not None and request.response_format is None:
        forced = tool_call_format(request.tools, request.tool_choice)
    if forced is None:
        _LOGGER.info("%s (%s) cannot call tools: none offered", name, model)
        return dataclasses.replace(request, tools=())
    _LOGGER.info(
        "%s (%s) has no native tool calls: the required call is structured output", name, model
    )
    return dataclasses.replace(request, tools=(), tool_choice=None, response_format=forced)


def _restated(error: _E, message: str, cause: LLMError) -> _E:
    """``error`` with ``message``, keeping its kind (what callers act on), backend and hint."""
    restated = type(error)(message, backend=error.backend, hint=error.hint)
    restated.__cause__ = cause
    return restated


def _too_big_or_absent(error: LLMError) -> bool:
    """The backend could not take the prompt, or is not set up at all (nothing to reach)."""
    return isinstance(error, ContextOverflowError) or (
        isinstance(error, NoBackendError) and error.message.endswith(" is not set up")
    )
