"""Scanned PDF pages read by OCR (real Tesseract through computer use's adapter).

The scans are made here: text drawn onto an image with Pillow, the image saved as a PDF page
(Pillow's PDF writer, or fpdf2 for a page of real text next to a scanned one), so the files
are what a scanner's software writes: a page that is one image and has no text layer.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.knowledge.ocr_cache import cached_page_ocr
from aria_desktop.adapters.knowledge.store import KnowledgeLimits, SQLiteKnowledgeStore
from aria_desktop.adapters.memory.embedding import LocalEmbedder
from aria_desktop.adapters.storage.database import Database
from aria_desktop.compose.knowledge import read_scanned_page
from aria_desktop.domain.knowledge import KnowledgeQuery
from tests.knowledge.conftest import LIMIT_BYTES

BOILER = "The boiler was serviced on\n12 March by Heating Direct.\nNext service is due in spring."
SPARE_KEY = "The spare key for the shed\nis hidden under the blue\nflowerpot next to the door."
TEXT_PAGE = "Garden notes. The roses are pruned in March and fed with compost in April."


def _scan(text: str) -> Any:
    """A page as a 150-dpi A5 scanner gives it: black text on white, one grayscale image."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("L", (874, 1240), 255)
    font = ImageFont.load_default(size=36)
    ImageDraw.Draw(page).multiline_text((70, 120), text, font=font, fill=0, spacing=18)
    return page


def write_scanned_pdf(path: Path, *texts: str) -> None:
    """A PDF with one scanned page (an image, no text) per text."""
    first, *rest = [_scan(text) for text in texts]
    first.save(path, format="PDF", resolution=150, save_all=True, append_images=rest)


def write_mixed_pdf(path: Path) -> None:
    """Page 1 real text, page 2 a scanned image."""
    from fpdf import FPDF

    pdf = FPDF(format=(148, 210))
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, TEXT_PAGE)
    pdf.add_page()
    pdf.image(_scan(SPARE_KEY), x=0, y=0, w=148)
    pdf.output(str(path))


def _store(db: Database, embedder: LocalEmbedder, **limits: Any) -> SQLiteKnowledgeStore:
    return SQLiteKnowledgeStore(
        db,
        embedder,
        limits=KnowledgeLimits(max_file_bytes=LIMIT_BYTES * 10, **limits),
        ocr=read_scanned_page,
    )


async def _top(store: SQLiteKnowledgeStore, question: str) -> tuple[str, int | None]:
    hits = await store.search(KnowledgeQuery(text=question, limit=1))
    assert hits, question
    return Path(hits[0].path).name, hits[0].page


async def test_a_scanned_pdf_is_read_by_ocr_and_cited_at_its_page(
    db: Database, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    store = _store(db, embedder)
    await store.open()
    write_scanned_pdf(tmp_path / "scan.pdf", BOILER, SPARE_KEY)
    source, report = await store.add(str(tmp_path / "scan.pdf"))
    assert report.problems == ()
    assert report.files_indexed == 1
    assert source.ocr_pages == 2
    assert source.state == "2 pages read by OCR"
    assert await _top(store, "where is the spare key of the shed hidden") == ("scan.pdf", 2)
    assert await _top(store, "when was the boiler serviced") == ("scan.pdf", 1)
    hit = (await store.search(KnowledgeQuery(text="blue flowerpot", limit=1)))[0]
    assert hit.target.endswith("scan.pdf#page=2")
    assert "flowerpot" in hit.text


async def test_a_mixed_pdf_keeps_its_text_page_and_reads_its_scanned_one(
    db: Database, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    store = _store(db, embedder)
    await store.open()
    write_mixed_pdf(tmp_path / "mixed.pdf")
    source, report = await store.add(str(tmp_path))
    assert report.problems == ()
    assert source.state == "1 page read by OCR"
    [file] = await store.files(str(source.id))
    assert (file.ocr_pages, file.problem) == (1, "")
    assert await _top(store, "spare key flowerpot") == ("mixed.pdf", 2)
    assert await _top(store, "when are the roses pruned") == ("mixed.pdf", 1)


async def test_without_tesseract_the_scanned_pages_are_reported_and_the_rest_indexed(
    db: Database, embedder: LocalEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # Tesseract is not found by the OCR adapter
    folder = tmp_path / "docs"
    folder.mkdir()
    write_mixed_pdf(folder / "mixed.pdf")
    write_scanned_pdf(folder / "scan.pdf", BOILER)
    store = _store(db, embedder)
    await store.open()
    source, report = await store.add(str(folder))
    problems = {Path(p.path).name: p for p in report.problems}
    assert problems.keys() == {"mixed.pdf", "scan.pdf"}
    mixed, scan = problems["mixed.pdf"], problems["scan.pdf"]
    assert (mixed.code, mixed.partial) == ("no_text", True)
    assert "1 page(s) without text (scanned images?): 2" in mixed.message
    assert "Tesseract is not installed" in mixed.message
    assert "apt-get install tesseract-ocr" in mixed.message
    assert (scan.code, scan.partial) == ("no_text", False)
    assert "no text on any of its 1 page(s)" in scan.message
    assert "Tesseract is not installed" in scan.message
    assert source.ocr_pages == 0
    assert source.state == ""
    assert await _top(store, "when are the roses pruned") == ("mixed.pdf", 1)
    assert not await store.search(KnowledgeQuery(text="flowerpot", limit=3, min_similarity=1))


async def test_ocr_is_bounded_by_pages_per_document_and_time_per_page(
    db: Database, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    write_scanned_pdf(tmp_path / "two.pdf", BOILER, SPARE_KEY)
    store = _store(db, embedder, ocr_max_pages=1)
    await store.open()
    source, report = await store.add(str(tmp_path / "two.pdf"))
    [problem] = report.problems
    assert problem.partial
    assert "1 scanned page(s) not read by OCR: 2 (at most 1 pages per document" in problem.message
    assert source.ocr_pages == 1
    assert await _top(store, "when was the boiler serviced") == ("two.pdf", 1)

    hurried = _store(db, embedder, ocr_page_timeout_s=0.01)
    await hurried.open()
    report = await hurried.rescan(str(source.id), force=True)
    [problem] = report.problems
    assert problem.code == "no_text"
    assert "OCR of page(s) 1, 2 took over 0.01 s and was stopped" in problem.message


async def test_a_scanned_page_is_read_by_ocr_once_however_often_its_pdf_is_indexed(
    db: Database, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    pages: list[str] = []

    def counted(image: Any, timeout_s: float) -> str:
        text = read_scanned_page(image, timeout_s)
        pages.append(text)
        return text

    cache = tmp_path / "cache" / "ocr"
    store = SQLiteKnowledgeStore(
        db,
        embedder,
        limits=KnowledgeLimits(max_file_bytes=LIMIT_BYTES * 10),
        ocr=cached_page_ocr(counted, cache),
    )
    await store.open()
    pdf = tmp_path / "scan.pdf"
    write_scanned_pdf(pdf, BOILER, SPARE_KEY)
    source, _report = await store.add(str(pdf))
    assert len(pages) == 2
    await store.rescan(str(source.id), force=True)  # aria knowledge reindex
    assert len(pages) == 2
    write_scanned_pdf(pdf, BOILER, SPARE_KEY, TEXT_PAGE)  # a page scanned and appended
    await store.rescan(str(source.id))
    assert len(pages) == 3  # only the new page
    assert await _top(store, "when are the roses pruned") == ("scan.pdf", 3)
    assert await _top(store, "where is the spare key of the shed hidden") == ("scan.pdf", 2)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700  # the texts are the user's documents


def test_an_unwritable_ocr_cache_still_reads_the_page(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    calls: list[float] = []

    def read(image: Any, timeout_s: float) -> str:
        calls.append(timeout_s)
        return "Page text"

    cached = cached_page_ocr(read, blocked / "ocr")
    page = _scan("Hello")
    assert [cached(page, 5.0), cached(page, 5.0)] == ["Page text", "Page text"]
    assert calls == [5.0, 5.0]  # nothing kept, nothing lost
