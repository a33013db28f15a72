"""Anthropic backend over the official SDK's streaming Messages API.

We read the raw event stream (``message_start``, ``content_block_start`` text/tool_use,
``content_block_delta`` text_delta/input_json_delta, ``content_block_stop``, ``message_delta``
with stop_reason and usage, ``message_stop``) rather than the SDK's accumulating helper, because
a tool call must be yielded only once its JSON is complete: a tool_use block is buffered and
parsed at its ``content_block_stop``, so a cut stream can never produce a half call.

The SDK's own retries are off (``max_retries=0``): the router retries, knowing about fallbacks
and circuit breakers. The SDK uses the ``httpx2`` transport, whose exceptions escape it while a
stream is being read, so this module (and only this one) imports ``httpx2`` to translate them.
"""

from __future__ import annotations

import base64
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    ModelInfo,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallChunk,
    Usage,
)
from aria_desktop.domain.errors import (
    BackendUnreachableError,
    LLMError,
    LLMTimeoutError,
    MalformedResponseError,
)
from aria_desktop.domain.locality import Locality, backend_locality
from aria_desktop.llm._http import (
    BackendIdentity,
    StreamTimer,
    Timeouts,
    ended_early,
    error_for_status,
    json_arguments,
    malformed,
    relay_chunks,
    retry_after_from_headers,
    token_count,
)

if TYPE_CHECKING:
    import anthropic

_LOGGER = logging.getLogger(__name__)

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


def _merge_user(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    """Append user content blocks, merging into a preceding user message (roles must alternate)."""
    if messages and messages[-1]["role"] == "user":
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": "user", "content": blocks})


def build_messages(
    messages: tuple[ChatMessage, ...],
) -> tuple[str, list[dict[str, Any]]]:
    """Split the prompt into Anthropic's ``system`` string and ``messages`` list.

    Tool results become ``tool_result`` blocks of a user message, assistant tool calls become
    ``tool_use`` blocks; consecutive user-side messages are merged because the API wants roles
    to alternate.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.content)
        elif message.role == "user":
            image_blocks: list[dict[str, Any]] = [
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(image).decode("ascii"),
                    },
                }
                for image in message.images
            ]
            _merge_user(out, [*image_blocks, {"type": "text", "text": message.content}])
        elif message.role == "tool":
            _merge_user(
                out,
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.tool_call_id or "",
                        "content": message.content,
                    }
                ],
            )
        else:
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            )
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    return "\n\n".join(s for s in system if s), out


@dataclass
class _Block:
    """A content block being streamed: text, or a tool_use whose JSON is still arriving."""

    kind: str
    tool_id: str = ""
    tool_name: str = ""
    json_parts: list[str] = field(default_factory=list)


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
    ) -> None:
        """Create the SDK client; no I/O happens until the first request.

        The SDK is imported here, not at module level: it builds about 1,500 pydantic models
        (seconds of CPU), which only a configured Anthropic backend should cost
        (ARCHITECTURE.md: start-up cost).
        """
        import anthropic

        self._model = model
        self._timeouts = timeouts
        self._capabilities = capabilities
        self._name = name
        self._base_url = base_url or "https://api.anthropic.com"
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
            return LLMTimeoutError(
                f"{self._name}: connecting to {self._base_url} timed out",
                kind="connect",
                backend=self._name,
                hint=self._unreachable_hint,
            )
        if isinstance(exc, anthropic.APIConnectionError):
            return BackendUnreachableError(
                f"{self._name}: cannot connect to {self._base_url}: {exc}",
                backend=self._name,
                hint=self._unreachable_hint,
            )
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
            return BackendUnreachableError(
                f"{self._name}: the connection to {self._base_url} broke: {exc!r}",
                backend=self._name,
                hint="The server closed the connection mid-reply; check its logs if this repeats.",
            )
        return MalformedResponseError(
            f"{self._name}: unexpected SDK failure: {exc!r}",
            backend=self._name,
            hint="The server's reply could not be read; check its URL and version.",
        )

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        system, messages = build_messages(request.messages)
        params: dict[str, Any] = {
            "model": self._model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        }
        if system:
            params["system"] = system
        if request.stop:
            params["stop_sequences"] = list(request.stop)
        if request.temperature is not None:
            # SDK 2.x dropped ``temperature`` from ``create()``'s signature; the API still takes it
            # for models that support sampling parameters.
            params["extra_body"] = {"temperature": request.temperature}
        if request.tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
        return params

    async def stream_chat(self, request: ChatRequest) -> AsyncGenerator[LLMChunk, None]:
        """Stream one reply; see ``ChatBackend``.

        Raises:
            LLMError: a subclass naming the failure; ``StreamInterruptedError`` once content has
                been yielded.
        """
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
        relayed = relay_chunks(
            events, self._parse, timer=timer, backend=self._name, close=stream.close
        )
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
        self, events: AsyncIterator[Any], timer: StreamTimer, partial: list[str]
    ) -> AsyncGenerator[LLMChunk, None]:
        blocks: dict[int, _Block] = {}
        model = self._model
        input_tokens = 0
        output_tokens = 0
        stop_reason = "stop"
        async for event in events:
            kind = getattr(event, "type", None)
            if kind == "message_start":
                message = event.message
                model = getattr(message, "model", None) or model
                usage = getattr(message, "usage", None)
                input_tokens = token_count(getattr(usage, "input_tokens", 0))
                output_tokens = token_count(getattr(usage, "output_tokens", 0))
            elif kind == "content_block_start":
                block = event.content_block
                if getattr(block, "type", None) == "tool_use":
                    blocks[event.index] = _Block(
                        kind="tool_use", tool_id=str(block.id), tool_name=str(block.name)
                    )
                else:
                    blocks[event.index] = _Block(kind=str(getattr(block, "type", "")))
                    text = getattr(block, "text", "")
                    if isinstance(text, str) and text:
                        timer.mark_content()
                        partial.append(text)
                        yield TextDelta(text=text)
            elif kind == "content_block_delta":
                delta = event.delta
                delta_type = getattr(delta, "type", None)
                if delta_type == "text_delta":
                    if delta.text:
                        timer.mark_content()
                        partial.append(delta.text)
                        yield TextDelta(text=delta.text)
                elif delta_type == "input_json_delta":
                    pending = blocks.get(event.index)
                    if pending is None or pending.kind != "tool_use":
                        raise malformed(self._name, "input_json_delta outside a tool_use", "")
                    pending.json_parts.append(str(delta.partial_json))
            elif kind == "content_block_stop":
                pending = blocks.pop(event.index, None)
                if pending is not None and pending.kind == "tool_use":
                    call = self._complete(pending)
                    timer.mark_content()
                    yield ToolCallChunk(call=call)
            elif kind == "message_delta":
                reason = getattr(event.delta, "stop_reason", None)
                if isinstance(reason, str):
                    stop_reason = _STOP_REASONS.get(reason, reason)
                usage = getattr(event, "usage", None)
                output_tokens = token_count(getattr(usage, "output_tokens", output_tokens))
                delta_input = getattr(usage, "input_tokens", None)
                if isinstance(delta_input, int) and delta_input:
                    input_tokens = delta_input
            elif kind == "message_stop":
                yield StreamEnd(
                    backend=self._name,
                    locality=self._locality,
                    model=str(model),
                    usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
                    stop_reason=stop_reason,
                )
                return
        unfinished = sum(1 for b in blocks.values() if b.kind == "tool_use")
        what = f" ({unfinished} unfinished tool call(s) dropped)" if unfinished else ""
        raise ended_early(self._name, f"before message_stop{what}")

    def _complete(self, block: _Block) -> ToolCall:
        text = "".join(block.json_parts)
        arguments = json_arguments(
            text,
            backend=self._name,
            invalid="tool_use input is not valid JSON",
            not_object="tool_use input is not an object",
        )
        return ToolCall(id=block.tool_id, name=block.tool_name, arguments=arguments)

    async def list_models(self) -> list[ModelInfo]:
        """Models the API offers; the configured model alone if listing fails.

        Listing is a convenience (``aria models``), so a failure is logged, not raised.
        """
        import anthropic
        import httpx2

        try:
            timer = StreamTimer(self._timeouts, backend=self._name)
            page = await timer.guard(self._client.models.list(limit=100))
            return [ModelInfo(name=item.id) for item in page.data]
        except (anthropic.AnthropicError, httpx2.TransportError, LLMError) as exc:
            _LOGGER.warning(
                "%s: listing models failed (%s); using the configured one", self._name, exc
            )
            return [ModelInfo(name=self._model)]

    async def aclose(self) -> None:
        """Close the SDK client and its connections."""
        await self._client.close()
