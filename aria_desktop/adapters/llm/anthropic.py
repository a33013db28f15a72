"""Anthropic backend over the official SDK's streaming Messages API.

We read the raw event stream (``message_start``, ``content_block_start`` text/tool_use,
``content_block_delta`` text_delta/input_json_delta, ``content_block_stop``, ``message_delta``
with stop_reason and usage, ``message_stop``) rather than the SDK's accumulating helper, because
a tool call must be yielded only once its JSON is complete: a tool_use block is buffered and
parsed at its ``content_block_stop``, so a cut stream can never produce a half call.

Thinking blocks (``thinking_delta``, then one ``signature_delta``) become ``ThinkingDelta``
values; an assistant message with tool calls is sent back with its signed thinking block, as
Anthropic requires in tool loops. The stable system prompt and the tool schemas are marked
``cache_control: ephemeral`` (tools, then system: the cache prefix order), and the cache's read
and written tokens are reported in ``Usage`` (ARCHITECTURE.md: usage and cloud budgets).

The SDK's own retries are off (``max_retries=0``): the router retries, knowing about fallbacks
and circuit breakers. The SDK uses the ``httpx2`` transport, whose exceptions escape it while a
stream is being read, so this module (and only this one) imports ``httpx2`` to translate them.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import logging
import re
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
    ended_early,
    error_for_status,
    malformed,
    retry_after_from_headers,
)
from aria_desktop.adapters.llm._http import get_json, make_client
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.adapters.llm.model_facts import (
    FactsCache,
    FactsPolicy,
    Learned,
    anthropic_window,
    from_llama_props,
)
from aria_desktop.domain.chat import (
    ChatMessage,
    ChatRequest,
    LLMChunk,
    ModelInfo,
    ResponseFormat,
    StreamEnd,
    TextDelta,
    ThinkingDelta,
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


#: Wraps a structured answer whose schema is not an object (a tool's input must be one).
_WRAPPED_KEY = "value"


def answer_tool(fmt: ResponseFormat) -> dict[str, Any]:
    """The tool a structured answer is forced through (Anthropic has no ``response_format``).

    The schema becomes the tool's ``input_schema`` and ``tool_choice`` names the tool, so the
    model's answer is the tool's input (ARCHITECTURE.md: structured output). A schema that is
    not an object is wrapped as ``{"value": ...}`` and unwrapped again when read.
    """
    name = re.sub(r"[^A-Za-z0-9_-]", "_", fmt.name)[:64] or "response"
    schema = fmt.schema or {"type": "object"}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {_WRAPPED_KEY: schema}, "required": ["value"]}
    return {
        "name": name,
        "description": "Give your answer: call this tool with the answer as its input.",
        "input_schema": schema,
    }


def tool_choice(request: ChatRequest) -> dict[str, Any] | None:
    """Anthropic's ``tool_choice`` for the request (``any`` for required, ``tool`` for one)."""
    if request.response_format is not None:
        return {"type": "tool", "name": answer_tool(request.response_format)["name"]}
    choice = request.tool_choice
    if choice is None or not request.tools:
        return None
    if choice.mode == "tool":
        return {"type": "tool", "name": choice.name}
    return {"type": "any"}


def _answer_text(fmt: ResponseFormat, arguments: dict[str, Any]) -> str:
    """A forced answer tool's input as the JSON text of the answer."""
    schema = fmt.schema or {"type": "object"}
    value = arguments.get(_WRAPPED_KEY) if schema.get("type") != "object" else arguments
    return json.dumps(value, ensure_ascii=False)


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
            if message.tool_calls and message.thinking_signature:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": message.thinking,
                        "signature": message.thinking_signature,
                    }
                )
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            )
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    return "\n\n".join(s for s in system if s), out


_EPHEMERAL = {"type": "ephemeral"}
#: Anthropic's smallest thinking budget.
MIN_THINKING_BUDGET = 1024


def build_params(
    request: ChatRequest, *, model: str, capabilities: frozenset[str]
) -> dict[str, Any]:
    """The Messages API parameters for ``request`` (public for tests).

    The system prompt goes as one text block and the last tool schema carries
    ``cache_control`` so both are read from Anthropic's prompt cache on the next call. With
    thinking on, ``thinking.budget_tokens`` is added on top of ``max_tokens`` (which must exceed
    it) and no temperature is sent (Anthropic allows none with thinking).
    """
    system, messages = build_messages(request.messages)
    choice = tool_choice(request)
    # Anthropic refuses thinking together with a forced tool (a structured answer is one).
    think = request.thinks_on(capabilities) and choice is None
    budget = max(MIN_THINKING_BUDGET, request.think_budget_tokens)
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens + (budget if think else 0),
        "messages": messages,
    }
    if system:
        params["system"] = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
    if request.stop:
        params["stop_sequences"] = list(request.stop)
    if think:
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif request.temperature is not None:
        # SDK 2.x dropped ``temperature`` from ``create()``'s signature; the API still takes it
        # for models that support sampling parameters.
        params["extra_body"] = {"temperature": request.temperature}
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        params["tools"] = tools
    if request.response_format is not None:
        params["tools"] = [*params.get("tools", []), answer_tool(request.response_format)]
    if params.get("tools"):
        params["tools"][-1]["cache_control"] = _EPHEMERAL
    if choice is not None:
        params["tool_choice"] = choice
    return params


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

        self._model = model
        self._timeouts = timeouts
        self._capabilities = capabilities
        self._name = name
        policy = FactsPolicy(configured=capabilities, context_tokens=context_tokens)
        self._facts = FactsCache(policy, backend=name)
        self._base_url = base_url or _OFFICIAL_URL
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
        return build_params(request, model=self._model, capabilities=self.capabilities)

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
        answer: ResponseFormat | None = None,
    ) -> AsyncGenerator[LLMChunk, None]:
        """Chunks of the event stream; with ``answer``, its forced tool's input is the text."""
        answer_name = answer_tool(answer)["name"] if answer is not None else None
        blocks: dict[int, _Block] = {}
        model = self._model
        counts = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        stop_reason = "stop"
        async for event in events:
            kind = getattr(event, "type", None)
            if kind == "message_start":
                message = event.message
                model = getattr(message, "model", None) or model
                _usage_counts(getattr(message, "usage", None), counts)
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
                elif delta_type == "thinking_delta":
                    if delta.thinking:
                        timer.mark_content()
                        yield ThinkingDelta(text=str(delta.thinking))
                elif delta_type == "signature_delta":
                    yield ThinkingDelta(text="", signature=str(delta.signature))
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
                    if answer is not None and call.name == answer_name:
                        text = _answer_text(answer, call.arguments)
                        partial.append(text)
                        yield TextDelta(text=text)
                    else:
                        yield ToolCallChunk(call=call)
            elif kind == "message_delta":
                reason = getattr(event.delta, "stop_reason", None)
                if isinstance(reason, str):
                    stop_reason = _STOP_REASONS.get(reason, reason)
                    if answer is not None and stop_reason == "tool_use":
                        stop_reason = "stop"  # the forced answer tool is the reply's end
                _usage_counts(getattr(event, "usage", None), counts)
            elif kind == "message_stop":
                yield StreamEnd(
                    backend=self._name,
                    locality=self._locality,
                    model=str(model),
                    usage=Usage(
                        input_tokens=token_count(counts["input_tokens"]),
                        output_tokens=token_count(counts["output_tokens"]),
                        cache_read_tokens=token_count(counts["cache_read_input_tokens"]),
                        cache_write_tokens=token_count(counts["cache_creation_input_tokens"]),
                    ),
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

    async def _learn_facts(self) -> Learned:
        """The published window of a Claude model (the API has no endpoint that tells it).

        Another server speaking the Messages API (llama-server does) is asked like an
        OpenAI-compatible one: its ``/props``.
        """
        if self._model.startswith("claude") or self._base_url == _OFFICIAL_URL:
            return anthropic_window(self._model)
        quick = self._timeouts.quick()
        async with make_client(quick) as client:
            data = await get_json(
                client,
                f"{self._base_url.rstrip('/')}/props",
                quick,
                backend=self._name,
                unreachable_hint=self._unreachable_hint,
            )
        return from_llama_props(data, self._capabilities)

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
