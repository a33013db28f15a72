"""URL sources: one page or document fetched with httpx, http(s) only, capped in size and time."""

from __future__ import annotations

from urllib.parse import urlsplit

from aria_desktop.adapters.knowledge.document import document_error
from aria_desktop.domain.errors import KnowledgeError

__all__ = ["check_url", "fetch_url"]

_USER_AGENT = "ARIA-Desktop knowledge base (+local assistant)"


def check_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host.

    Raises:
        KnowledgeError: another scheme or no host.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise KnowledgeError(
            f"{url!r} is not an http(s) URL.",
            hint="Give a web address starting with http:// or https://, or a file path.",
        )
    return url


async def fetch_url(url: str, *, max_bytes: int, timeout_s: float) -> tuple[bytes, str, str]:
    """The body, content type and final URL of ``url``.

    Raises:
        DocumentError: the fetch failed, timed out, was redirected off http(s) or the body
            is larger than ``max_bytes`` (problem ``fetch_failed`` or ``too_large``).
    """
    import httpx

    check_url(url)
    try:
        async with (
            httpx.AsyncClient(
                follow_redirects=True,
                max_redirects=5,
                timeout=timeout_s,
                headers={"User-Agent": _USER_AGENT},
            ) as client,
            client.stream("GET", url) as response,
        ):
            final = str(response.url)
            if urlsplit(final).scheme not in ("http", "https"):
                raise document_error(
                    f"{url} redirected to {final}.", problem="fetch_failed", hint=""
                )
            if response.status_code >= 400:
                raise document_error(
                    f"{url} answered HTTP {response.status_code}.",
                    problem="fetch_failed",
                    hint="Check the address in a browser.",
                )
            body = bytearray()
            async for piece in response.aiter_bytes():
                body.extend(piece)
                if len(body) > max_bytes:
                    raise document_error(
                        f"{url} is larger than {max_bytes / 1e6:.0f} MB.",
                        problem="too_large",
                        hint="Save the document and add the file instead.",
                    )
            return bytes(body), response.headers.get("content-type", ""), final
    except httpx.HTTPError as exc:
        raise document_error(
            f"Could not fetch {url}: {type(exc).__name__}: {exc}",
            problem="fetch_failed",
            hint="Check the address and the network connection.",
        ) from exc
