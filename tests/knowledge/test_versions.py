"""A newer version of a document answers first; the older one stays findable below it.

People keep last year's bin calendar beside this year's and the old Wi-Fi note beside the new
one: both match a question equally by their words, and the answer wanted is the current one.
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path

from aria_desktop.adapters.knowledge import rows
from aria_desktop.adapters.knowledge.extract import EXTRACTION_VERSION
from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.adapters.knowledge.supersede import Candidate, document_family, newer_first
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.knowledge import KnowledgeQuery

_2023 = 1_683_100_000  # May 2023
_2025 = 1_741_800_000  # March 2025


def test_versions_of_a_title_or_file_name_share_a_family_without_years_and_version_words() -> None:
    assert document_family("bins-2024.html") == "bins"
    assert document_family("Bins 2025") == "bins"
    assert document_family("wifi-new.md") == document_family("wifi.txt") == "wifi"
    assert document_family("Price list v2 (updated March)") == "price list"
    assert document_family("2025-03-01.md") == ""  # a bare date is no family
    assert document_family("car insurance") != document_family("home insurance")


def _candidate(path: str, family: str, modified: int, vector: tuple[float, ...]) -> Candidate:
    blob = array("f", vector).tobytes()
    return Candidate(path=path, families=frozenset({family}), modified=modified, vector=blob)


def test_the_newer_versions_passage_moves_just_above_the_older_one_saying_the_same() -> None:
    old = _candidate("/d/wifi.txt", "wifi", 1, (1.0, 0.0))
    other = _candidate("/d/router.md", "router", 5, (0.0, 1.0))
    new = _candidate("/d/wifi-new.md", "wifi", 2, (0.8, 0.6))
    assert newer_first([old, other, new]) == [2, 0, 1]


def test_passages_of_versions_that_say_different_things_or_other_documents_keep_their_place() -> (
    None
):
    old = _candidate("/d/wifi.txt", "wifi", 1, (1.0, 0.0))
    unrelated_part = _candidate("/d/wifi-new.md", "wifi", 2, (0.0, 1.0))  # cosine 0
    newer_other_doc = _candidate("/d/router.md", "router", 9, (1.0, 0.0))
    assert newer_first([old, unrelated_part, newer_other_doc]) == [0, 1, 2]
    assert newer_first([]) == []


async def test_the_current_wifi_password_is_found_before_the_old_one_which_stays_below(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    old, new = docs / "wifi.txt", docs / "wifi-new.md"
    old.write_text("WI-FI DETAILS\n\nnetwork: Hollis-Home\npassword: copper-kettle-72\n")
    new.write_text("# Wi-Fi details\n\nnetwork: Hollis-Home\npassword: amber-fox-19\n")
    os.utime(old, (_2023, _2023))
    os.utime(new, (_2025, _2025))
    async with await Database.open(tmp_path / "aria.db") as db:
        store = SQLiteKnowledgeStore(db, embedder)
        await store.open()
        await store.add(str(docs))
        hits = await store.search(KnowledgeQuery(text="What is the Wi-Fi password?", limit=5))
        assert [Path(hit.path).name for hit in hits] == ["wifi-new.md", "wifi.txt"]
        os.utime(old, (_2025 + 60, _2025 + 60))  # the old note edited last: it is the newer now
        await store.rescan()
        hits = await store.search(KnowledgeQuery(text="What is the Wi-Fi password?", limit=5))
        assert Path(hits[0].path).name == "wifi.txt"


async def test_a_store_indexed_by_an_older_extraction_is_read_again_once(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("BOILER\n\nThe boiler is serviced every October.\n")
    async with await Database.open(tmp_path / "aria.db") as db:
        store = SQLiteKnowledgeStore(db, embedder)
        await store.open()
        assert not store.outdated_extraction  # an empty store is current
        await store.add(str(docs))
        await db.write(lambda conn: rows.record_extraction(conn, EXTRACTION_VERSION - 1))
        reopened = SQLiteKnowledgeStore(db, embedder)
        await reopened.open()
        assert reopened.outdated_extraction
        report = await reopened.rescan(force=True)
        assert report.files_indexed == 1
        again = SQLiteKnowledgeStore(db, embedder)
        await again.open()
        assert not again.outdated_extraction
        hits = await again.search(KnowledgeQuery(text="boiler service", limit=1))
        assert hits[0].heading == "BOILER"
