"""A held-out measure of knowledge search: a household's documents and the questions they answer.

``aria bench knowledge`` indexes this corpus into one knowledge base and asks every question;
Recall@1 and Recall@5 (is a passage of the answering file, on the right page for PDFs, among
the first 1 or 5 results) are reported per kind of question and per file format.

The documents are what a person keeps on their computer: appliance manuals, letters, reports
and invoices (PDF), contracts, policies and timetables (DOCX), saved web pages with their
menus, cookie banners, sidebars and footers (HTML), notes and recipes (Markdown, plain text).
Look-alikes are there on purpose, so that a careless search picks the wrong one: two
appliance manuals with warranty and cleaning sections, recipes with oven temperatures, car
and home insurance, council pages about bins and about the recycling centre.

There are two halves with disjoint topics, households and styles of writing and of asking:
``tune`` (``knowledge_corpus_tune``) and ``check`` (``knowledge_corpus_check``). Both are
indexed together, so each half is a distractor for the other, but search settings are tuned
on ``tune`` only; ``check``'s figures are the held-out measure.

Kinds of question (``KINDS``):

* ``keyword``: shares distinctive words with the answering passage;
* ``paraphrase``: shares almost no content words with it (synonyms, everyday wording);
* ``table``: the answer is a cell of a table, asked for by its row in other words;
* ``current``: a newer version of a document (same title, says it replaces the old one,
  later modification time) changed the value; the question names no year or version, and
  only the newer file answers it.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from aria_desktop.bench import knowledge_corpus_check as _check
from aria_desktop.bench import knowledge_corpus_tune as _tune
from aria_desktop.domain.errors import AriaError

__all__ = ["HALVES", "KINDS", "Question", "write_quality_corpus"]

HALVES = ("tune", "check")
KINDS = ("keyword", "paraphrase", "table", "current")

_DATA: Mapping[str, tuple[Mapping[str, str], Mapping[str, tuple[tuple[str, str, str], ...]]]] = {
    "tune": (_tune.DOCUMENTS, _tune.QUESTIONS),
    "check": (_check.DOCUMENTS, _check.QUESTIONS),
}
_UPDATES = {"tune": _tune.UPDATES, "check": _check.UPDATES}
_FIRST_DAY = datetime(2024, 9, 2, 9, 30, tzinfo=UTC)
"""Modification time of the first document of a half; the next ones follow a day apart."""


@dataclass(frozen=True, kw_only=True)
class Question:
    """One question and the passage that answers it."""

    text: str
    """The question as a person would type it."""
    file: str
    """The answering file, relative to the corpus folder (e.g. ``tune/boiler-manual.pdf``)."""
    needle: str
    """A short string that occurs verbatim in the answering passage (and in no other of it)."""
    kind: str
    """One of ``KINDS``."""
    half: str
    """One of ``HALVES``."""
    page: int | None = None
    """1-based PDF page holding the answer (PDFs only), else None."""


def write_quality_corpus(folder: Path) -> tuple[Question, ...]:
    """Write every document under folder/tune/ and folder/check/ and return all questions."""
    questions: list[Question] = []
    for half in HALVES:
        documents, asked = _DATA[half]
        target = folder / half
        target.mkdir(parents=True, exist_ok=True)
        for number, (name, source) in enumerate(documents.items()):
            path = target / name
            _WRITERS[path.suffix](path, source)
            _touch(path, _FIRST_DAY.timestamp() + number * 86_400)
        for older, newer, older_day, newer_day in _UPDATES[half]:
            _touch(target / older, _day(older_day).timestamp())
            _touch(target / newer, _day(newer_day).timestamp())
        for kind, rows in asked.items():
            for where, needle, text in rows:
                name, _, page = where.partition("#")
                questions.append(
                    Question(
                        text=text,
                        file=f"{half}/{name}",
                        needle=needle,
                        kind=kind,
                        half=half,
                        page=int(page) if page else None,
                    )
                )
    return tuple(questions)


def _day(iso: str) -> datetime:
    """Noon (UTC) of an ISO date."""
    return datetime.fromisoformat(iso).replace(hour=12, tzinfo=UTC)


def _touch(path: Path, stamp: float) -> None:
    os.utime(path, (stamp, stamp))


def _write_text(path: Path, source: str) -> None:
    """Markdown and plain text: the source is the file."""
    path.write_text(source, encoding="utf-8")


_CLAUSE = re.compile(r"\d+\.\d+ ")
_MARKS: tuple[tuple[str, str], ...] = (
    ("@title ", "meta"),
    ("== ", "page"),
    ("= ", "title"),
    ("## ", "h2"),
    ("# ", "h1"),
    ("- ", "item"),
    ("|", "row"),
)
"""Line prefix -> kind of block, in the order they are tried."""


def _blocks(source: str) -> Iterator[tuple[str, str]]:
    """(kind, text) of the small markup PDFs and DOCX are written from.

    ``@title`` the document's title, ``= `` a Word title, ``# ``/``## `` Word headings,
    ``== `` a new PDF page with its section title, ``- `` a list item, ``|`` a table row;
    other lines are paragraphs, which run until a blank line, a marked line or a numbered
    clause (``3.2 ``).
    """
    paragraph: list[str] = []
    for line in [*source.splitlines(), ""]:
        text = line.strip()
        mark = next(((prefix, kind) for prefix, kind in _MARKS if text.startswith(prefix)), None)
        if (not text or mark or _CLAUSE.match(text)) and paragraph:
            yield "paragraph", " ".join(paragraph)
            paragraph = []
        if mark:
            prefix, kind = mark
            yield kind, text if kind == "row" else text.removeprefix(prefix).strip()
        elif text:
            paragraph.append(text)


def _write_pdf(path: Path, source: str) -> None:
    """One page per ``== section``, with the manual's title and page number at the top."""
    try:
        from fpdf import FPDF
        from fpdf.enums import XPos, YPos
    except ImportError as exc:
        raise AriaError(
            "The quality set writes its PDFs with fpdf2, which is not installed.",
            hint="Install the development extra: pip install 'aria-desktop[dev]'.",
        ) from exc

    blocks = list(_blocks(source))
    title = next(text for kind, text in blocks if kind == "meta")
    pages = sum(kind == "page" for kind, _ in blocks)
    pdf = FPDF(format="A4")
    pdf.set_title(title)
    pdf.set_creation_date(_FIRST_DAY)
    pdf.set_auto_page_break(auto=True, margin=15)
    for kind, text in blocks:
        if kind == "page":
            pdf.add_page()
            pdf.set_font("Helvetica", size=8)
            pdf.multi_cell(0, 5, f"{title} - page {pdf.page_no()} of {pages}")
            pdf.set_xy(pdf.l_margin, pdf.get_y() + 3)
            pdf.set_font("Helvetica", style="B", size=14)
            pdf.multi_cell(0, 9, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.set_font("Helvetica", size=11)
        elif kind in ("paragraph", "item"):
            body = f"- {text}" if kind == "item" else text
            pdf.multi_cell(0, 7, body, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(1 if kind == "item" else 3)
    if pdf.page_no() != pages:
        raise ValueError(f"{path.name}: a section runs over its page")
    pdf.output(str(path))


def _write_docx(path: Path, source: str) -> None:
    """Word title and heading styles, paragraphs, bulleted lists and tables (first row bold)."""
    import docx

    document = docx.Document()
    document.core_properties.created = _FIRST_DAY
    document.core_properties.modified = _FIRST_DAY
    rows: list[list[str]] = []
    for kind, text in [*_blocks(source), ("end", "")]:
        if kind == "row":
            rows.append([cell.strip() for cell in text.strip().strip("|").split("|")])
            continue
        if rows:
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, cells in enumerate(rows):
                for c, value in enumerate(cells):
                    table.cell(r, c).text = value
                    if r == 0:
                        table.cell(r, c).paragraphs[0].runs[0].bold = True
            rows = []
        if kind == "title":
            document.core_properties.title = text
            document.add_heading(text, level=0)
        elif kind in ("h1", "h2"):
            document.add_heading(text, level=int(kind[1]))
        elif kind == "item":
            document.add_paragraph(text, style="List Bullet")
        elif kind == "paragraph":
            document.add_paragraph(text)
    document.save(str(path))


_COOKIES = (
    "<p>We use cookies to make this site work and to see how it is used. You can accept all "
    "cookies or choose which ones to allow.</p><button>Accept all</button> "
    '<button>Reject non-essential</button> <a href="/cookies">Cookie settings</a>'
)
_SOCIAL = (
    '<a href="https://facebook.com/">Facebook</a> <a href="https://x.com/">X</a> '
    '<a href="https://instagram.com/">Instagram</a>'
)
_NEWSLETTER = (
    '<form class="newsletter"><label>Get our newsletter <input type="email" '
    'placeholder="Your email"></label><button>Sign up</button></form>'
)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _write_html(path: Path, source: str) -> None:
    """A saved web page: the source's content inside its site's header, menus and footer.

    The source starts with ``@site name | layout | menu, items`` and ``@related titles``; the
    layouts are ``main`` (header, cookie banner, breadcrumbs, main, aside, footer),
    ``article`` (no main: an article beside a "Popular" sidebar), ``content`` (an old site:
    divs with menu and footer classes around ``div.content``) and ``page`` (``div#page``
    with banner, primary and complementary regions).
    """
    head, related, body = source.split("\n", 2)
    site, layout, menu = (part.strip() for part in head.removeprefix("@site ").split("|"))
    items = [item.strip() for item in menu.split(",")]
    links = "".join(f'<li><a href="/{_slug(i)}">{html.escape(i)}</a></li>' for i in items)
    side = "".join(
        f'<li><a href="/{_slug(t)}">{html.escape(t.strip())}</a></li>'
        for t in related.removeprefix("@related ").split(",")
    )
    match = re.search(r"<h1>(.*?)</h1>", body)
    title = match.group(1) if match else path.stem
    name = html.escape(site)
    crumbs = f'<a href="/">Home</a> &gt; <a href="/{_slug(items[0])}">{items[0]}</a> &gt; {title}'
    legal = f"<p>&copy; 2025 {name}. All rights reserved.</p>"
    if layout == "main":
        page = (
            f'<div class="cookie-banner" role="dialog">{_COOKIES}</div>\n'
            f'<header class="site-header"><a class="logo" href="/">{name}</a>\n'
            f'<nav aria-label="Main"><ul>{links}</ul></nav></header>\n<main id="content">\n'
            f'<nav class="breadcrumbs">{crumbs}</nav>\n<article>\n{body}</article>\n'
            f"<aside><h2>Related articles</h2><ul>{side}</ul></aside>\n</main>\n"
            f"<footer><p>Follow us: {_SOCIAL}</p>{_NEWSLETTER}{legal}</footer>"
        )
    elif layout == "article":
        page = (
            f'<header><p class="logo">{name}</p><nav><ul>{links}</ul></nav></header>\n'
            f'<div class="wrapper">\n<article>\n{body}<p class="share">Share this: '
            f"{_SOCIAL}</p>\n</article>\n"
            f'<div class="sidebar"><h3>Popular</h3><ul>{side}</ul>{_NEWSLETTER}</div>\n</div>\n'
            f"<footer>{legal}<p>{_SOCIAL}</p></footer>"
        )
    elif layout == "content":
        page = (
            f'<div id="header"><p class="logo">{name}</p><ul class="menu">{links}</ul></div>\n'
            f'<div class="breadcrumb">{crumbs}</div>\n<div class="content">\n{body}</div>\n'
            f'<div class="sidebar"><h3>Related pages</h3><ul>{side}</ul></div>\n'
            f'<div id="cookie-notice">{_COOKIES}</div>\n'
            f'<div class="footer">{legal}<p>{_SOCIAL}</p></div>'
        )
    else:
        page = (
            f'<div id="page">\n<div id="masthead" role="banner"><p class="site-title">{name}'
            f'</p><ul class="nav-menu">{links}</ul></div>\n<div id="primary">\n'
            f'<p class="breadcrumbs">{crumbs}</p>\n{body}</div>\n'
            f'<div id="secondary" role="complementary"><h3>Popular posts</h3><ul>{side}</ul>'
            f'{_NEWSLETTER}</div>\n<div id="colophon" class="site-footer">{legal}</div>\n</div>'
        )
    path.write_text(
        f'<!DOCTYPE html>\n<html lang="en-GB">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title} | {name}</title>\n"
        f'<link rel="stylesheet" href="/assets/site.css">\n'
        f'<script src="/assets/analytics.js"></script>\n</head>\n<body>\n{page}\n</body>\n'
        f"</html>\n",
        encoding="utf-8",
    )


_WRITERS = {
    ".md": _write_text,
    ".txt": _write_text,
    ".html": _write_html,
    ".pdf": _write_pdf,
    ".docx": _write_docx,
}
