"""Load generator for ``aria bench api``, run as a child process.

It does not share the server's event loop: raw HTTP/1.1 keep-alive connections (cheap enough
not to be the bottleneck), or one SSE chat stream. Prints one JSON line with its measurements.

    python -m aria_desktop.bench._loadgen load PORT METHOD PATH BODY CONCURRENCY SECONDS
    python -m aria_desktop.bench._loadgen sse PORT TURNS
    python -m aria_desktop.bench._loadgen turns ROUNDS

The API token comes as the first line on stdin (never in argv or the environment); ``turns``
reads its plan there instead: one JSON line ``{"port": P, "token": T, "sides": {label:
[message, ...]}}``, each round asking every side's messages in turn, sides alternating order.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time


async def _one_connection(
    port: int, request: bytes, until: float, latencies: list[float], errors: list[int]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            latencies.append((time.perf_counter() - started) * 1000)
            if status >= 400:
                errors.append(status)
    finally:
        writer.close()


async def load(
    port: int, method: str, path: str, body: str, concurrency: int, seconds: float, token: str
) -> dict[str, object]:
    """Requests from ``concurrency`` keep-alive connections for ``seconds``."""
    headers = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    if token:
        headers.append(f"Authorization: Bearer {token}")
    payload = body.encode()
    if payload:
        headers += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    request = ("\r\n".join(headers) + "\r\n\r\n").encode() + payload
    warm: list[float] = []
    await asyncio.gather(
        *(_one_connection(port, request, time.perf_counter() + 0.5, warm, []) for _ in range(4))
    )
    latencies: list[float] = []
    errors: list[int] = []
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(
        *(_one_connection(port, request, until, latencies, errors) for _ in range(concurrency))
    )
    elapsed = time.perf_counter() - started
    return {
        "count": len(latencies),
        "seconds": elapsed,
        "latencies_ms": latencies,
        "errors": len(errors),
    }


async def sse(port: int, turns: int, token: str) -> dict[str, object]:
    """Per turn: wall-clock delay from the first ``text-delta`` event's creation to its arrival."""
    delays: list[float] = []
    request_head = (
        f"POST /api/v1/chat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
    )
    for i in range(turns):
        body = json.dumps({"message": f"bench {i}"}).encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"{request_head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        first = True
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                if line.startswith(b"data: ") and first and b'"type":"llm-delta"' in line:
                    arrived = time.time()
                    delays.append((arrived - json.loads(line[6:])["ts"]) * 1000)
                    first = False
                if line.startswith(b"event: done"):
                    break
        finally:
            writer.close()
    return {"delays_ms": delays}


async def _chat_turn(port: int, token: str, message: str) -> tuple[float, float, str]:
    """One streamed ``POST /api/v1/chat``: ms to the first text-delta, ms to done, backend."""
    body = json.dumps({"message": message}).encode()
    head = (
        f"POST /api/v1/chat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.perf_counter()
    first_ms = done_ms = 0.0
    backend = ""
    try:
        writer.write(head + body)
        event = b""
        while True:
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"event: "):
                event = line[7:].strip()
            elif line.startswith(b"data: ") and event == b"text-delta" and not first_ms:
                first_ms = (time.perf_counter() - started) * 1000
            elif line.startswith(b"data: ") and event == b"done":
                done_ms = (time.perf_counter() - started) * 1000
                backend = str(json.loads(line[6:]).get("backend", ""))
                break
    finally:
        writer.close()
    return first_ms, done_ms, backend


async def turns(rounds: int, plan: dict[str, object]) -> dict[str, object]:
    """Per side: each turn's ms to the reply and to ``done``, and the backends that answered."""
    port, token = int(str(plan["port"])), str(plan["token"])
    sides: dict[str, list[str]] = plan["sides"]  # type: ignore[assignment]
    result: dict[str, dict[str, list[object]]] = {
        label: {"reply_ms": [], "done_ms": [], "backends": []} for label in sides
    }
    order = list(sides)
    for number in range(rounds):
        for label in order if number % 2 == 0 else reversed(order):
            for message in sides[label]:
                first_ms, done_ms, backend = await _chat_turn(port, token, message)
                result[label]["reply_ms"].append(first_ms)
                result[label]["done_ms"].append(done_ms)
                result[label]["backends"].append(backend)
    return {"sides": result}


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    mode = argv[0]
    if mode == "turns":
        plan = json.loads(sys.stdin.readline())
        print(json.dumps(asyncio.run(turns(int(argv[1]), plan))))
        return 0
    token = sys.stdin.readline().strip()
    if mode == "load":
        port, method, path, body, concurrency, seconds = argv[1:7]
        result = asyncio.run(
            load(int(port), method, path, body, int(concurrency), float(seconds), token)
        )
    else:
        result = asyncio.run(sse(int(argv[1]), int(argv[2]), token))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
