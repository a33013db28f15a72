"""Sending a request on a pooled connection, resent once when the pool's connection was stale.

ARIA keeps one pooled HTTP/1.1 connection per model server (ARCHITECTURE.md: first-chunk
latency). HTTP/1.1 lets a server close an idle kept-alive connection at any moment, and a
request written just as it does gets no response at all: httpx raises ``RemoteProtocolError``
("Server disconnected without sending a response") and does not try again (encode/httpx#2983;
urllib3 and aiohttp do). Seen against a real llama-server in CI: the next turn of a
conversation failed although the server was up and never saw the request. Such a request is
sent once more, at once, on a fresh connection — not a retry of the router's policy (no
backoff, no breaker count): the server did not answer it. A second failure is the caller's to
report.
"""

from __future__ import annotations

import logging

import httpx

__all__ = ["send_streaming"]

_LOGGER = logging.getLogger(__name__)

_UNANSWERED = "without sending a response"
"""httpx's words for a connection closed before any byte of the response (h11's state)."""


async def send_streaming(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """``client.send(request, stream=True)``, sent once more if the connection closed unanswered.

    Raises:
        httpx.TransportError: as ``client.send`` does (the second failure, if there is one).
    """
    try:
        return await client.send(request, stream=True)
    except httpx.RemoteProtocolError as exc:
        if _UNANSWERED not in str(exc):
            raise
        _LOGGER.debug("%s closed a kept-alive connection unanswered; sending again", request.url)
    return await client.send(request, stream=True)
