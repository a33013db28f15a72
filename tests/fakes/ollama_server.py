"""A fake Ollama server speaking the documented REST API (``/api/chat``, ``/api/tags``,
``/api/embed``, ``/api/show``), scriptable per test.

Streaming ``/api/chat`` answers NDJSON (``application/x-ndjson``): one object per line with
``message.content`` pieces, tool calls whole in ``message.tool_calls``, and a final line with
``done: true``, ``done_reason`` and the ``prompt_eval_count`` / ``eval_count`` token counts.
Errors are an HTTP status with ``{"error": "..."}``.

Run standalone for benchmarks::

    python -m tests.fakes.ollama_server --port 0 --reply "Hello there." --chunks 8 --delay-ms 5

serves that reply to every ``/api/chat`` request and prints ``READY <port>`` once listening.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from tests.fakes.http_server import (
    Drop,
    FakeHTTPServer,
    Hang,
    RecordedRequest,
    Reply,
    Send,
    Sleep,
    Step,
    json_reply,
    split_text,
)

__all__ = [
    "Drop",
    "FakeOllama",
    "Hang",
    "Reply",
    "Send",
    "Sleep",
    "chat_line",
    "done_line",
    "embedding_for",
    "ollama_error",
    "ollama_stream",
    "ollama_text",
    "ollama_tool_calls",
]

_CREATED_AT = "2025-05-27T22:54:57.641643Z"
NDJSON = {"Content-Type": "application/x-ndjson"}


def chat_line(
    model: str,
    content: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    *,
    thinking: str = "",
) -> bytes:
    """One streamed NDJSON line carrying a content piece (and/or whole tool calls, reasoning)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = tool_calls
    obj = {"model": model, "created_at": _CREATED_AT, "message": message, "done": False}
    return json.dumps(obj).encode() + b"\n"


def done_line(
    model: str,
    *,
    done_reason: str = "stop",
    prompt_eval_count: int = 12,
    eval_count: int = 7,
) -> bytes:
    """The final NDJSON line (``done: true``) with timings and token counts."""
    obj = {
        "model": model,
        "created_at": _CREATED_AT,
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": done_reason,
        "total_duration": 4883583458,
        "load_duration": 1334875,
        "prompt_eval_count": prompt_eval_count,
        "prompt_eval_duration": 2.7e8,
        "eval_count": eval_count,
        "eval_duration": 4.5e9,
    }
    return json.dumps(obj).encode() + b"\n"


def ollama_stream(steps: Sequence[Step], status: int = 200) -> Reply:
    """A streamed ``/api/chat`` reply made of raw steps."""
    return Reply(status=status, headers=dict(NDJSON), steps=list(steps))


def text_steps(
    text: str, *, chunks: int = 4, model: str = "llama3.2", delay_s: float = 0.0
) -> list[Step]:
    """Steps streaming ``text`` as ``chunks`` content lines (no final line)."""
    steps: list[Step] = []
    for piece in split_text(text, chunks):
        if delay_s:
            steps.append(Sleep(delay_s))
        steps.append(Send(chat_line(model, piece)))
    return steps


def ollama_text(
    text: str,
    *,
    chunks: int = 4,
    model: str = "llama3.2",
    delay_s: float = 0.0,
    done_reason: str = "stop",
    prompt_eval_count: int = 12,
    eval_count: int = 7,
) -> Reply:
    """A complete streamed text reply."""
    steps = text_steps(text, chunks=chunks, model=model, delay_s=delay_s)
    steps.append(
        Send(
            done_line(
                model,
                done_reason=done_reason,
                prompt_eval_count=prompt_eval_count,
                eval_count=eval_count,
            )
        )
    )
    return ollama_stream(steps)


def ollama_tool_calls(
    calls: list[tuple[str, dict[str, Any]]],
    *,
    text: str = "",
    model: str = "llama3.2",
    with_ids: bool = False,
) -> Reply:
    """A reply whose tool calls arrive whole in one line (as Ollama streams them)."""
    raw = []
    for i, (name, arguments) in enumerate(calls):
        call: dict[str, Any] = {"function": {"index": i, "name": name, "arguments": arguments}}
        if with_ids:
            call["id"] = f"call_fake{i}"
        raw.append(call)
    steps: list[Step] = [Send(chat_line(model, text))] if text else []
    steps.append(Send(chat_line(model, "", raw)))
    steps.append(Send(done_line(model)))
    return ollama_stream(steps)


def ollama_error(status: int, message: str, *, retry_after: str | None = None) -> Reply:
    """An error status with Ollama's ``{"error": "..."}`` body."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return json_reply(status, {"error": message}, headers)


def embedding_for(text: str, *, model: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text`` (hash-seeded), stable across runs."""
    seed = int.from_bytes(hashlib.sha256(f"{model}\0{text}".encode()).digest()[:8], "big")
    rng = random.Random(seed)
    vec = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class FakeOllama(FakeHTTPServer):
    """Fake Ollama. ``/api/chat`` answers the script, else ``default_reply`` (a short text).

    Attributes:
        models: what ``/api/tags`` lists.
        embed_dim: dimension of ``/api/embed`` vectors.
        default_reply: factory for unscripted ``/api/chat`` requests.
        context_length: the ``<arch>.context_length`` ``/api/show`` reports (Llama 3.2's).
        capabilities: the ``capabilities`` ``/api/show`` reports (None: an old server's reply
            without the key).
        show_overrides: per model name, ``(context_length, capabilities)`` replacing the two.
        missing: model names ``/api/show`` answers 404 for (any other is "installed").
    """

    def __init__(self, *, models: list[str] | None = None, embed_dim: int = 384) -> None:
        super().__init__()
        self.models = models if models is not None else ["llama3.2:latest", "qwen3:8b"]
        self.embed_dim = embed_dim
        self.default_reply: Callable[[RecordedRequest], Reply] = lambda request: ollama_text(
            "Hello from fake Ollama.", model=_model_of(request)
        )
        self.routes[("POST", "/api/chat")] = lambda r: self.default_reply(r)
        self.routes[("GET", "/api/tags")] = self._tags
        self.routes[("POST", "/api/embed")] = self._embed
        self.routes[("POST", "/api/generate")] = self._generate
        self.context_length = 131_072
        self.capabilities: list[str] | None = ["completion", "tools"]
        self.show_overrides: dict[str, tuple[int, list[str] | None]] = {}
        self.missing: set[str] = set()
        self.routes[("POST", "/api/show")] = self._show
        self.routes[("GET", "/api/version")] = lambda r: json_reply(200, {"version": "0.12.6"})
        self.routes[("GET", "/")] = lambda r: Reply(
            headers={"Content-Type": "text/plain"}, body=b"Ollama is running"
        )

    def _tags(self, request: RecordedRequest) -> Reply:
        models = [
            {
                "name": name,
                "model": name,
                "modified_at": "2025-05-01T10:00:00.000000Z",
                "size": 2019393189 + i,
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "details": {
                    "parent_model": "",
                    "format": "gguf",
                    "family": name.split(":")[0].rstrip("0123456789."),
                    "families": [name.split(":")[0]],
                    "parameter_size": "3.2B",
                    "quantization_level": "Q4_K_M",
                },
            }
            for i, name in enumerate(self.models)
        ]
        return json_reply(200, {"models": models})

    def _show(self, request: RecordedRequest) -> Reply:
        """``/api/show`` as Ollama 0.12 answers it (model_info keyed by architecture)."""
        model = str(request.json().get("model", ""))
        if model in self.missing:
            return ollama_error(404, f"model '{model}' not found")
        context, capabilities = self.show_overrides.get(
            model, (self.context_length, self.capabilities)
        )
        body: dict[str, Any] = {
            "license": "LLAMA 3.2 COMMUNITY LICENSE AGREEMENT",
            "modelfile": f"FROM {model}",
            "parameters": 'stop "<|eot_id|>"',
            "template": "{{ .Prompt }}",
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "llama",
                "families": ["llama"],
                "parameter_size": "3.2B",
                "quantization_level": "Q4_K_M",
            },
            "model_info": {
                "general.architecture": "llama",
                "general.parameter_count": 3212749888,
                "llama.attention.head_count": 24,
                "llama.block_count": 28,
                "llama.context_length": context,
                "llama.embedding_length": 3072,
            },
            "modified_at": "2025-05-01T10:00:00.000000Z",
        }
        if capabilities is not None:
            body["capabilities"] = capabilities
        return json_reply(200, body)

    def _embed(self, request: RecordedRequest) -> Reply:
        body = request.json()
        model = str(body.get("model", ""))
        raw = body.get("input", "")
        inputs = [raw] if isinstance(raw, str) else list(raw)
        if model not in self.models and f"{model}:latest" not in self.models:
            return ollama_error(404, f'model "{model}" not found, try pulling it first')
        return json_reply(
            200,
            {
                "model": model,
                "embeddings": [embedding_for(t, model=model, dim=self.embed_dim) for t in inputs],
                "total_duration": 14143917,
                "load_duration": 1019500,
                "prompt_eval_count": sum(len(t.split()) for t in inputs),
            },
        )

    def _generate(self, request: RecordedRequest) -> Reply:
        """``/api/generate`` without a prompt: Ollama's way to load a model (warm-up)."""
        model = str(request.json().get("model", ""))
        if model not in self.models and f"{model}:latest" not in self.models:
            return ollama_error(404, f"model '{model}' not found")
        body = {"model": model, "created_at": _CREATED_AT, "response": "", "done": True}
        return json_reply(200, {**body, "done_reason": "load"})


def _model_of(request: RecordedRequest) -> str:
    try:
        return str(request.json().get("model") or "llama3.2")
    except ValueError:
        return "llama3.2"


def main(argv: list[str] | None = None) -> int:
    """Serve one fixed reply to every ``/api/chat`` request until killed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply", default="Hello from fake Ollama.")
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    args = parser.parse_args(argv)

    server = FakeOllama()
    server.default_reply = lambda request: ollama_text(
        args.reply,
        chunks=args.chunks,
        model=_model_of(request),
        delay_s=args.delay_ms / 1000.0,
    )

    def ready() -> None:
        sys.stdout.write(f"READY {server.port}\n")
        sys.stdout.flush()

    # Recording every request would grow without bound in a long benchmark.
    server.requests = _Discard()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server._serve(args.port, ready))
    return 0


class _Discard(list[RecordedRequest]):
    def append(self, item: RecordedRequest) -> None:
        return None


if __name__ == "__main__":
    sys.exit(main())
