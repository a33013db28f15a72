"""A chat turn over the real HTTP API that lists, reads, edits and trashes files end to end:
the Ollama test server scripts the model's tool calls, the confirmations are answered through
``POST /api/v1/actions/{id}/confirm`` with the request's nonce."""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

from tests.api.conftest import Api
from tests.api.test_routes import answer_confirmation, read_sse
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls
from tests.hands.conftest import build_home, make_hands


async def test_a_turn_lists_reads_edits_and_trashes_with_api_confirmations(
    api: Api, ollama: FakeOllama, tmp_path: Path
) -> None:
    home = build_home(tmp_path / "fs")
    make_hands(home).install(api.orchestrator)
    ollama.script(
        "/api/chat",
        ollama_tool_calls([("file_list", {"path": "~/Downloads"})]),
        ollama_tool_calls([("file_read", {"path": "~/Documents/notes.txt"})]),
        ollama_tool_calls(
            [
                (
                    "file_edit",
                    {"path": "~/Documents/notes.txt", "old_text": "beta", "new_text": "BETA"},
                )
            ]
        ),
        ollama_tool_calls([("file_trash", {"paths": ["~/Downloads/a.txt", "~/Downloads/b.txt"]})]),
        ollama_text("Done: edited your notes and trashed the downloads."),
    )

    async def approve(name: str, data: Any) -> None:
        if name == "action-confirm-request":
            assert (await answer_confirmation(api.client, data)).status_code == 204

    async with api.client.stream("POST", "/api/v1/chat", json={"message": "tidy up"}) as response:
        frames = await read_sse(response, on_frame=approve)
    requests = [data for n, data in frames if n == "action-confirm-request"]
    assert [r["tool"] for r in requests] == ["file_edit", "file_trash"]
    edit, trash = requests
    assert "-beta" in edit["summary"]
    assert "+BETA" in edit["summary"]
    assert edit["reason"] == "changes the contents of a file"
    assert trash["summary"].startswith("Moves 2 files to the trash in ~/Downloads")
    results = {data["name"]: data for n, data in frames if n == "tool-result"}
    assert all(r["status"] == "ok" for r in results.values()), results
    assert '"a.txt"' in results["file_list"]["result"]
    assert frames[-1][1]["text"] == "Done: edited your notes and trashed the downloads."
    # The files really changed, restorably.
    assert (home.home / "Documents" / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"
    trash_dir = home.home / ".local" / "share" / "Trash"
    for name in ("a.txt", "b.txt"):
        assert not (home.home / "Downloads" / name).exists()
        assert (trash_dir / "files" / name).exists()
        info = configparser.ConfigParser(interpolation=None)
        info.read(trash_dir / "info" / f"{name}.trashinfo")
        assert info["Trash Info"]["Path"] == str(home.home / "Downloads" / name)
    # The model saw the file's text fenced as untrusted data.
    sent = ollama.requests_to("/api/chat")[2].json()["messages"]
    tool_text = next(m["content"] for m in sent if m["role"] == "tool" and "alpha" in m["content"])
    assert 'trust="untrusted"' in tool_text
