"""Anthropic backend over the official SDK's streaming Messages API.

We read the raw event stream (``message_start``, ``content_block_start`` text/tool_use,
``content_block_delta`` text_delta/input_json_delta, ``content_block_stop``, ``message_delta``
with stop_reason and usage, ``message_stop``) rather than the SDK's accumulating helper, because
a tool call must be yielded only once its JSON is complete: a tool_use block is buffered and
parsed at its ``content_block_stop``, so a cut stream can never produce a half call.

Thinking blocks (``thinking_delta``, then one ``signature_delta``) become ``ThinkingDelta``
values; the prompt cache's read and written tokens are reported in ``Usage`` (ARCHITECTURE.md:
usage and cloud budgets). The request itself (prompt, tools, thinking, the cache marks) is
built in ``anthropic_request``.

The SDK's own retries are off (``max_retries=0``): the router retries, knowing about fallbacks
and circuit breakers. The SDK uses the ``httpx2`` transport, whose exceptions escape it while a
stream is being read, so this module (and only this one) imports ``httpx2`` to translate them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from aria_desktop.adapters.llm._backend import (
    BackendIdentity,
    json_arguments,
    relay_chunks,
    token_count,
)
from aria_desktop.adapters.llm._errors import (
    cannot_connect,
    connect_timed_out,
    connection_broke,
    ended_early,
    error_for_status,
    malformed,
    retry_after_from_headers,
)
from aria_desktop.adapters.llm._http import get_json, make_client
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.adapters.llm.anthropic_request import answer_text, answer_tool, build_params
from aria_desktop.adapters.llm.model_facts import (
    FactsPolicy,
    Learned,
    anthropic_window,
    from_llama_props,
)
from aria_desktop.domain import chat
from aria_desktop.domain.errors import LLMError, MalformedResponseError
from aria_desktop.domain.locality import Locality, backend_locality

if TYPE_CHECKING:
    import anthropic

_LOGGER = logging.getLogger(__name__)

_OFFICIAL_URL = "https://api.anthropic.com"

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
}
#: Error ``type`` of an Anthropic error body -> the HTTP status it normally comes with, used for
#: errors that arrive as an ``error`` event inside a 200 stream.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def _usage_counts(usage: Any, counts: dict[str, int]) -> None:
    """Update ``counts`` with the token fields ``usage`` reports (absent ones are kept)."""
    for field_name in counts:
        value = getattr(usage, field_name, None)
        if isinstance(value, int) and value:
            counts[field_name] = value


@dataclass
class _Block:
    """A content block being streamed: text, or a tool_use whose JSON is still arriving."""

    kind: str
    tool_id: str = ""
    tool_name: str = ""
    json_parts: list[str] = field(default_factory=list)


class _MessageReader:
    """One streamed message's state, read event by event into chunks.

    Text and thinking pass straight through; a tool_use block is buffered until its
    ``content_block_stop`` (so a cut stream never yields a half call); the stop reason, model
    and token counts are kept for the closing ``StreamEnd``.
    """

    def __init__(self, *, backend: str, model: str, answer: chat.ResponseFormat | None) -> None:
        """Start reading a message from ``backend`` (``answer``: a forced structured answer)."""
        self._backend = backend
        self._model = model
        self._answer = answer
        self._answer_name = answer_tool(answer)["name"] if answer is not None else None
        self._blocks: dict[int, _Block] = {}
        self._counts = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        self._stop_reason = "stop"

    def read(self, event: Any) -> chat.LLMChunk | None:
        """The chunk one event makes, if any (``message_stop`` is the caller's: see ``end``)."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            message = event.message
            self._model = getattr(message, "model", None) or self._model
            _usage_counts(getattr(message, "usage", None), self._counts)
        elif kind == "content_block_start":
            return self._block_start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "content_block_stop":
            return self._block_stop(event.index)
        elif kind == "message_delta":
            reason = getattr(event.delta, "stop_reason", None)
            if isinstance(reason, str):
                self._stop_reason = _STOP_REASONS.get(reason, reason)
                if self._answer is not None and self._stop_reason == "tool_use":
                    self._stop_reason = "stop"  # the forced answer tool is the reply's end
            _usage_counts(getattr(event, "usage", None), self._counts)
        return None

    def _block_start(self, index: int, block: Any) -> chat.TextDelta | None:
        if getattr(block, "type", None) == "tool_use":
            self._blocks[index] = _Block(
                kind="tool_use", tool_id=str(block.id), tool_name=str(block.name)
            )
            return None
        self._blocks[index] = _Block(kind=str(getattr(block, "type", "")))
        text = getattr(block, "text", "")
        return chat.TextDelta(text=text) if isinstance(text, str) and text else None

    def _delta(self, index: int, delta: Any) -> chat.LLMChunk | None:
        delta_type = getattr(delta, "type", None)
        if delta_type == "text_delta":
            return chat.TextDelta(text=delta.text) if delta.text else None
        if delta_type == "thinking_delta":
            return chat.ThinkingDelta(text=str(delta.thinking)) if delta.thinking else None
        if delta_type == "signature_delta":
            return chat.ThinkingDelta(text="", signature=str(delta.signature))
        if delta_type == "input_json_delta":
            pending = self._blocks.get(index)
            if pending is None or pending.kind != "tool_use":
                raise malformed(self._backend, "input_json_delta outside a tool_use", "")
            pending.json_parts.append(str(delta.partial_json))
        return None

    def _block_stop(self, index: int) -> chat.LLMChunk | None:
        pending = self._blocks.pop(index, None)
        if pending is None or pending.kind != "tool_use":
            return None
        call = self._complete(pending)
        if self._answer is not None and call.name == self._answer_name:
            return chat.TextDelta(text=answer_text(self._answer, call.arguments))
        return chat.ToolCallChunk(call=call)

    def _complete(self, block: _Block) -> chat.ToolCall:
        text = "".join(block.json_parts)
        arguments = json_arguments(
            text,
            backend=self._backend,
            invalid="tool_use input is not valid JSON",
            not_object="tool_use input is not an object",
        )
        return chat.ToolCall(id=block.tool_id, name=block.tool_name, arguments=arguments)

    def end(self, *, locality: Locality) -> chat.StreamEnd:
        """The closing chunk, at ``message_stop``."""
        counts = self._counts
        return chat.StreamEnd(
            backend=self._backend,
            locality=locality,
            model=str(self._model),
            usage=chat.Usage(
                input_tokens=token_count(counts["input_tokens"]),
                output_tokens=token_count(counts["output_tokens"]),
                cache_read_tokens=token_count(counts["cache_read_input_tokens"]),
                cache_write_tokens=token_count(counts["cache_creation_input_tokens"]),
            ),
            stop_reason=self._stop_reason,
        )

    def unfinished(self) -> str:
        """What a stream cut before ``message_stop`` dropped ("" when no tool call was open)."""
        unfinished = sum(1 for b in self._blocks.values() if b.kind == "tool_use")
        return f" ({unfinished} unfinished tool call(s) dropped)" if unfinished else ""


class AnthropicBackend(BackendIdentity):
    """A ``ChatBackend`` for Anthropic's Messages API (or a server speaking it).

    Args:
        api_key: Anthropic API key (never logged).
        model: model id, e.g. ``claude-sonnet-5-5``.
        base_url: API root (None for Anthropic's); tests point it at a local fake.
        timeouts: deadlines per reply.
        capabilities: what the model can do.
        name: backend name (see ``BackendIdentity``).
        locality: where the model runs, None for the one rule (see ``BackendIdentity``).
        context_tokens: the context window to use; 0 takes Anthropic's published one.
    """

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeouts: Timeouts,
        locality: Locality | None = None,
        capabilities: frozenset[str] = frozenset({"tools", "vision"}),
        name: str = "anthropic",
        context_tokens: int = 0,
    ) -> None:
        """Create the SDK client; no I/O happens until the first request.

        The SDK is imported here, not at module level: it builds about 1,500 pydantic models
        (seconds of CPU), which only a configured Anthropic backend should cost
        (ARCHITECTURE.md: start-up cost).
        """
        import anthropic

        self._base_url = base_url or _OFFICIAL_URL
        policy = FactsPolicy(configured=capabilities, context_tokens=context_tokens)
        self._identify(name, model, timeouts, policy)
        self._locality = locality or backend_locality("anthropic", self._base_url)
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=anthropic.Timeout(
                connect=timeouts.connect_s,
                read=None,
                write=timeouts.connect_s * 2,
                pool=timeouts.connect_s,
            ),
        )
        self._unreachable_hint = f"Cannot reach {self._base_url}: check the network connection" + (
            f" or llm.{name}.url." if base_url else "."
        )
        self._auth_hint = f"Set a valid key with `aria config set-secret {name}_api_key`."
        self._model_hint = f"Check llm.{name}.model against `aria models {name}`."

    def _translate(self, exc: Exception) -> LLMError:
        """An SDK or transport exception as the matching ``LLMError``."""
        import anthropic
        import httpx2

        if isinstance(exc, anthropic.APITimeoutError):
            return connect_timed_out(self._name, self._base_url, hint=self._unreachable_hint)
        if isinstance(exc, anthropic.APIConnectionError):
            return cannot_connect(self._name, self._base_url, exc, hint=self._unreachable_hint)
        if isinstance(exc, anthropic.APIStatusError):
            status = exc.status_code
            if status < 400:
                status = _ERROR_TYPE_STATUS.get(str(exc.type or ""), 500)
            message = exc.api_message or str(exc)
            if exc.type and exc.type not in message:
                message = f"{exc.type}: {message}"
            return error_for_status(
                status,
                message,
                backend=self._name,
                retry_after_s=retry_after_from_headers(exc.response.headers),
                auth_hint=self._auth_hint,
                model_hint=self._model_hint,
            )
        if isinstance(exc, httpx2.TransportError):
            return connection_broke(self._name, self._base_url, exc)
        return MalformedResponseError(
            f"{self._name}: unexpected SDK failure: {exc!r}",
            backend=self._name,
            hint="The server's reply could not be read; check its URL and version.",
        )

    def _params(self, request: chat.ChatRequest) -> dict[str, Any]:
        return build_params(request, model=self._model, capabilities=self.capabilities)

    async def stream_chat(self, request: chat.ChatRequest) -> AsyncGenerator[chat.LLMChunk, None]:
        """Stream one reply; see ``ChatBackend.stream_chat`` (what it yields and raises)."""
        timer = StreamTimer(self._timeouts, backend=self._name)
        params = self._params(request)
        _LOGGER.debug(
            "anthropic request: model=%s messages=%d tools=%d",
            self._model,
            len(params["messages"]),
            len(request.tools),
        )
        try:
            stream = await timer.guard(
                cast(Any, self._client.messages.create)(**params, stream=True)
            )
        except LLMError:
            raise
        except Exception as exc:
            raise self._translate(exc) from exc
        stream = cast("anthropic.AsyncStream[Any]", stream)
        events = self._events(stream, timer)
        parse = functools.partial(self._parse, answer=request.response_format)
        relayed = relay_chunks(events, parse, timer=timer, backend=self._name, close=stream.close)
        async with contextlib.aclosing(relayed) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _events(
        self, stream: anthropic.AsyncStream[Any], timer: StreamTimer
    ) -> AsyncGenerator[Any, None]:
        """The SDK's events, each read under the timer, with failures translated."""
        iterator = stream.__aiter__()
        while True:
            try:
                event = await timer.guard(anext(iterator))
            except StopAsyncIteration:
                return
            except LLMError:
                raise
            except Exception as exc:
                raise self._translate(exc) from exc
            yield event

    async def _parse(
        self,
        events: AsyncIterator[Any],
        timer: StreamTimer,
        partial: list[str],
        *,
        answer: chat.ResponseFormat | None = None,
    ) -> AsyncGenerator[chat.LLMChunk, None]:
        """Chunks of the event stream; with ``answer``, its forced tool's input is the text."""
        reader = _MessageReader(backend=self._name, model=self._model, answer=answer)
        async for event in events:
            if getattr(event, "type", None) == "message_stop":
                yield reader.end(locality=self._locality)
                return
            chunk = reader.read(event)
            if chunk is None:
                continue
            # Every chunk is content but a thinking block's signature (no text).
            if not isinstance(chunk, chat.ThinkingDelta) or chunk.text:
                timer.mark_content()
            if isinstance(chunk, chat.TextDelta):
                partial.append(chunk.text)
            yield chunk
        raise ended_early(self._name, f"before message_stop{reader.unfinished()}")

    async def _learn_facts(self) -> Learned:
        """The published window of a Claude model (the API has no endpoint that tells it).

        Another server speaking the Messages API (llama-server does) is asked like an
        OpenAI-compatible one, its ``/props``, whatever the model is called (the default name
        is a Claude one): taking Claude's 200k window for a 2k model sends what cannot fit. The
        table answers only for Anthropic's own API, or when the other server cannot say.
        """
        if self._base_url == _OFFICIAL_URL:
            return anthropic_window(self._model)
        quick = self._timeouts.quick()
        try:
            async with make_client(quick) as client:
                data = await get_json(
                    client,
                    f"{self._base_url.rstrip('/')}/props",
                    quick,
                    backend=self._name,
                    unreachable_hint=self._unreachable_hint,
                )
        except LLMError as exc:
            if not self._model.startswith("claude"):
                raise
            _LOGGER.info("%s: %s cannot tell its window (%s)", self._name, self._base_url, exc)
            return anthropic_window(self._model)
        learned = from_llama_props(data, self._capabilities)
        if learned.context_tokens is None and self._model.startswith("claude"):
            return anthropic_window(self._model)
        return learned

    async def list_models(self) -> list[chat.ModelInfo]:
        """Models the API offers; the configured model alone if listing fails.

        Listing is a convenience (``aria models``), so a failure is logged, not raised.
        """
        import anthropic
        import httpx2

        try:
            timer = StreamTimer(self._timeouts, backend=self._name)
            page = await timer.guard(self._client.models.list(limit=100))
            return [chat.ModelInfo(name=item.id) for item in page.data]
        except (anthropic.AnthropicError, httpx2.TransportError, LLMError) as exc:
            _LOGGER.warning(
                "%s: listing models failed (%s); using the configured one", self._name, exc
            )
            return [chat.ModelInfo(name=self._model)]

    async def aclose(self) -> None:
        """Close the SDK client and its connections."""
        await self._client.close()
