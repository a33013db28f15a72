"""Computer-use test fixtures: a private Xvfb display, the PySide6 target app, and an
orchestrator wired like production (real router over HTTP to FakeOllama, real SQLite, real
audit log, real screen/OCR/input adapters)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.llm import BreakerPolicy, OllamaBackend, RetryPolicy, Router, Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.compose.tools import build_computer
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.computer.capability import ComputerUse
from aria_desktop.core.computer.task import ComputerAgent
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.tools import default_policy
from aria_desktop.settings import ComputerSettings, Settings
from tests.fakes import FakeAnthropic, FakeOllama
from tests.fakes.audit import MemoryAuditStore

REPO = Path(__file__).resolve().parents[2]
TARGET_APP = Path(__file__).with_name("target_app.py")
FAST = Timeouts(connect_s=1.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)


class TargetApp:
    """The running target app: send commands, read what it reports."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.ready = self.wait_for("ready", timeout_s=20)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                with self._cond:
                    self.events.append(event)
                    self._cond.notify_all()

    def send(self, cmd: str, **data: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, **data}) + "\n")
        self.proc.stdin.flush()

    def mark(self) -> int:
        with self._cond:
            return len(self.events)

    def wait_for(
        self,
        name: str,
        *,
        since: int = 0,
        timeout_s: float = 5.0,
        where: Callable[[dict[str, Any]], bool] = lambda event: True,
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                for event in self.events[since:]:
                    if event.get("event") == name and where(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"target app never reported {name!r}: {self.events[-5:]}")
                self._cond.wait(left)

    def since(self, mark: int, name: str | None = None) -> list[dict[str, Any]]:
        with self._cond:
            return [e for e in self.events[mark:] if name is None or e.get("event") == name]

    def clicks(self, mark: int) -> list[str]:
        return [e["widget"] for e in self.since(mark, "click")]

    def state(self) -> dict[str, Any]:
        """The app's fields, once it has handled all input sent before this call."""
        mark = self.mark()
        self.send("state")
        return self.wait_for("state", since=mark)

    def settle(self) -> None:
        """Return once every input event sent so far has reached the app (or never will).

        Checks that nothing was clicked or typed wait on this barrier, not on a sleep.
        """
        self.state()

    def command(self, cmd: str, reply: str, **data: Any) -> dict[str, Any]:
        mark = self.mark()
        self.send(cmd, **data)
        return self.wait_for(reply, since=mark)

    def reset(self) -> None:
        self.command("reset", "reset-done")


@contextlib.contextmanager
def running_target_app(env: dict[str, str] | None = None) -> Iterator[TargetApp]:
    """The target app in its own process (``env``: its environment), closed after."""
    proc = subprocess.Popen(
        [sys.executable, str(TARGET_APP)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
        env=env,
    )
    try:
        yield TargetApp(proc)
    finally:
        with contextlib.suppress(Exception):
            assert proc.stdin is not None
            proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def target_app(display: str) -> Iterator[TargetApp]:
    with running_target_app() as app:
        yield app


@pytest.fixture
def app(target_app: TargetApp) -> TargetApp:
    target_app.reset()
    return target_app


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@dataclasses.dataclass
class Rig:
    orchestrator: Orchestrator
    computer: ComputerUse
    agent: ComputerAgent
    audit: AuditLog
    router: Router


@pytest.fixture
async def rig_factory(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    display: str,
    ollama: FakeOllama,
    anthropic: FakeAnthropic,
) -> AsyncIterator[Callable[..., Any]]:
    """Build an orchestrator with computer use, wired as ``compose.app.build_app`` does."""
    monkeypatch.setenv("ARIA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ARIA_STATE_DIR", str(tmp_path / "state"))
    opened: list[tuple[Orchestrator, Router, Database]] = []

    async def make(
        *,
        ollama_capabilities: frozenset[str] = frozenset({"tools"}),
        confirm_timeout_s: float = 5.0,
        **computer: Any,
    ) -> Rig:
        options: dict[str, Any] = {"enabled": True, "max_actions_per_s": 100.0}
        options.update(computer)
        settings = dataclasses.replace(
            Settings(),
            computer=ComputerSettings(**options),
            agent=dataclasses.replace(Settings().agent, confirm_timeout_s=confirm_timeout_s),
        )
        db = await Database.open(tmp_path / f"aria{len(opened)}.db")
        store = SQLiteConversationStore(db)
        # Capabilities are learned from /api/show: the fake reports the ones asked for.
        ollama.capabilities = ["completion", *sorted(ollama_capabilities)]
        router = Router(
            {
                "ollama": OllamaBackend(
                    base_url=ollama.url,
                    model="qwen2.5vl:7b",
                    timeouts=FAST,
                    capabilities=ollama_capabilities,
                ),
                "anthropic": AnthropicBackend(
                    api_key="sk-ant-test-key-000000",
                    model="claude-sonnet-5-5",
                    base_url=anthropic.url,
                    timeouts=FAST,
                ),
            },
            {"chat": ("ollama", "anthropic")},
            retry=RetryPolicy(max_attempts=1, base_delay_s=0.0, max_delay_s=0.0),
            breaker=BreakerPolicy(failure_threshold=50, reset_s=30.0),
        )
        audit = AuditLog(MemoryAuditStore())
        computer_use = build_computer(settings, audit=audit, router=router)
        orchestrator = Orchestrator(
            model=router,
            store=store,
            audit=audit,
            policy=computer_use.policy_hook(default_policy),
            config=AgentConfig(flush_interval_s=0.05, confirm_timeout_s=confirm_timeout_s),
        )
        computer_use.install(orchestrator)
        agent = ComputerAgent(computer=computer_use, model=router)
        agent.install(orchestrator)
        opened.append((orchestrator, router, db))
        return Rig(orchestrator, computer_use, agent, audit, router)

    yield make
    for orchestrator, router, db in opened:
        await orchestrator.stop()
        await router.aclose()
        await db.close()
