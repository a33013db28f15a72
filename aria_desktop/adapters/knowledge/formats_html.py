"""HTML: the main content (not menus, headers, footers or scripts) under its heading path.

Beautiful Soup (MIT) with the standard library's parser. The page's ``<main>`` or
``<article>`` is read when there is one, else the body; navigation, banners, asides, forms
and elements whose id or class says menu, nav, sidebar, footer, cookie or breadcrumb are
dropped first. Offsets are into the extracted text (blocks joined by blank lines).
"""

from __future__ import annotations

import re
from typing import Any

from aria_desktop.adapters.knowledge.document import Block, Document, HeadingStack

__all__ = ["html_document"]

_DROP_TAGS = (
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form",
    "button", "iframe", "svg", "menu",
)  # fmt: skip
_DROP_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
_BOILERPLATE = re.compile(r"(^|[-_ ])(nav|navbar|menu|sidebar|footer|cookie|breadcrumbs?)($|[-_ ])")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset({"p", "li", "pre", "blockquote", "dd", "dt", "figcaption", "address"})
_INLINE = frozenset(
    {
        "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i",
        "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strong", "sub",
        "sup", "time", "u", "var", "wbr", "font",
    }
)  # fmt: skip
"""Tags inside running text: their words belong to the sentence around them."""


def _is_boilerplate(tag: Any) -> bool:
    if tag.name in ("html", "body", "main", "article"):
        return False
    if str(tag.get("role", "")).lower() in _DROP_ROLES:
        return True
    names = " ".join([str(tag.get("id", "")), *(str(c) for c in tag.get("class", []) or [])])
    return bool(_BOILERPLATE.search(names.lower()))


def html_document(markup: str, title: str) -> Document:
    """Blocks of an HTML page's main content."""
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, Tag

    soup = BeautifulSoup(markup, "html.parser")
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for tag in [t for t in soup.find_all(True) if isinstance(t, Tag) and _is_boilerplate(t)]:
        if not tag.decomposed:
            tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    doc = Document(title=page_title or title)
    headings = HeadingStack()
    offset = 0

    def emit(text: str, heading: tuple[str, ...] | None = None) -> None:
        nonlocal offset
        body = " ".join(text.split())
        if body:
            path = headings.path if heading is None else heading
            doc.blocks.append(Block(text=body, heading=path, start=offset, end=offset + len(body)))
            offset += len(body) + 2

    def visit(node: Any) -> None:
        running: list[str] = []  # text and inline tags between two blocks: one sentence
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) is NavigableString:  # not comments, CDATA, doctype
                    running.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            if child.name in _INLINE:
                running.append(" " if child.name == "br" else child.get_text(" "))
                continue
            emit("".join(running))
            running.clear()
            if child.name in _HEADINGS:
                headings.push(_HEADINGS[child.name], child.get_text(" ", strip=True))
            elif child.name in _BLOCKS:
                emit(child.get_text(" ", strip=True))
            elif child.name == "table":
                for row, caption in table_rows(child):
                    emit(row, headings.path + caption)
            else:
                visit(child)
        emit("".join(running))

    visit(root)
    return doc


def table_rows(table: Any) -> list[tuple[str, tuple[str, ...]]]:
    """Each row of an HTML table as one line, cells named by their column headers.

    A row under a header row reads "Day: Monday; Bin: green" so a question about a column finds
    it; a table without headers joins its cells with " | ". The caption, when there is one,
    is added to the rows' heading path so every row keeps what the table is about.
    """
    caption_tag = table.find("caption")
    caption = (" ".join(caption_tag.get_text(" ").split()),) if caption_tag else ()
    header: list[str] = []
    lines: list[tuple[str, tuple[str, ...]]] = []
    for tr in table.find_all("tr"):
        cells = tr.find_all(["td", "th"], recursive=False)
        texts = [" ".join(cell.get_text(" ").split()) for cell in cells]
        if not any(texts):
            continue
        if not header and all(cell.name == "th" for cell in cells):
            header = texts
            continue
        if header and len(header) == len(texts):
            line = "; ".join(f"{h}: {t}" if h else t for h, t in zip(header, texts, strict=True))
        else:
            line = " | ".join(t for t in texts if t)
        lines.append((line, caption))
    return lines
