"""The fake servers themselves: the benchmark CLI and /api/embed shape."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.fakes import FakeOllama
from tests.fakes.ollama_server import embedding_for

ROOT = Path(__file__).resolve().parents[2]


def test_ollama_cli_prints_ready_and_serves_the_fixed_reply() -> None:
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.ollama_server",
            "--port",
            "0",
            "--reply",
            "Fixed reply text.",
            "--chunks",
            "3",
            "--delay-ms",
            "1",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("READY ")
            port = int(line.split()[1])
            for _ in range(2):
                req = urllib.request.Request(
                    f"http://127.0.0.1:{port}/api/chat",
                    data=json.dumps({"model": "m", "messages": []}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(req, timeout=5) as resp:
                    lines = [json.loads(raw) for raw in resp.read().splitlines() if raw.strip()]
                assert "".join(obj["message"]["content"] for obj in lines) == "Fixed reply text."
                assert len(lines) == 4
                assert lines[-1]["done"] is True
        finally:
            proc.terminate()
            proc.wait(5)


def test_embed_returns_documented_shape_and_deterministic_vectors() -> None:
    with FakeOllama(models=["all-minilm:latest"], embed_dim=16) as server:
        req = urllib.request.Request(
            f"{server.url}/api/embed",
            data=json.dumps({"model": "all-minilm", "input": ["a", "b"]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            body = json.loads(resp.read())
    assert body["model"] == "all-minilm"
    assert len(body["embeddings"]) == 2
    assert len(body["embeddings"][0]) == 16
    assert body["embeddings"][0] == embedding_for("a", model="all-minilm", dim=16)
    assert body["embeddings"][0] != body["embeddings"][1]
    assert abs(sum(v * v for v in body["embeddings"][0]) - 1.0) < 1e-9
