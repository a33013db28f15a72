"""Time to the first streamed text, run as a child process of ``aria bench api``.

Three targets, interleaved round by round so drift hits them alike: the model server directly
(Ollama's ``/api/chat``), ARIA's Ollama-compatible ``/api/chat`` and ARIA's
``/v1/chat/completions`` (both in front of that same model server; the two ARIA endpoints swap
places every round, so each is as often the one asked right after the other's turn). Each
target keeps one keep-alive connection, and a measurement runs from writing the request to
reading the first body chunk that carries reply text. Prints one JSON line: milliseconds per
target.

    python -m aria_desktop.bench._first_chunk MODEL_PORT ARIA_PORT ROUNDS

The API token comes as the first line on stdin (never in argv or the environment).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time

_TEXT = re.compile(rb'"content": ?"[^"]')
"""Reply text in an Ollama line or an OpenAI chunk (an empty role chunk does not count)."""


class _Connection:
    """One keep-alive HTTP/1.1 connection that posts JSON and reads chunked replies."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def first_text_ms(self, path: str, body: dict[str, object]) -> float:
        """Post ``body`` to ``path``; ms until the first chunk with text (reads the rest)."""
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.reader, self.writer
        payload = json.dumps(body).encode()
        head = [
            f"POST {path} HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
        ]
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        started = time.perf_counter()
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        response_head = await reader.readuntil(b"\r\n\r\n")
        status = int(response_head.split(b" ", 2)[1])
        if status != 200 or b"chunked" not in response_head.lower():
            raise RuntimeError(f"{path} answered {status}: {response_head[:200]!r}")
        first_ms: float | None = None
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            data = await reader.readexactly(size + 2)
            if first_ms is None and _TEXT.search(data):
                first_ms = (time.perf_counter() - started) * 1000
            if size == 0:
                break
        if first_ms is None:
            raise RuntimeError(f"{path} streamed no text")
        return first_ms

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def measure(model_port: int, aria_port: int, rounds: int, token: str) -> dict[str, object]:
    """``rounds`` measurements per target (after two warm-up rounds)."""
    direct = _Connection(model_port, "")
    ollama = _Connection(aria_port, token)
    openai = _Connection(aria_port, token)
    results: dict[str, list[float]] = {"direct": [], "ollama": [], "openai": []}
    try:
        for n in range(rounds + 2):
            messages = [{"role": "user", "content": f"Benchmark question {n}"}]
            figures = {
                "direct": await direct.first_text_ms(
                    "/api/chat", {"model": "bench-model", "messages": messages, "stream": True}
                )
            }
            # The ARIA endpoint asked right after the other pays for that turn's tail (its
            # memory extraction, the response's teardown): they take turns being second.
            for name in ("ollama", "openai") if n % 2 == 0 else ("openai", "ollama"):
                figures[name] = await (ollama if name == "ollama" else openai).first_text_ms(
                    "/api/chat" if name == "ollama" else "/v1/chat/completions",
                    {"model": "aria", "messages": messages, "stream": True},
                )
            if n >= 2:
                for name, value in figures.items():
                    results[name].append(value)
    finally:
        for connection in (direct, ollama, openai):
            connection.close()
    return {"first_text_ms": results}


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    token = sys.stdin.readline().strip()
    model_port, aria_port, rounds = (int(value) for value in argv[:3])
    print(json.dumps(asyncio.run(measure(model_port, aria_port, rounds, token))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
