"""``aria daemon`` as a real process: crash safety under SIGKILL, graceful SIGTERM, the CLI
going through its API, ``aria status`` and ``aria token``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from aria_desktop.adapters.storage.owner_lock import read_owner
from tests.api.daemon_proc import REPO, DaemonProcess
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text


def _cli(daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        cwd=REPO,
        env=daemon.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_sigkill_while_a_client_posts_loses_no_acknowledged_write(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        for round_no in range(3):
            daemon = DaemonProcess(tmp_path, ollama.url).start()
            acknowledged: list[str] = []
            stop = threading.Event()

            def post(
                daemon: DaemonProcess = daemon,
                acknowledged: list[str] = acknowledged,
                stop: threading.Event = stop,
                round_no: int = round_no,
            ) -> None:
                with httpx.Client(base_url=daemon.url, headers=daemon.headers()) as client:
                    i = 0
                    while not stop.is_set():
                        try:
                            response = client.post(
                                "/api/v1/conversations", json={"title": f"r{round_no}-{i}"}
                            )
                        except httpx.HTTPError:
                            return  # the daemon died mid-request: not acknowledged
                        if response.status_code == 201:
                            acknowledged.append(response.json()["id"])
                        i += 1

            writer = threading.Thread(target=post)
            writer.start()
            while len(acknowledged) < 20 + 15 * round_no:
                threading.Event().wait(0.005)
            assert daemon.process is not None
            os.kill(daemon.process.pid, signal.SIGKILL)
            daemon.process.wait(10)
            stop.set()
            writer.join(10)
            restarted = DaemonProcess(tmp_path, ollama.url).start()
            try:
                with httpx.Client(base_url=restarted.url, headers=restarted.headers()) as client:
                    for cid in acknowledged:
                        assert client.get(f"/api/v1/conversations/{cid}").status_code == 200
            finally:
                restarted.stop()


_WHO = ("My dentist", "Aunt Rosa", "The landlord", "Coach Peters", "My neighbour Ivo", "Dr Chen")
_WHAT = ("prefers", "is allergic to", "collects", "once lived near", "never eats", "sells")
_THING = ("green tea", "vintage cameras", "the Danube", "peanuts", "jazz records", "orchids")


def _varied_fact(n: int) -> str:
    return f"{_WHO[n % 6]} {_WHAT[n // 6 % 6]} {_THING[n // 36 % 6]} (note {n})"


@pytest.mark.slow
def test_sigkill_while_a_client_posts_memories_loses_no_acknowledged_memory(
    tmp_path: Path,
) -> None:
    """The default embedder (the packaged local model): each write carries its vector too."""
    with FakeOllama() as ollama:
        for round_no in range(2):
            daemon = DaemonProcess(tmp_path, ollama.url).start()
            acknowledged: dict[str, str] = {}
            stop = threading.Event()

            def post(
                daemon: DaemonProcess = daemon,
                acknowledged: dict[str, str] = acknowledged,
                stop: threading.Event = stop,
                round_no: int = round_no,
            ) -> None:
                with httpx.Client(
                    base_url=daemon.url, headers=daemon.headers(), timeout=30
                ) as client:
                    i = 0
                    while not stop.is_set():
                        content = _varied_fact(round_no * 1000 + i)
                        try:
                            response = client.post("/api/v1/memories", json={"content": content})
                        except httpx.HTTPError:
                            return  # the daemon died mid-request: not acknowledged
                        if response.status_code == 201:  # (a near-duplicate reinforces)
                            acknowledged[response.json()["id"]] = response.json()["content"]
                        i += 1

            writer = threading.Thread(target=post)
            writer.start()
            deadline = threading.Event()
            waited = 0
            while len(acknowledged) < 15 + 10 * round_no and waited < 3000:
                deadline.wait(0.01)
                waited += 1
            assert len(acknowledged) >= 15 + 10 * round_no, daemon.output()[-2000:]
            assert daemon.process is not None
            os.kill(daemon.process.pid, signal.SIGKILL)
            daemon.process.wait(10)
            stop.set()
            writer.join(10)
            restarted = DaemonProcess(tmp_path, ollama.url).start()
            try:
                with httpx.Client(
                    base_url=restarted.url, headers=restarted.headers(), timeout=30
                ) as client:
                    for memory_id, content in acknowledged.items():
                        found = client.get(f"/api/v1/memories/{memory_id}")
                        assert found.status_code == 200, memory_id
                        assert found.json()["content"] == content
                    # ... and each can still be found by search after the crash.
                    last_id, last = list(acknowledged.items())[-1]
                    hits = client.post(
                        "/api/v1/memories/search", json={"query": last, "limit": 3}
                    ).json()
                    assert last_id in [h["memory"]["id"] for h in hits]
            finally:
                restarted.stop()


@pytest.mark.slow
def test_sigterm_lets_the_reply_in_progress_finish(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        ollama.script(
            "/api/chat", ollama_text("one two three four five six", chunks=6, delay_s=0.3)
        )
        daemon = DaemonProcess(tmp_path, ollama.url).start()
        with (
            httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=20) as client,
            client.stream("POST", "/api/v1/chat", json={"message": "count"}) as response,
        ):
            lines = response.iter_lines()
            for line in lines:
                if line.startswith("event: text-delta"):
                    break
            assert daemon.process is not None
            daemon.process.send_signal(signal.SIGTERM)
            rest = list(lines)
        assert daemon.stop() == 0
        done = [rest[i + 1] for i, line in enumerate(rest) if line == "event: done"]
        assert done
        assert '"status":"complete"' in done[0]
        assert '"text":"one two three four five six"' in done[0]
        assert read_owner(daemon.db_path) is None  # the lock is released


@pytest.mark.slow
def test_sigterm_past_the_grace_period_keeps_the_reply_as_interrupted(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text("a b c d e f g h", chunks=8, delay_s=1.0))
        daemon = DaemonProcess(
            tmp_path, ollama.url, extra_env={"ARIA_DAEMON__SHUTDOWN_GRACE_S": "0.5"}
        ).start()
        with httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=20) as client:
            started = client.post("/api/v1/turns", json={"message": "slow"}).json()
            threading.Event().wait(1.5)
            assert daemon.stop() == 0
        restarted = DaemonProcess(tmp_path, ollama.url).start()
        try:
            with httpx.Client(base_url=restarted.url, headers=restarted.headers()) as client:
                detail = client.get(f"/api/v1/conversations/{started['conversation_id']}").json()
        finally:
            restarted.stop()
        messages = [(m["role"], m["status"]) for m in detail["messages"]]
        assert messages == [("user", "complete"), ("assistant", "interrupted")]
        assert detail["messages"][1]["content"].startswith("a")


@pytest.mark.slow
def test_cli_goes_through_the_running_daemon(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text("Through the API."))
        daemon = DaemonProcess(tmp_path, ollama.url).start()
        try:
            chat = _cli(daemon, "chat", "hello")
            assert chat.returncode == 0, chat.stderr
            assert chat.stdout.strip() == "Through the API."
            listed = _cli(daemon, "conversations", "list", "--json")
            assert listed.returncode == 0, listed.stderr
            assert '"title": "hello"' in listed.stdout
            status = _cli(daemon, "status", "--json")
            assert status.returncode == 0
            assert '"running": true' in status.stdout
            assert '"state": "idle"' in status.stdout
            shown = _cli(daemon, "token", "show")
            assert shown.stdout.strip() == daemon.token
            old = daemon.token
            rotated = _cli(daemon, "token", "rotate")
            assert rotated.stdout.strip() != old
            gone = httpx.get(
                f"{daemon.url}/api/v1/state", headers={"Authorization": f"Bearer {old}"}
            )
            assert gone.status_code == 401
            assert _cli(daemon, "chat", "again").returncode == 0  # reads the new token
        finally:
            daemon.stop()
        assert _cli(daemon, "status").returncode == 3


@pytest.mark.slow
def test_aria_memory_goes_through_the_running_daemon(tmp_path: Path) -> None:
    with FakeOllama() as ollama:
        daemon = DaemonProcess(tmp_path, ollama.url).start()
        try:
            added = _cli(daemon, "memory", "add", "My bike lock code is 3141")
            assert added.returncode == 0, added.stderr
            memory_id = added.stdout.strip()
            assert memory_id.startswith("mem_")
            found = _cli(daemon, "memory", "search", "bike lock", "--json")
            assert found.returncode == 0, found.stderr
            assert memory_id in found.stdout
            related = _cli(daemon, "memory", "related", memory_id)
            assert related.returncode == 0, related.stderr
            assert "not been used together" in related.stderr
            assert _cli(daemon, "memory", "related", memory_id, "--json").stdout.strip() == "[]"
            pinned = _cli(daemon, "memory", "tier", memory_id, "stable")
            assert pinned.returncode == 0, pinned.stderr
            assert "pinned in the stable tier" in pinned.stderr
            listed = _cli(daemon, "memory", "list", "--tier", "stable")
            assert memory_id in listed.stdout
            assert "[stable, pinned]" in listed.stdout
            assert memory_id not in _cli(daemon, "memory", "list", "--tier", "thread").stdout
            shown = _cli(daemon, "memory", "show", memory_id)
            assert "tier:        stable, pinned by the user" in shown.stdout
            assert "active -> stable: pinned by the user" in shown.stdout
            episodes = _cli(daemon, "memory", "episodes")
            assert episodes.returncode == 0, episodes.stderr
            assert "No episodes yet" in episodes.stderr
            assert json.loads(_cli(daemon, "memory", "episodes", "car", "--json").stdout) == []
            stats = _cli(daemon, "memory", "stats")
            assert stats.returncode == 0, stats.stderr
            assert "No reflections yet" in stats.stderr
            as_json = json.loads(_cli(daemon, "memory", "stats", "--json").stdout)
            assert (as_json["conversations"], as_json["trend"]) == ([], "new")
            bad = _cli(daemon, "memory", "stats", "--last", "0")
            assert bad.returncode != 0
            assert "--last must be 1 to 200" in bad.stderr
            unknown = _cli(daemon, "memory", "related", "mem_missing")
            assert unknown.returncode != 0
            assert "no memory" in unknown.stderr
            assert "Traceback" not in unknown.stderr
            with httpx.Client(base_url=daemon.url, headers=daemon.headers()) as client:
                stored = client.get(f"/api/v1/memories/{memory_id}").json()
            assert stored["provenance"] == "api"  # written by the daemon, not by the CLI
            exported = _cli(daemon, "memory", "export", str(tmp_path / "out.jsonl"))
            assert exported.returncode == 1
            assert "needs the database" in exported.stderr
            assert "Traceback" not in exported.stderr
        finally:
            daemon.stop()
