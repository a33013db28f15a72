"""URL sources fetched over real HTTP from a local test server: pages, PDFs, failures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.domain.errors import KnowledgeError
from aria_desktop.domain.knowledge import KnowledgeQuery
from tests.fakes.http_server import FakeHTTPServer, Reply
from tests.knowledge.conftest import LIMIT_BYTES
from tests.knowledge.corpus import RECIPES_HTML, write_pdf


@pytest.fixture
def web() -> Iterator[FakeHTTPServer]:
    with FakeHTTPServer() as server:
        yield server


def _page(html: str) -> Reply:
    return Reply(headers={"Content-Type": "text/html; charset=utf-8"}, body=html.encode())


async def test_a_web_page_is_indexed_and_an_unchanged_refetch_is_a_no_op(
    store: SQLiteKnowledgeStore, web: FakeHTTPServer
) -> None:
    url = f"{web.url}/recipes"
    web.script("/recipes", _page(RECIPES_HTML), _page(RECIPES_HTML))
    source, report = await store.add(url)
    assert source.kind == "url"
    assert report.files_indexed == 1
    hit = (await store.search(KnowledgeQuery(text="apple pie oven temperature", limit=1)))[0]
    assert hit.path == url
    assert hit.heading == "Grandma's recipes > Apple pie"
    assert hit.target == url  # opens the page itself
    again = await store.rescan(url)
    assert again.files_unchanged == 1
    assert again.chunks_embedded == 0


async def test_a_pdf_url_failures_and_limits_are_per_source_problems(
    store: SQLiteKnowledgeStore, web: FakeHTTPServer, tmp_path: Path
) -> None:
    write_pdf(tmp_path / "m.pdf", ("First page.", "The boiler pressure should be 1.5 bar."))
    web.script(
        "/manual",
        Reply(headers={"Content-Type": "application/pdf"}, body=(tmp_path / "m.pdf").read_bytes()),
    )
    web.script("/gone", Reply(status=404, body=b"not here"))
    web.script("/big", Reply(headers={"Content-Type": "text/plain"}, body=b"x" * (LIMIT_BYTES + 1)))
    _source, report = await store.add(f"{web.url}/manual")
    assert report.files_indexed == 1
    hit = (await store.search(KnowledgeQuery(text="boiler pressure", limit=1)))[0]
    assert hit.page == 2
    assert hit.target == f"{web.url}/manual#page=2"
    _gone, gone = await store.add(f"{web.url}/gone")
    assert [(p.code, "HTTP 404" in p.message) for p in gone.problems] == [("fetch_failed", True)]
    _big, big = await store.add(f"{web.url}/big")
    assert [p.code for p in big.problems] == ["too_large"]
    with pytest.raises(KnowledgeError, match="not an http"):
        await store.add("file:///etc/passwd")
