"""Protocol-level test servers and fakes (never imported by the ``aria_desktop`` package).

Each server is a context manager usable from any test folder::

    with FakeOllama() as server:
        backend = OllamaBackend(base_url=server.url, ...)
"""

from __future__ import annotations

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.http_server import (
    Drop,
    FakeHTTPServer,
    Hang,
    RecordedRequest,
    Reply,
    Send,
    Sleep,
    Vanish,
    blackhole_port,
    closed_port,
)
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI

__all__ = [
    "Drop",
    "FakeAnthropic",
    "FakeHTTPServer",
    "FakeOllama",
    "FakeOpenAI",
    "Hang",
    "RecordedRequest",
    "Reply",
    "Send",
    "Sleep",
    "Vanish",
    "blackhole_port",
    "closed_port",
]
