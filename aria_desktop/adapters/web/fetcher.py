"""Fetching a web page for the model, safely: httpx with caps, every hop checked.

* only http(s); every hop (the address and each redirect, followed here, never by httpx) is
  checked by ``web.addresses`` and the connection goes to the checked IP with the original
  name in ``Host`` and in TLS (SNI and certificate check), so DNS rebinding cannot switch it;
* no proxy from the environment (it would connect on ARIA's behalf to anything), no cookies;
* a size cap on the (decoded) body and one deadline for the whole fetch;
* the body is reduced to readable text in a worker thread (``web.extract``).

The adapter satisfies ``core.ports.WebReader``; the tool is ``core/web.py``
(``ARCHITECTURE.md``, safety).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from aria_desktop import __version__
from aria_desktop.adapters.web.addresses import AddressPolicy, Target, check_url
from aria_desktop.domain.errors import WebFetchError
from aria_desktop.domain.web import WebPage

if TYPE_CHECKING:
    import httpx

__all__ = ["FetchConfig", "WebFetcher"]

_LOGGER = logging.getLogger(__name__)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ACCEPT = "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5"


@dataclass(frozen=True)
class FetchConfig:
    """Limits of one fetch (``[web]`` settings).

    Attributes:
        policy: which non-public hosts may be fetched, and ARIA's own API ports.
        timeout_s: the whole fetch (every hop, the body, the extraction), seconds.
        max_bytes: body bytes read at most (after decompression); HTML and text are cut there.
        max_chars: characters of text given back at most.
        max_redirects: redirects followed at most.
    """

    policy: AddressPolicy = field(default_factory=AddressPolicy)
    timeout_s: float = 20.0
    max_bytes: int = 5_000_000
    max_chars: int = 20_000
    max_redirects: int = 5


class WebFetcher:
    """Fetches pages as readable text (``core.ports.WebReader``).

    Args:
        config: the caps and the address policy.
    """

    def __init__(self, config: FetchConfig) -> None:
        """Nothing is contacted until ``fetch``."""
        self.config = config

    async def fetch(self, url: str) -> WebPage:
        """The page at ``url`` as readable text.

        Raises:
            WebAddressRefusedError: an address (first or redirected to) must not be fetched.
            WebFetchError: network failure, an error status, too many redirects, an unreadable
                type, or the deadline passed.
        """
        import httpx

        try:
            async with asyncio.timeout(self.config.timeout_s):
                async with httpx.AsyncClient(
                    trust_env=False,
                    follow_redirects=False,
                    timeout=httpx.Timeout(self.config.timeout_s),
                    headers={"User-Agent": f"ARIA-Desktop/{__version__}", "Accept": _ACCEPT},
                ) as client:
                    return await self._follow(client, url)
        except TimeoutError as exc:
            raise WebFetchError(
                f"{url} did not answer within {self.config.timeout_s:g} s.",
                hint="Try again later, or raise web.timeout_s.",
            ) from exc
        except httpx.HTTPError as exc:
            raise WebFetchError(
                f"{url} could not be fetched: {exc or type(exc).__name__}.",
                hint="Check the address and the network connection.",
            ) from exc

    async def _follow(self, client: httpx.AsyncClient, url: str) -> WebPage:
        current = url
        for hop in range(self.config.max_redirects + 1):
            target = await check_url(current, self.config.policy)
            async with _open(client, target) as response:
                if response.status_code in _REDIRECTS:
                    location = response.headers.get("location")
                    if not location:
                        raise WebFetchError(f"{current} redirects without saying where.")
                    current = urljoin(current, location)
                    _LOGGER.info("Web fetch redirected (hop %d)", hop + 1)
                    continue
                if response.status_code >= 400:
                    raise WebFetchError(
                        f"{current} answered {response.status_code} "
                        f"{response.reason_phrase}.".replace(" .", "."),
                        hint="Check the address; the page may be gone or need a login.",
                    )
                body, truncated = await self._read(response)
                head = WebPage(
                    url=url,
                    final_url=current,
                    status=response.status_code,
                    content_type=media_type(response.headers.get("content-type", "")),
                    redirects=hop,
                )
                charset = response.charset_encoding
            return await self._page(head, body, charset, truncated)
        raise WebFetchError(
            f"{url} redirected more than {self.config.max_redirects} times.",
            hint="The address may loop; open it in a browser to see where it goes.",
        )

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        """The body up to ``max_bytes`` (decoded); whether it was cut."""
        cap = self.config.max_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= cap:
                return b"".join(chunks)[:cap], True
        return b"".join(chunks), False

    async def _page(
        self, head: WebPage, body: bytes, charset: str | None, truncated: bool
    ) -> WebPage:
        """``head`` with the body's readable text (extracted in a worker thread)."""
        from aria_desktop.adapters.web.extract import extract

        extracted = await asyncio.to_thread(
            extract, body, head.content_type, charset, truncated=truncated
        )
        text = extracted.text
        if len(text) > self.config.max_chars:
            text, truncated = text[: self.config.max_chars], True
        return replace(
            head, title=extracted.title, text=text, hidden=extracted.hidden, truncated=truncated
        )


def media_type(content_type: str) -> str:
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return content_type.split(";", 1)[0].strip().lower()


@contextlib.asynccontextmanager
async def _open(client: httpx.AsyncClient, target: Target) -> AsyncIterator[httpx.Response]:
    """The response of the first checked IP of ``target`` that accepts the connection.

    Only the checked addresses are ever contacted, each by its IP (no second DNS lookup that a
    rebinding name could answer differently); the name goes in ``Host`` and, for https, in SNI
    and the certificate check.
    """
    import httpx

    failure: httpx.ConnectError | None = None
    for ip in target.ips:
        request = client.build_request(
            "GET",
            str(httpx.URL(target.url).copy_with(host=ip)),
            headers={"Host": _host_header(target)},
            extensions={"sni_hostname": target.host} if target.scheme == "https" else {},
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.ConnectError as exc:
            failure = exc
            continue
        try:
            yield response
        finally:
            await response.aclose()
        return
    assert failure is not None
    raise failure


def _host_header(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"
