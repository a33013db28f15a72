"""The ``web_fetch`` tool: "what does this page say?".

The adapter (``core.ports.WebReader``: ``web.fetcher.WebFetcher``) does the fetching with its
address checks and caps; this tool only shapes the page for the model. The result goes back
through the agent loop's one tool-result path, which fences and scans it — the hidden passages
the adapter removed travel along (``ToolText``) so the scanner sees them too
(``aria_desktop/ARCHITECTURE.md``, safety).

Permission ``reversible``: fetching reads, but a request leaves the computer and its address can
carry data out; so after flagged content in a turn, a fetch asks like any other side effect.
"""

from __future__ import annotations

from typing import Any

from aria_desktop.core.ports import WebReader
from aria_desktop.core.tools import Tool
from aria_desktop.core.untrusted import ToolText
from aria_desktop.domain.web import WebPage

__all__ = ["WEB_FETCH_TOOL", "render_page", "web_fetch_tool"]

WEB_FETCH_TOOL = "web_fetch"

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "description": "The http(s) address of the page or PDF to read.",
            "minLength": 8,
            "maxLength": 2048,
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}


def render_page(page: WebPage) -> str:
    """The page as the model reads it: where it came from, then its text."""
    lines = [f"URL: {page.final_url}"]
    if page.final_url != page.url:
        lines.append(f"(redirected from {page.url})")
    if page.title:
        lines.append(f"Title: {page.title}")
    lines.append(f"Type: {page.content_type or 'unknown'}")
    if page.hidden:
        lines.append(f"({len(page.hidden)} hidden passage(s) a reader would not see were removed)")
    if page.truncated:
        lines.append("(cut at the size limit: the page continues)")
    lines += ["", page.text or "(no readable text)"]
    return "\n".join(lines)


def web_fetch_tool(reader: WebReader) -> Tool:
    """The ``web_fetch`` tool on ``reader``."""

    async def fetch(arguments: dict[str, Any]) -> ToolText:
        page = await reader.fetch(str(arguments["url"]))
        return ToolText(render_page(page), hidden=page.hidden)

    return Tool(
        name=WEB_FETCH_TOOL,
        description=(
            "Read a web page or PDF on the internet: returns its main text. Use it when the "
            "user asks what a page says or gives you a link. Only public http(s) addresses."
        ),
        parameters=_PARAMETERS,
        permission="reversible",
        handler=fetch,
        summarize=lambda a: f"fetch {a.get('url', '')}",
    )
