"""Outgoing HTTP: automations POST their results to other programs (e.g. Home Assistant)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import httpx

from aria_desktop.domain.errors import AriaError

__all__ = ["HttpResultSender"]

_LOGGER = logging.getLogger(__name__)


class HttpResultSender:
    """``core.ports.ResultSender`` over httpx (one pooled client; ``aclose`` when done).

    Args:
        timeout_s: connect + read timeout per POST, seconds.
    """

    def __init__(self, *, timeout_s: float = 10.0) -> None:
        self._client = httpx.AsyncClient(timeout=timeout_s, follow_redirects=False)

    async def post_json(self, url: str, payload: Mapping[str, Any]) -> None:
        """POST ``payload``; AriaError when unreachable or answered with a non-2xx status."""
        try:
            response = await self._client.post(url, json=dict(payload))
        except httpx.HTTPError as exc:
            raise AriaError(
                f"Could not deliver the result to {_shown(url)}: {exc.__class__.__name__}.",
                hint="Check the automation's post_url and that the receiver is running.",
            ) from None
        if not response.is_success:
            raise AriaError(
                f"{_shown(url)} refused the result (HTTP {response.status_code}).",
                hint="Check the automation's post_url.",
            )
        _LOGGER.debug("Delivered an automation result to %s", _shown(url))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()


def _shown(url: str) -> str:
    """The URL without its path (webhook ids in paths are secrets of a kind)."""
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.host}" + (f":{parsed.port}" if parsed.port else "")
