"""Ollama backend: streaming ``POST /api/chat`` (NDJSON) and ``GET /api/tags``.

Ollama streams one JSON object per line. Text arrives in ``message.content`` (reasoning of a
thinking model in ``message.thinking``, or inline in ``<think>`` tags); tool calls arrive
whole in ``message.tool_calls`` (arguments already an object, usually without ids); the last line
has ``done: true`` with ``done_reason`` and the token counts ``prompt_eval_count`` /
``eval_count``. Failures before streaming are an HTTP status with ``{"error": "..."}``; failures
while streaming are an ``{"error": "..."}`` line.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx

from aria_desktop.adapters.llm._backend import function_tools, new_call_id, token_count
from aria_desktop.adapters.llm._errors import ended_early, error_for_status, malformed
from aria_desktop.adapters.llm._http import HttpBackend, get_json, iter_lines
from aria_desktop.adapters.llm._thinking import ThinkTagSplitter
from aria_desktop.adapters.llm._timing import StreamTimer, Timeouts
from aria_desktop.adapters.llm.model_facts import FactsPolicy, Learned, from_ollama_show
from aria_desktop.domain import chat
from aria_desktop.domain.locality import Locality, backend_locality

_LOGGER = logging.getLogger(__name__)

_STOP_REASONS = {"stop": "stop", "length": "length"}


def _message_to_ollama(message: chat.ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.role == "tool" and message.name:
        out["tool_name"] = message.name
    if message.images:
        # Ollama takes images as base64 strings beside the text (vision models).
        out["images"] = [base64.b64encode(image).decode("ascii") for image in message.images]
    return out


def build_chat_body(
    request: chat.ChatRequest,
    *,
    model: str,
    keep_alive: str | None,
    capabilities: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The ``/api/chat`` request body for ``request`` (public for tests and benchmarks).

    ``think`` is sent when thinking is on, and as ``false`` when ``llm.think`` is ``off`` (a
    thinking model otherwise reasons by default); under ``auto`` a model without the
    ``thinking`` capability gets no ``think`` field (Ollama refuses it for such models).
    """
    options: dict[str, Any] = {"num_predict": request.max_tokens}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.stop:
        options["stop"] = list(request.stop)
    if request.context_tokens is not None:
        options["num_ctx"] = request.context_tokens
    messages = [_message_to_ollama(m) for m in request.messages]
    if request.tools and request.tool_choice is not None:
        # Ollama has no tool_choice: the model is told, and the router checks the reply
        # (adapters/llm/text_call_filter.py: a reply without the call is rejected).
        messages.append({"role": "system", "content": tool_choice_instruction(request)})
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "stream": True,
        "options": options,
    }
    if request.tools:
        body["tools"] = function_tools(request.tools)
    if request.response_format is not None:
        # Ollama takes "json" or a JSON schema (structured outputs).
        body["format"] = request.response_format.schema or "json"
    if keep_alive is not None:
        body["keep_alive"] = keep_alive
    if request.thinks_on(capabilities):
        body["think"] = True
    elif request.think == "off":
        body["think"] = False
    return body


def tool_choice_instruction(request: chat.ChatRequest) -> str:
    """The instruction standing in for ``tool_choice`` on a server that has none."""
    choice = request.tool_choice
    if choice is not None and choice.mode == "tool":
        return f"Answer by calling the tool {choice.name}; do not answer in words."
    names = ", ".join(tool.name for tool in request.tools)
    return f"Answer by calling one of the tools ({names}); do not answer in words."


def _parse_tool_call(raw: Any, backend: str) -> chat.ToolCall:
    """A complete ``ToolCall`` from one Ollama tool-call object, or ``MalformedResponseError``."""
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise malformed(backend, "tool call without a function name", json.dumps(raw))
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            raise malformed(backend, "tool call arguments are not JSON", arguments) from exc
    if not isinstance(arguments, dict):
        raise malformed(backend, "tool call arguments are not an object", json.dumps(raw))
    call_id = raw.get("id")
    if not isinstance(call_id, str) or not call_id:
        call_id = new_call_id()
    return chat.ToolCall(id=call_id, name=function["name"], arguments=arguments)


class OllamaBackend(HttpBackend):
    """A ``ChatBackend`` talking to one Ollama server and model.

    Args:
        base_url: server root, e.g. ``http://localhost:11434``.
        model: model tag, e.g. ``qwen3:8b``.
        keep_alive: how long Ollama keeps the model loaded after a reply (Ollama duration string,
            None for the server default); a warm model saves seconds on the next turn.
        timeouts: deadlines per reply (Ollama enforces none itself).
        capabilities: what this model can do ("tools", "vision"); the router skips backends
            lacking what a request needs.
        client: shared ``httpx.AsyncClient`` (not closed by ``aclose``); one is created if None.
        name: backend name (see ``BackendIdentity``).
        locality: where the model runs, None for the one rule (see ``BackendIdentity``).
        context_tokens: the context window to use; 0 learns it from ``/api/show``.
        max_context_tokens: the largest learned window used as ``num_ctx`` (None: no cap).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        keep_alive: str | None = "10m",
        timeouts: Timeouts,
        capabilities: frozenset[str] = frozenset({"tools"}),
        client: httpx.AsyncClient | None = None,
        name: str = "ollama",
        locality: Locality | None = None,
        context_tokens: int = 0,
        max_context_tokens: int | None = 8192,
    ) -> None:
        """Store settings; no I/O happens until the first request."""
        self._base_url = base_url.rstrip("/")
        self._keep_alive = keep_alive
        # num_ctx is allocated as KV cache in RAM: a learned window is capped (model_facts.py).
        policy = FactsPolicy(
            configured=capabilities, context_tokens=context_tokens, cap_tokens=max_context_tokens
        )
        self._identify(name, model, timeouts, policy)
        self._locality = locality or backend_locality("ollama", base_url)
        # Ollama usually runs on this machine or the LAN: environment proxies would only hurt.
        self._use_client(client, trust_env=False)
        self._unreachable_hint = (
            f"Is Ollama running at {self._base_url}? Start it with `ollama serve`, or point "
            "llm.ollama.url at the computer where it runs."
        )
        self._model_hint = (
            f"Pull the model with `ollama pull {model}` or set llm.ollama.model to one listed by "
            "`ollama list`."
        )

    async def stream_chat(self, request: chat.ChatRequest) -> AsyncGenerator[chat.LLMChunk, None]:
        """Stream one reply; see ``ChatBackend.stream_chat`` (what it yields and raises)."""
        body = build_chat_body(
            request, model=self._model, keep_alive=self._keep_alive, capabilities=self.capabilities
        )
        _LOGGER.debug(
            "ollama request: model=%s messages=%d tools=%d",
            self._model,
            len(request.messages),
            len(request.tools),
        )
        url = f"{self._base_url}/api/chat"
        async with contextlib.aclosing(self._stream(url, body, iter_lines, self._parse)) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _parse(
        self, lines: AsyncIterator[str], timer: StreamTimer, partial: list[str]
    ) -> AsyncGenerator[chat.LLMChunk, None]:
        saw_tool_call = False
        inline = ThinkTagSplitter()
        async for line in lines:
            try:
                data = json.loads(line)
            except ValueError as exc:
                raise malformed(self._name, "invalid JSON line", line) from exc
            if not isinstance(data, dict):
                raise malformed(self._name, "line is not a JSON object", line)
            if "error" in data:
                message = str(data["error"])
                raise error_for_status(None, message, backend=self._name)
            message_obj = data.get("message") or {}
            if not isinstance(message_obj, dict):
                raise malformed(self._name, "message is not an object", line)
            content = message_obj.get("content") or ""
            if not isinstance(content, str):
                raise malformed(self._name, "content is not a string", line)
            raw_calls = message_obj.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise malformed(self._name, "tool_calls is not a list", line)
            calls = [_parse_tool_call(raw, self._name) for raw in raw_calls]
            thinking = message_obj.get("thinking") or ""
            if thinking and isinstance(thinking, str):
                timer.mark_content()
                yield chat.ThinkingDelta(text=thinking)
            for piece in inline.feed(content):
                timer.mark_content()
                if isinstance(piece, chat.TextDelta):
                    partial.append(piece.text)
                yield piece
            for call in calls:
                timer.mark_content()
                saw_tool_call = True
                yield chat.ToolCallChunk(call=call)
            if data.get("done") is True:
                for piece in inline.flush():
                    if isinstance(piece, chat.TextDelta):
                        partial.append(piece.text)
                    yield piece
                reason = str(data.get("done_reason") or "stop")
                stop_reason = "tool_use" if saw_tool_call else _STOP_REASONS.get(reason, reason)
                yield chat.StreamEnd(
                    backend=self._name,
                    locality=self._locality,
                    model=str(data.get("model") or self._model),
                    usage=chat.Usage(
                        input_tokens=token_count(data.get("prompt_eval_count")),
                        output_tokens=token_count(data.get("eval_count")),
                    ),
                    stop_reason=stop_reason,
                )
                return
        raise ended_early(self._name, "without a final done line")

    async def _learn_facts(self) -> Learned:
        """The model's window and capabilities from ``POST /api/show``."""
        data = await get_json(
            self._client,
            f"{self._base_url}/api/show",
            self._timeouts.quick(),
            backend=self._name,
            unreachable_hint=self._unreachable_hint,
            body={"model": self._model},
        )
        return from_ollama_show(data)

    async def list_models(self) -> list[chat.ModelInfo]:
        """Models installed on the server (``GET /api/tags``)."""
        url = f"{self._base_url}/api/tags"
        data = await get_json(
            self._client,
            url,
            self._timeouts,
            backend=self._name,
            unreachable_hint=self._unreachable_hint,
        )
        models = data.get("models") if isinstance(data, dict) else None
        if not isinstance(models, list):
            raise malformed(self._name, "/api/tags has no models list", json.dumps(data))
        result: list[chat.ModelInfo] = []
        for item in models:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            details = item.get("details") if isinstance(item.get("details"), dict) else {}
            assert isinstance(details, dict)
            result.append(
                chat.ModelInfo(
                    name=item["name"],
                    size_bytes=item["size"] if isinstance(item.get("size"), int) else None,
                    family=details.get("family")
                    if isinstance(details.get("family"), str)
                    else None,
                    parameter_size=(
                        details.get("parameter_size")
                        if isinstance(details.get("parameter_size"), str)
                        else None
                    ),
                )
            )
        return result
