"""Finding the parts of an HTML page a reader would not see, so they never reach the model unseen.

Hidden elements are a classic carrier of prompt injections: text in ``display:none``, in an
element with the ``hidden`` attribute, pushed off screen, shrunk to nothing, or written in the
page's background colour. What the markup itself says can be told here — inline styles, the
page's own ``<style>`` rules for simple selectors (``.cls``, ``#id``, ``tag``), ``hidden``
attributes and colours — external stylesheets cannot (nothing else is fetched). The passages
are removed from the tree and returned, so the one scanner (``core/injection.py``) can flag
them (``ARCHITECTURE.md``, safety).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["remove_hidden"]

_MAX_PASSAGES = 40
_PASSAGE_CHARS = 600
_HIDING_RE = re.compile(
    r"display:none|visibility:(hidden|collapse)|font-size:0(\.0+)?(px|pt|em|rem|%)?(;|!|$)"
    r"|opacity:0(\.0+)?(;|!|$)|clip:rect\(0|clip-path:inset\(50%|text-indent:-\d{3,}"
    r"|(left|top):-\d{3,}(px|em|rem)|(height|width|max-height|max-width):0(px)?;.*overflow:hidden"
)
_RULE_RE = re.compile(r"([^{}@]+)\{([^{}]*)\}")
_AT_BLOCK_RE = re.compile(r"@[^{};]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}")
"""``@media``/``@supports`` blocks: what they hide depends on the screen (a phone layout's
twin of visible content), so their rules are not applied."""
_SIMPLE_SELECTOR_RE = re.compile(r"^([a-z][a-z0-9]*)?([.#][\w-]+)?$", re.IGNORECASE)
_NAMED = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "snow": (255, 250, 250),
    "ivory": (255, 255, 240),
    "whitesmoke": (245, 245, 245),
}
_SKIPPED_TAGS = frozenset(
    {"script", "style", "template", "noscript", "head", "title", "meta", "html", "body"}
)
"""Never judged: not text a reader sees, or the whole page (anti-flicker snippets hide
``<body>`` until scripts run, which would empty every such page)."""

Color = tuple[int, int, int]


def _declarations(style: str) -> str:
    """A style attribute or rule body, lower case, without spaces (``display:none;``)."""
    return re.sub(r"\s+", "", style.lower())


def _color(value: str) -> Color | None:
    value = value.strip().lower().removesuffix("!important")
    if value in _NAMED:
        return _NAMED[value]
    match = re.fullmatch(r"#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})", value)
    if match:
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)
    match = re.fullmatch(r"rgba?\((\d+),(\d+),(\d+)(,[\d.]+)?\)", value)
    if match:
        return int(match.group(1)), int(match.group(2)), int(match.group(3))
    return None


def _property(declarations: str, name: str) -> str | None:
    match = re.search(rf"(?:^|;){name}:([^;]+)", declarations)
    return match.group(1) if match else None


def _background(declarations: str) -> Color | None:
    value = _property(declarations, "background-color") or _property(declarations, "background")
    return _color(value) if value else None


class _Sheet:
    """The hiding and colour rules of the page's own ``<style>`` elements (simple selectors)."""

    def __init__(self, root: HtmlElement) -> None:
        self.hiding: list[tuple[str | None, str | None]] = []
        self.backgrounds: dict[str, Color] = {}
        for style in root.iter("style"):
            for selectors, body in _RULE_RE.findall(_AT_BLOCK_RE.sub(" ", style.text or "")):
                declarations = _declarations(body)
                hides = bool(_HIDING_RE.search(declarations))
                background = _background(declarations)
                for selector in selectors.split(","):
                    simple = _SIMPLE_SELECTOR_RE.match(selector.strip())
                    if simple is None or not selector.strip():
                        continue
                    tag, rest = simple.group(1), simple.group(2)
                    if hides:
                        self.hiding.append((tag.lower() if tag else None, rest))
                    if background is not None and tag and not rest:
                        self.backgrounds[tag.lower()] = background

    def hides(self, element: HtmlElement) -> bool:
        classes = {f".{c}" for c in (element.get("class") or "").split()}
        ident = element.get("id")
        names = classes | ({f"#{ident}"} if ident else set())
        tag = str(element.tag).lower()
        return any(
            (rule_tag is None or rule_tag == tag) and (rest is None or rest in names)
            for rule_tag, rest in self.hiding
        )


def _page_background(root: HtmlElement, sheet: _Sheet) -> Color:
    for element in root.iter("body", "html"):
        inline = _background(_declarations(element.get("style") or ""))
        if inline is not None:
            return inline
        bgcolor = _color(element.get("bgcolor") or "")
        if bgcolor is not None:
            return bgcolor
    return sheet.backgrounds.get("body") or sheet.backgrounds.get("html") or (255, 255, 255)


def _near(a: Color, b: Color) -> bool:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) <= 24


def _invisible_colour(element: HtmlElement, page: Color) -> bool:
    """Whether the element's own text colour is (nearly) the background behind it."""
    color_value = _property(_declarations(element.get("style") or ""), "color")
    color = _color(color_value) if color_value else None
    if color is None:
        return False
    node: HtmlElement | None = element
    while node is not None:
        background = _background(_declarations(node.get("style") or ""))
        if background is not None:
            return _near(color, background)
        node = node.getparent()
    return _near(color, page)


def _hidden(element: HtmlElement, sheet: _Sheet, page: Color) -> bool:
    if element.get("hidden") is not None:
        return True
    if _HIDING_RE.search(_declarations(element.get("style") or "")):
        return True
    return sheet.hides(element) or _invisible_colour(element, page)


def remove_hidden(root: HtmlElement) -> list[str]:
    """Remove the elements a reader would not see from ``root``; returns their text."""
    sheet = _Sheet(root)
    page = _page_background(root, sheet)
    doomed: list[HtmlElement] = []
    inside: dict[int, HtmlElement] = {}  # holds the proxies, so their ids stay theirs
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag.lower() in _SKIPPED_TAGS:
            continue
        parent = element.getparent()
        if parent is not None and id(parent) in inside:
            inside[id(element)] = element  # already goes with a hidden ancestor
            continue
        if _hidden(element, sheet, page):
            doomed.append(element)
            inside[id(element)] = element
    passages: list[str] = []
    for element in doomed:
        text = " ".join(" ".join(element.itertext()).split())
        if text and len(passages) < _MAX_PASSAGES:
            passages.append(text[:_PASSAGE_CHARS])
        if element.getparent() is not None:
            element.drop_tree()
    return passages
