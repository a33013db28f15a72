"""``ApiTransport``: the one HTTP connection an ``ApiClient`` and its parts share.

It holds the token (re-read once after a 401, so a rotation by ``aria token rotate`` or the
settings dialog does not cut the client off), sends requests and maps failed answers to ARIA's
errors, carries out one operation of the ``operations`` table per ``call``, and keeps the open
event streams that a state-changing call waits for. ``ApiClient`` composes it with
``KnowledgeClient`` and ``ApiSubscription``, which use this transport instead of the client, so
neither of them imports the client's module.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from typing import Any, Protocol, TypedDict, TypeVar
from urllib.request import getproxies

import httpx

from aria_desktop.api.client.errors import error_from, unreachable
from aria_desktop.api.client.operations.base import API_PREFIX, Operation
from aria_desktop.api.token import TokenFile
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.locality import is_loopback_url

__all__ = ["ApiTransport", "OpenStream", "TransportOptions", "tls_verification"]

_A = TypeVar("_A")
_R = TypeVar("_R")


def tls_verification(base_url: str) -> ssl.SSLContext | bool:
    """The ``verify=`` setting of the httpx client for the API at ``base_url``.

    httpx builds its default TLS context when a client is created, loading the whole CA bundle
    (about 45 ms here), even for a plain-http URL that never does TLS; every CLI command that
    talks to a running owner over ``http://127.0.0.1`` paid for it. For an http URL the client
    gets a context that still requires a verified certificate and the host name, but trusts no
    CA: it is never used, and were a request ever sent to an https URL it would fail closed.
    An https URL keeps httpx's default verification (the CA bundle, ``SSL_CERT_FILE``), and so
    does an http URL when the environment names an https proxy (``HTTP_PROXY=https://...``),
    since httpx would speak TLS to that proxy with this setting.
    """
    if httpx.URL(base_url).scheme != "http":
        return True
    if any(proxy.lower().startswith("https://") for proxy in getproxies().values()):
        return True
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class OpenStream(Protocol):
    """An open event stream as the transport sees it (``ApiSubscription``)."""

    async def wait_ready(self) -> bool:
        """Wait until the stream is connected; False if it is not in time."""
        ...

    def close(self) -> None:
        """Stop receiving."""
        ...


class TransportOptions(TypedDict, total=False):
    """The optional keyword arguments of :class:`ApiTransport`, for those that pass them on.

    ``ApiClient`` takes them as ``**options`` and hands them over unchanged, so what they mean
    and their defaults are stated once, on ``ApiTransport``.
    """

    timeout_s: float
    token_file: TokenFile | None


class ApiTransport:
    """The HTTP connection to a running ARIA's API, with its token.

    Args:
        base_url: e.g. ``http://127.0.0.1:8731``.
        token: the API token (read from the token file by the caller; never from argv).
        timeout_s: per-request timeout, seconds (event streams have none while reading).
        token_file: where the token lives; when given, a 401 re-reads it once and retries.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout_s: float = 30.0,
        token_file: TokenFile | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._token_file = token_file
        self.http = httpx.AsyncClient(
            base_url=self.base_url,
            # Each ARIA process is its own client for the server's rate limits
            # (api/server/ratelimit.py): the tray, a CLI command and a script never share a bucket.
            headers={
                "Authorization": f"Bearer {token}",
                "X-Aria-Client": f"aria pid {os.getpid()}",
            },
            timeout=timeout_s,
            verify=tls_verification(self.base_url),
            # An owner on this machine is reached directly: a proxy from the environment
            # (HTTP_PROXY) cannot reach this machine's loopback and must never see the token.
            trust_env=not is_loopback_url(self.base_url),
        )
        # The open event streams: each one adds itself, and leaves when it ends.
        self.streams: set[OpenStream] = set()

    async def aclose(self) -> None:
        """Close every open stream and the connection pool."""
        for stream in list(self.streams):
            stream.close()
        await self.http.aclose()

    def reload_token(self) -> bool:
        """Take a new token from the token file; False if there is none or it is unchanged."""
        if self._token_file is None:
            return False
        try:
            token = self._token_file.read()
        except AriaError:
            return False
        if token == self._token:
            return False
        self._token = token
        self.http.headers["Authorization"] = f"Bearer {token}"
        return True

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send one request to ``path`` under the API prefix; a failed answer raises its error."""
        try:
            response = await self.http.request(method, f"{API_PREFIX}{path}", **kwargs)
            if response.status_code == 401 and self.reload_token():
                response = await self.http.request(method, f"{API_PREFIX}{path}", **kwargs)
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None
        if not response.is_success:
            raise error_from(response)
        return response

    async def call(self, operation: Operation[_A, _R], arg: _A) -> _R:
        """Carry out one operation of the table in ``api.operations`` for ``arg``."""
        if operation.after_streams:
            await asyncio.gather(*(stream.wait_ready() for stream in list(self.streams)))
        response = await self.request(
            operation.method, operation.path(arg), **operation.encode(arg)
        )
        return operation.decode(response, arg)
