"""The API's ``done`` event says ``cloud`` for an OpenAI-compatible server on another host.

``aria daemon`` composes the backend from its settings (``ARIA_LLM__OPENAI__URL`` on a host
that is not this machine); its traffic goes through an HTTP proxy that is the OpenAI-compatible
test server on 127.0.0.1, so nothing leaves loopback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.daemon_proc import DaemonProcess
from tests.fakes import FakeOpenAI
from tests.fakes.http_server import REMOTE_URL, closed_port, proxy_env
from tests.fakes.openai_server import openai_text

pytestmark = pytest.mark.slow


def sse_frames(response: httpx.Response, *, until: str = "done") -> list[tuple[str, Any]]:
    """(event name, data) pairs of an SSE response, up to and including ``until``."""
    frames: list[tuple[str, Any]] = []
    name = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            frames.append((name, json.loads(line[6:])))
            if name in (until, "close"):
                break
    return frames


def test_done_says_cloud_for_a_model_server_on_another_host(tmp_path: Path) -> None:
    with FakeOpenAI() as server, closed_port() as no_ollama:
        server.script("/v1/chat/completions", openai_text("Answered from afar.", chunks=3))
        daemon = DaemonProcess(
            tmp_path,
            f"http://127.0.0.1:{no_ollama}",
            extra_env={
                **proxy_env(server),
                "ARIA_LLM__OPENAI__URL": REMOTE_URL,
                "ARIA_LLM__OPENAI__MODEL": "smollm2",
                "ARIA_LLM__CHAINS__CHAT": "openai",
                "ARIA_LLM__CHAINS__EXTRACT": "openai",
            },
        ).start()
        try:
            with (
                httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=20) as client,
                client.stream(
                    "POST", "/api/v1/chat", json={"message": "Where do you run?"}
                ) as response,
            ):
                assert response.status_code == 200
                frames = sse_frames(response)
        finally:
            assert daemon.stop() == 0, daemon.output()
        sent = server.requests_to("/v1/chat/completions")
    name, done = frames[-1]
    assert name == "done", frames
    assert (done["status"], done["text"]) == ("complete", "Answered from afar.")
    assert (done["backend"], done["model"]) == ("openai", "smollm2")
    assert done["locality"] == "cloud"
    assert sent
    assert {request.headers["host"] for request in sent} == {"models.example.test:8080"}
