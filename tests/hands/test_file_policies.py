"""The file tools' own policies: what runs at once, what asks (with which words), what is
refused — called directly on the tools, against a temporary home."""

from __future__ import annotations

from typing import Any

import pytest

from aria_desktop.core.tools import PolicyDecision, Tool
from aria_desktop.domain.errors import FileOperationError
from tests.hands.conftest import Home, make_hands


def _tool(home: Home, name: str) -> Tool:
    return next(t for t in make_hands(home).tools() if t.name == name)


async def _decide(home: Home, name: str, arguments: dict[str, Any]) -> PolicyDecision:
    policy = _tool(home, name).policy
    assert policy is not None
    return await policy(arguments)


async def test_trash_words_count_files_and_folders(home: Home) -> None:
    (home.home / "Downloads" / "old").mkdir()
    mixed = await _decide(home, "file_trash", {"paths": ["Downloads/a.txt", "Downloads/old"]})
    assert mixed.verdict == "confirm"
    assert mixed.summary.startswith("Moves 2 items to the trash in ~/Downloads:\n")
    assert "  ~/Downloads/old" in mixed.summary
    folders = await _decide(home, "file_trash", {"paths": ["Downloads/old", "Documents"]})
    assert folders.reason.startswith("moves 2 folders to the trash in 2 folders")
    missing = await _decide(home, "file_trash", {"paths": ["Downloads/nope.txt"]})
    assert (missing.verdict, missing.rule) == ("deny", "files:trash-missing")


async def test_creating_runs_at_once_and_overwriting_asks_with_the_diff(home: Home) -> None:
    new = await _decide(home, "file_write", {"path": "Documents/new.txt", "content": "x\n"})
    assert (new.verdict, new.rule) == ("allow", "files:create")
    over = {"path": "Documents/notes.txt", "content": "alpha\n", "overwrite": True}
    replace = await _decide(home, "file_write", over)
    assert replace.verdict == "confirm"
    assert "-beta\n-gamma" in replace.summary


async def test_an_ambiguous_edit_changes_nothing_and_says_where(home: Home) -> None:
    (home.home / "Documents" / "dup.txt").write_text("x\ny\nx\n")
    arguments = {"path": "Documents/dup.txt", "old_text": "x", "new_text": "z"}
    decision = await _decide(home, "file_edit", arguments)
    assert (decision.verdict, decision.rule) == ("allow", "files:no-change")
    with pytest.raises(FileOperationError, match=r"occurs 2 times .*lines 1, 3"):
        await _tool(home, "file_edit").handler(arguments)
    assert (home.home / "Documents" / "dup.txt").read_text() == "x\ny\nx\n"


async def test_moves_are_listed_and_a_replaced_target_is_named(home: Home) -> None:
    moves = {"moves": [{"source": "Downloads/a.txt", "target": "Downloads/b.txt"}]}
    refused = await _decide(home, "file_move", moves)
    assert (refused.verdict, refused.rule) == ("deny", "files:move-invalid")
    decision = await _decide(home, "file_move", {**moves, "overwrite": True})
    assert decision.verdict == "confirm"
    assert "~/Downloads/a.txt -> ~/Downloads/b.txt (replacing it" in decision.summary
