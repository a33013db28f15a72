"""``aria knowledge`` as a user runs it: a real process, its own data folders, no owner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.knowledge.corpus import write_corpus
from tests.test_cli import aria, aria_env, no_traceback

__all__ = ["aria_env"]  # the fixture, shared with tests/test_cli.py


def test_add_search_list_status_remove_and_errors(aria_env: dict[str, str], tmp_path: Path) -> None:
    env = {**aria_env, "ARIA_MEMORY__EMBEDDER": "none"}  # keywords only: no model to load
    corpus = write_corpus(tmp_path / "docs")
    (corpus / "locked.pdf").write_bytes(b"%PDF-1.7 garbage")
    added = aria(env, "knowledge", "add", str(corpus), "--watch")
    no_traceback(added)
    assert added.returncode == 0, added.stderr
    assert "4 files indexed" in added.stdout
    assert "! malformed:" in added.stderr
    assert "locked.pdf" in added.stderr
    again = aria(env, "knowledge", "add", str(corpus))
    assert "0 files indexed, 5 unchanged" in again.stdout

    found = aria(env, "knowledge", "search", "monthly rent", "--json")
    hits = json.loads(found.stdout)
    assert hits[0]["heading"] == "Lease agreement > Rent"
    assert hits[0]["path"].endswith("lease.docx")
    assert hits[0]["target"].startswith("file://")

    listed = aria(env, "knowledge", "list", "--json")
    (source,) = json.loads(listed.stdout)
    assert source["watch"] is True
    assert source["files"] == 5
    assert source["problems"] == 1
    status = json.loads(aria(env, "knowledge", "status", "--json").stdout)
    assert status["watching"] == [str(corpus)]
    assert status["missing"] == []

    shutil.rmtree(corpus)
    rescanned = aria(env, "knowledge", "reindex", "--changed-only")
    no_traceback(rescanned)
    assert "5 removed" in rescanned.stdout
    assert f"! missing: {corpus} is missing (deleted or moved?)" in rescanned.stderr
    assert "folder missing" in aria(env, "knowledge", "list").stdout
    shown = aria(env, "knowledge", "status").stdout
    assert f"watching {corpus} (folder missing)" in shown

    missing = aria(env, "knowledge", "add", str(tmp_path / "nowhere"))
    no_traceback(missing)
    assert missing.returncode == 1
    assert "does not exist" in missing.stderr

    removed = aria(env, "knowledge", "remove", str(source["id"]))
    assert removed.returncode == 0
    assert "Removed" in removed.stdout
    empty = aria(env, "knowledge", "list")
    assert "No sources yet" in empty.stderr
