"""``aria bench api``'s figure for the compatible endpoints: what ARIA adds to the first chunk.

A client that streams through ARIA (``/api/chat`` as Home Assistant does, or
``/v1/chat/completions`` as Open WebUI does) waits for the first text longer than one talking
to the model server directly: the security checks, request parsing, finding or creating the
conversation, memory recall and the router come first. The child process
``bench/_first_chunk.py`` measures the three side by side, in one run; the target is that ARIA
adds at most 5 ms (medians).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys

from aria_desktop.bench._util import percentile

__all__ = ["TARGET_ADDED_MS", "print_first_chunk"]

TARGET_ADDED_MS = 5.0


async def print_first_chunk(
    model_url: str, aria_port: int, token: str, rounds: int, *, label: str
) -> None:
    """Measure and print the time to the first streamed text: direct, via each protocol.

    ``label`` says what ARIA holds at the time (memory recall runs on every question, so a
    store with memories adds the query's embedding and search).
    """
    model_port = model_url.rsplit(":", 1)[1].rstrip("/")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "aria_desktop.bench._first_chunk",
        model_port,
        str(aria_port),
        str(rounds),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate(f"{token}\n".encode())
    figures: dict[str, list[float]] = json.loads(out.decode())["first_text_ms"]
    direct = statistics.median(figures["direct"])
    print(f"  first streamed text, {label}:")
    print(
        f"    model server directly: median {direct:.2f} ms, "
        f"p90 {percentile(figures['direct'], 0.9):.2f} ms ({rounds} requests)"
    )
    for name, name_label in (
        ("ollama", "POST /api/chat"),
        ("openai", "POST /v1/chat/completions"),
    ):
        values = figures[name]
        median = statistics.median(values)
        added = median - direct
        verdict = "ok" if added <= TARGET_ADDED_MS else "OVER TARGET"
        print(
            f"    through ARIA {name_label}: median {median:.2f} ms, "
            f"p90 {percentile(values, 0.9):.2f} ms; ARIA adds {added:.2f} ms "
            f"(target <= {TARGET_ADDED_MS:g} ms: {verdict})"
        )
