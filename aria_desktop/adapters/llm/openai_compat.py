"""OpenAI-compatible backend (llama.cpp ``llama-server``, vLLM, LM Studio, OpenAI itself).

``POST {base_url}/v1/chat/completions`` with ``stream: true`` answers Server-Sent Events whose
``data:`` is a ``chat.completion.chunk`` and ends with ``data: [DONE]``. Tool calls arrive in
fragments (``delta.tool_calls[i]`` with ``index``, then ``id``/``function.name`` once and
``function.arguments`` in string pieces), so they are accumulated and parsed only once the
choice's ``finish_reason`` arrives: a stream cut before that can never yield a half call.
Reasoning arrives in ``delta.reasoning_content`` (llama.cpp, DeepSeek; ``delta.reasoning`` on
some servers) or inline in ``<think>`` tags of the content; both become ``ThinkingDelta``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from aria_desktop.adapters.llm._backend import (
    function_tools,
    json_arguments,
    new_call_id,
    token_count,
)
from aria_desktop.adapters.llm._errors import (
    ended_early,
    error_for_status,
    error_message_from_body,
    malformed,
)
from aria_desktop.adapters.llm._http import HttpBackend, SSEEvent, get_json, iter_sse
from aria_desktop.adapters.llm._thinking import ThinkTagSplitter
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.adapters.llm.model_facts import (
    FactsPolicy,
    Learned,
    from_llama_props,
    from_models_meta,
)
from aria_desktop.domain import chat
from aria_desktop.domain.errors import BadRequestError, MalformedResponseError, ModelNotFoundError
from aria_desktop.domain.locality import Locality, backend_locality

_LOGGER = logging.getLogger(__name__)

_STOP_REASONS = {"stop": "stop", "tool_calls": "tool_use", "function_call": "tool_use"}


def _message_to_openai(message: chat.ChatMessage) -> dict[str, Any]:
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        # Vision input as data URLs in content parts (the chat-completions image format).
        out["content"] = [{"type": "text", "text": message.content}] + [
            {
                "type": "image_url",
                "image_url": {"url": "data:image/png;base64," + base64.b64encode(img).decode()},
            }
            for img in message.images
        ]
    if message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


def build_chat_body(request: chat.ChatRequest, *, model: str) -> dict[str, Any]:
    """The ``/v1/chat/completions`` request body for ``request``."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [_message_to_openai(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.max_tokens,
    }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.tools:
        body["tools"] = function_tools(request.tools)
        choice = request.tool_choice
        if choice is not None:
            body["tool_choice"] = (
                {"type": "function", "function": {"name": choice.name}}
                if choice.mode == "tool"
                else "required"
            )
    if request.stop:
        body["stop"] = list(request.stop)
    fmt = request.response_format
    if fmt is not None:
        body["response_format"] = (
            {"type": "json_object"}
            if fmt.schema is None
            else {
                "type": "json_schema",
                "json_schema": {"name": fmt.name, "schema": fmt.schema, "strict": fmt.strict},
            }
        )
    return body


def _delta_pieces(
    delta: dict[str, Any], inline: ThinkTagSplitter
) -> list[chat.TextDelta | chat.ThinkingDelta]:
    """The reasoning and answer text one ``delta`` carries, in that order."""
    pieces: list[chat.TextDelta | chat.ThinkingDelta] = []
    reasoning = delta.get("reasoning_content") or delta.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        pieces.append(chat.ThinkingDelta(text=reasoning))
    content = delta.get("content")
    if isinstance(content, str) and content:
        pieces.extend(inline.feed(content))
    return pieces


@dataclass
class _PendingCall:
    """A tool call being assembled from fragments."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAICompatBackend(HttpBackend):
    """A ``ChatBackend`` for servers speaking OpenAI's chat-completions streaming API.

    Args:
        base_url: server root without ``/v1`` (a trailing ``/v1`` is tolerated).
        model: model name sent with each request.
        api_key: bearer token, None for local servers that need none (never logged).
        timeouts: deadlines per reply.
        capabilities: what the model can do ("tools", "vision").
        name: backend name (see ``BackendIdentity``).
        locality: where the model runs, None for the one rule (see ``BackendIdentity``).
        client: shared ``httpx.AsyncClient`` (not closed by ``aclose``); one is created if None.
        context_tokens: the context window to use; 0 learns it from ``/props`` (llama.cpp) or
            ``/v1/models``.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        timeouts: Timeouts,
        capabilities: frozenset[str] = frozenset({"tools"}),
        name: str = "openai",
        locality: Locality | None = None,
        client: httpx.AsyncClient | None = None,
        context_tokens: int = 0,
    ) -> None:
        """Store settings; no I/O happens until the first request."""
        root = base_url.rstrip("/")
        self._base_url = root.removesuffix("/v1")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        policy = FactsPolicy(configured=capabilities, context_tokens=context_tokens)
        self._identify(name, model, timeouts, policy)
        self._locality = locality or backend_locality("openai", base_url)
        self._use_client(client)
        self._unreachable_hint = (
            f"Is the OpenAI-compatible server running at {self._base_url}? Start it (e.g. "
            f"`llama-server`) or set llm.{name}.url."
        )
        self._auth_hint = f"Set the API key with `aria config set-secret {name}_api_key`."
        self._model_hint = (
            f"Check llm.{name}.model against `aria models {name}`, and that llm.{name}.url "
            "points at the server root."
        )

    async def stream_chat(self, request: chat.ChatRequest) -> AsyncGenerator[chat.LLMChunk, None]:
        """Stream one reply; see ``ChatBackend.stream_chat`` (what it yields and raises)."""
        url = f"{self._base_url}/v1/chat/completions"
        body = build_chat_body(request, model=self._model)
        if self._locality == "local" and (
            request.think == "off" or request.thinks_on(self.capabilities)
        ):
            # llama.cpp and vLLM pass this to the chat template (Qwen3's thinking switch); a
            # hosted OpenAI-style API may refuse unknown fields, so only local servers get it.
            body["chat_template_kwargs"] = {"enable_thinking": request.think != "off"}
        streamed = self._stream(url, body, iter_sse, self._parse, headers=self._headers)
        async with contextlib.aclosing(streamed) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _parse(
        self, events: AsyncIterator[SSEEvent], timer: StreamTimer, partial: list[str]
    ) -> AsyncGenerator[chat.LLMChunk, None]:
        pending: dict[int, _PendingCall] = {}
        finish_reason: str | None = None
        usage = chat.Usage()
        model = self._model
        inline = ThinkTagSplitter()
        async for event in events:
            if event.data.strip() == "[DONE]":
                break
            try:
                data = json.loads(event.data)
            except ValueError as exc:
                raise malformed(self._name, "invalid JSON event", event.data) from exc
            if not isinstance(data, dict):
                raise malformed(self._name, "event is not a JSON object", event.data)
            if "error" in data or event.event == "error":
                message = error_message_from_body(event.data)
                raise error_for_status(None, message, backend=self._name)
            if isinstance(data.get("model"), str) and data["model"]:
                model = data["model"]
            if isinstance(data.get("usage"), dict):
                usage = chat.Usage(
                    input_tokens=token_count(data["usage"].get("prompt_tokens")),
                    output_tokens=token_count(data["usage"].get("completion_tokens")),
                )
            choices = data.get("choices") or []
            if not isinstance(choices, list):
                raise malformed(self._name, "choices is not a list", event.data)
            for choice in choices:
                if not isinstance(choice, dict):
                    raise malformed(self._name, "choice is not an object", event.data)
                delta = choice.get("delta") or {}
                if not isinstance(delta, dict):
                    raise malformed(self._name, "delta is not an object", event.data)
                for piece in _delta_pieces(delta, inline):
                    timer.mark_content()
                    if isinstance(piece, chat.TextDelta):
                        partial.append(piece.text)
                    yield piece
                self._accumulate(delta.get("tool_calls"), pending, event.data)
                reason = choice.get("finish_reason")
                if isinstance(reason, str) and reason:
                    finish_reason = reason
                    for piece in inline.flush():
                        if isinstance(piece, chat.TextDelta):
                            partial.append(piece.text)
                        yield piece
                    for index in sorted(pending):
                        call = self._complete(pending[index])
                        timer.mark_content()
                        yield chat.ToolCallChunk(call=call)
                    pending.clear()
        if finish_reason is None:
            raise self._cut(pending)
        yield chat.StreamEnd(
            backend=self._name,
            locality=self._locality,
            model=model,
            usage=usage,
            stop_reason=_STOP_REASONS.get(finish_reason, finish_reason),
        )

    def _cut(self, pending: dict[int, _PendingCall]) -> MalformedResponseError:
        what = f" ({len(pending)} unfinished tool call(s) dropped)" if pending else ""
        return ended_early(self._name, f"before a finish_reason{what}")

    def _accumulate(self, raw_calls: Any, pending: dict[int, _PendingCall], sample: str) -> None:
        if raw_calls is None:
            return
        if not isinstance(raw_calls, list):
            raise malformed(self._name, "tool_calls is not a list", sample)
        for fragment in raw_calls:
            if not isinstance(fragment, dict):
                raise malformed(self._name, "tool call fragment is not an object", sample)
            index = fragment.get("index", 0)
            if not isinstance(index, int):
                raise malformed(self._name, "tool call fragment without an index", sample)
            call = pending.setdefault(index, _PendingCall())
            if isinstance(fragment.get("id"), str) and fragment["id"]:
                call.id = fragment["id"]
            function = fragment.get("function") or {}
            if not isinstance(function, dict):
                raise malformed(self._name, "tool call function is not an object", sample)
            if isinstance(function.get("name"), str) and function["name"]:
                call.name = call.name or function["name"]
            if isinstance(function.get("arguments"), str):
                call.arguments.append(function["arguments"])

    def _complete(self, pending: _PendingCall) -> chat.ToolCall:
        text = "".join(pending.arguments)
        if not pending.name:
            raise malformed(self._name, "tool call without a name", text)
        arguments = json_arguments(
            text,
            backend=self._name,
            invalid="tool call arguments are not valid JSON",
            not_object="tool call arguments are not an object",
        )
        return chat.ToolCall(id=pending.id or new_call_id(), name=pending.name, arguments=arguments)

    async def _get(self, path: str) -> Any:
        return await get_json(
            self._client,
            f"{self._base_url}{path}",
            self._timeouts.quick(),
            backend=self._name,
            unreachable_hint=self._unreachable_hint,
            headers=self._headers,
            auth_hint=self._auth_hint,
        )

    async def _learn_facts(self) -> Learned:
        """The window and capabilities from llama.cpp's ``/props``, else ``/v1/models`` meta."""
        try:
            learned = from_llama_props(await self._get("/props"), self._capabilities)
        except (ModelNotFoundError, BadRequestError, MalformedResponseError):
            learned = None  # not llama.cpp: no /props (a bare 404), or not its kind of reply
        if learned is None or learned.context_tokens is None:
            meta = from_models_meta(await self._get("/v1/models"), self._model)
            if learned is None or meta.context_tokens is not None:
                return Learned(
                    context_tokens=meta.context_tokens,
                    capabilities=learned.capabilities if learned else None,
                    source=meta.source,
                )
        return learned

    async def list_models(self) -> list[chat.ModelInfo]:
        """Models the server offers (``GET /v1/models``)."""
        data = await self._get("/v1/models")
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise malformed(self._name, "/v1/models has no data list", json.dumps(data))
        return [
            chat.ModelInfo(name=item["id"])
            for item in items
            if isinstance(item, dict) and isinstance(item.get("id"), str)
        ]
