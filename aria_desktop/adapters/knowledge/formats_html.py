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
_BLOCKS = frozenset(
    {"p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "figcaption", "caption", "address"}
)


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

    def emit(text: str) -> None:
        nonlocal offset
        body = " ".join(text.split())
        if body:
            doc.blocks.append(
                Block(text=body, heading=headings.path, start=offset, end=offset + len(body))
            )
            offset += len(body) + 2

    def visit(node: Any) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) is NavigableString:  # not comments, CDATA, doctype
                    emit(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            if child.name in _HEADINGS:
                headings.push(_HEADINGS[child.name], child.get_text(" ", strip=True))
            elif child.name in _BLOCKS:
                emit(child.get_text(" ", strip=True))
            else:
                visit(child)

    visit(root)
    return doc
