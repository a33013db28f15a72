"""What the web fetch tool brings back: a page reduced to readable text.

The adapter (``aria_desktop/adapters/web/``) fetches and extracts; the core tool (``core/web.py``)
shows the page to the model through the one untrusted-content path (``ARCHITECTURE.md``, safety).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WebPage"]


@dataclass(frozen=True, kw_only=True)
class WebPage:
    """One fetched page.

    Attributes:
        url: the address asked for.
        final_url: the address the content came from (after redirects).
        status: the HTTP status of the final response.
        content_type: its media type (``text/html``, ``application/pdf``…), lower case.
        title: the page's title ("" when it has none).
        text: the readable text (HTML reduced to its main content, a PDF's text).
        hidden: passages of an HTML page a reader would not see (``display:none``, ``hidden``,
            white on white…), removed from ``text``; the scanner looks at them.
        truncated: the body was cut at the size cap (or the text at the character cap).
        redirects: how many redirects were followed.
    """

    url: str
    final_url: str
    status: int
    content_type: str
    title: str = ""
    text: str = ""
    hidden: tuple[str, ...] = ()
    truncated: bool = False
    redirects: int = 0
