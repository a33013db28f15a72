"""Keeping the pooled connection to a model server after a finished reply.

The router stops reading a reply at its ``StreamEnd``; a response closed with unread bytes (the
chunked body's last chunk, an SSE ``[DONE]``) makes httpx drop its connection, and every turn
then paid a new TCP connect to the model server before its request went out (ARCHITECTURE.md:
first-chunk latency).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

from aria_desktop.domain.errors import LLMError

__all__ = ["drain_after_end"]

_LOGGER = logging.getLogger(__name__)

_DRAIN_S = 0.5
_DRAIN_ITEMS = 16


async def drain_after_end(source: AsyncGenerator[Any, None]) -> None:
    """Read what follows a reply's end marker so httpx can put the connection back in its pool.

    Bounded: a server that keeps sending after its end marker, or stalls there, only loses the
    connection (closed as before), never the reply or the turn's time beyond ``_DRAIN_S``.
    """
    try:
        async with asyncio.timeout(_DRAIN_S):
            left = _DRAIN_ITEMS
            async for _ in source:
                left -= 1
                if left <= 0:
                    return
    except (LLMError, TimeoutError) as exc:
        _LOGGER.debug("Not keeping the connection after the reply: %s", exc)
