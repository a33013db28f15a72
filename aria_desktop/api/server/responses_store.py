"""The conversations behind ``previous_response_id``, kept per API token, in memory.

A Responses client sends only what is new and names the response it continues; ARIA keeps
each stored response's conversation (without that request's instructions, which OpenAI does
not carry over either) so the next request can be the whole conversation again. A response
is found only with the token that made it. ``store: false`` keeps nothing. The store is
bounded (the oldest go first) and lives as long as the process: after a restart a
``previous_response_id`` is answered as not found, and the client sends the conversation.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from aria_desktop.domain.chat import ChatMessage

__all__ = ["MAX_STORED_RESPONSES", "ResponseStore", "token_key"]

MAX_STORED_RESPONSES = 1_000
"""Responses kept at most; the least recently used go first."""


def token_key(authorization: str) -> str:
    """Who a response belongs to: a hash of the request's credentials (never the token)."""
    return hashlib.sha256(authorization.encode()).hexdigest()


@dataclass(frozen=True, kw_only=True)
class _Stored:
    owner: str
    conversation: tuple[ChatMessage, ...]


class ResponseStore:
    """Response id -> the conversation up to and including that response."""

    def __init__(self, limit: int = MAX_STORED_RESPONSES) -> None:
        """Keep at most ``limit`` responses."""
        self._limit = limit
        self._items: OrderedDict[str, _Stored] = OrderedDict()

    def put(self, response_id: str, owner: str, conversation: Sequence[ChatMessage]) -> None:
        """Keep ``conversation`` as what ``response_id`` of ``owner`` continues."""
        self._items[response_id] = _Stored(owner=owner, conversation=tuple(conversation))
        self._items.move_to_end(response_id)
        while len(self._items) > self._limit:
            self._items.popitem(last=False)

    def get(self, response_id: str, owner: str) -> tuple[ChatMessage, ...] | None:
        """The conversation of ``response_id`` if ``owner`` made it, else None."""
        stored = self._items.get(response_id)
        if stored is None or stored.owner != owner:
            return None
        self._items.move_to_end(response_id)
        return stored.conversation

    def __len__(self) -> int:
        """How many responses are kept."""
        return len(self._items)
