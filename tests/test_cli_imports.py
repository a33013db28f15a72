"""What ``aria`` imports before it knows the command: start-up cost is kept by not importing.

Each check runs in a fresh interpreter, because this test process has imported everything.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest


def _run_probe(code: str, candidates: tuple[str, ...]) -> tuple[str, list[str]]:
    """What ``code`` printed in a fresh interpreter, and which ``candidates`` it imported."""
    names = f"' '.join(m for m in {candidates!r} if m in sys.modules)"
    probe = f"{code}\nimport sys\nprint('\\nimported:', {names})"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    printed, _, imported = out.stdout.rpartition("\nimported:")
    return printed, imported.split()


def _imported_after(code: str, candidates: tuple[str, ...]) -> list[str]:
    """Which of ``candidates`` a fresh interpreter has imported after running ``code``."""
    return _run_probe(code, candidates)[1]


def test_building_the_parser_imports_no_events_ports_storage_or_numerics() -> None:
    heavy = (
        "aria_desktop.domain.events",
        "aria_desktop.domain.commands",
        "aria_desktop.domain.computer",
        "aria_desktop.domain.audio",
        "aria_desktop.core.ports",
        "aria_desktop.core.computer",
        "aria_desktop.adapters.storage.database",
        "aria_desktop.adapters.storage.conversations",
        "numpy",
        "scipy",
        "httpx",
    )
    code = "from aria_desktop.cli import build_parser\nbuild_parser()"
    assert _imported_after(code, heavy) == []


def test_the_composition_root_imports_computer_use_only_when_it_builds_it() -> None:
    assert _imported_after("import aria_desktop.compose.app", ("aria_desktop.core.computer",)) == []


@pytest.mark.parametrize(
    "name", ["Database", "SQLiteConversationStore", "read_owner", "fuse", "VectorIndex"]
)
def test_the_storage_package_still_exports_its_public_names(name: str) -> None:
    import aria_desktop.adapters.storage as storage

    assert name in storage.__all__
    assert getattr(storage, name).__name__ == name


def test_reading_the_owner_lock_does_not_import_the_database() -> None:
    code = "from aria_desktop.adapters.storage import read_owner"
    assert _imported_after(code, ("aria_desktop.adapters.storage.database",)) == []


#: What a command that goes through a running owner never needs: the owner's own services,
#: the turn and computer-use types, the core's protocols, the event stream, the web server.
_NOT_ON_THE_OWNER_PATH = (
    "aria_desktop.compose.owner",
    "aria_desktop.compose.app",
    "aria_desktop.domain.events",
    "aria_desktop.domain.commands",
    "aria_desktop.domain.computer",
    "aria_desktop.domain.chat",
    "aria_desktop.domain.audio",
    "aria_desktop.core.ports",
    "aria_desktop.api.client.subscription",
    "aria_desktop.api.client.operations.chat",
    "aria_desktop.api.client.operations.commands",
    "aria_desktop.adapters.storage.database",
    "aria_desktop.adapters.storage.conversations",
    "fastapi",
    "uvicorn",
    "pydantic",
    "anthropic",
    "numpy",
)


def test_the_api_client_imports_no_turn_types_ports_or_event_stream() -> None:
    code = "import aria_desktop.api.client.api_client\nimport aria_desktop.compose.assistant"
    assert _imported_after(code, _NOT_ON_THE_OWNER_PATH) == []


def test_every_operation_table_is_complete_by_area() -> None:
    from aria_desktop.api.client.operations import chat, commands, control, memory
    from aria_desktop.domain.commands import ClickText
    from aria_desktop.domain.memory import MemoryQuery

    for area in (chat, commands, control, memory):
        for name in area.__all__:
            assert getattr(area, name) is not None, f"{area.__name__}.{name}"
    assert commands.COMMANDS[ClickText].after_streams
    assert memory.SEARCH_MEMORIES.path(MemoryQuery(text="x")) == "/memories/search"


class _FakeOwner(http.server.BaseHTTPRequestHandler):
    """The two answers ``aria memory search`` needs from a running owner's API."""

    requests: ClassVar[list[tuple[str, str, dict[str, Any]]]] = []

    def _answer(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.requests.append(("GET", self.path, {}))
        self._answer({"state": "idle"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.requests.append(("POST", self.path, json.loads(self.rfile.read(length))))
        hit = {"memory": {"id": "mem_0a1b2c", "content": "I prefer dark themes"}, "score": 0.5}
        self._answer([hit])

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test's output clean."""


@pytest.fixture
def fake_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[tuple[str, str, dict[str, Any]]]]:
    """A process that owns the database (the lock names this one) and answers on its API."""
    for name in ("config", "data", "state", "cache", "runtime"):
        monkeypatch.setenv(f"ARIA_{name.upper()}_DIR", str(tmp_path / name))
    monkeypatch.delenv("ARIA_API__HOST", raising=False)
    for scheme in ("http", "https", "all", "no"):
        monkeypatch.delenv(f"{scheme}_proxy", raising=False)
        monkeypatch.delenv(f"{scheme.upper()}_PROXY", raising=False)
    from aria_desktop import paths
    from aria_desktop.adapters.storage.owner_lock import OwnerLock
    from aria_desktop.api.token import TokenFile

    TokenFile(paths.api_token_path()).ensure()
    _FakeOwner.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeOwner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    lock = OwnerLock(paths.database_path())
    lock.acquire(port=server.server_address[1])
    try:
        yield _FakeOwner.requests
    finally:
        lock.release()
        server.shutdown()
        server.server_close()
        thread.join()


def test_memory_search_through_a_running_owner_imports_only_what_it_uses(
    fake_owner: list[tuple[str, str, dict[str, Any]]],
) -> None:
    code = (
        "from aria_desktop.cli import main\nassert main(['memory', 'search', 'dark themes']) == 0"
    )
    printed, imported = _run_probe(code, _NOT_ON_THE_OWNER_PATH)
    assert imported == []
    assert "mem_0a1b2c" in printed
    assert "I prefer dark themes" in printed
    assert [(method, path) for method, path, _ in fake_owner] == [
        ("GET", "/api/v1/state"),
        ("POST", "/api/v1/memories/search"),
    ]
    assert fake_owner[1][2]["query"] == "dark themes"
