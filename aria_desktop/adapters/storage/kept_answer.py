"""A read's answer kept on the event loop until a write that could change it.

Recall asks "is there anything to recall?" before every turn so an empty store costs no query
embedding, and that question used to be a round trip to the reader thread on the way to the
model's first token (ARCHITECTURE.md: first-chunk latency). Only the owner writes the database
and every write that can change the answer goes through :meth:`KeptAnswer.write`, so the
answer read once stays true until then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database

__all__ = ["KeptAnswer"]

T = TypeVar("T")
R = TypeVar("R")


class KeptAnswer(Generic[T]):
    """The answer of ``question`` on ``db``, read again only after :meth:`write`.

    Each write counts up a generation once it has ended (committed or rolled back); an answer
    is kept only when no write ended while it was being read, so a read that raced a write is
    used once and never kept, and a kept answer lasts until the next write ends.
    """

    def __init__(self, db: Database, question: Callable[[Connection], T]) -> None:
        """Bind to ``db``; nothing is read until :meth:`get`."""
        self._db = db
        self._question = question
        self._generation = 0
        self._kept: tuple[int, T] | None = None
        self._submitted = 0
        self._unsettled = 0
        """The number of a write whose caller was cancelled while it may still commit (0: none)."""

    async def get(self) -> T:
        """The answer: kept, or read on the reader thread (and kept if no write raced it)."""
        generation = self._generation
        kept = self._kept
        if kept is not None and kept[0] == generation and not self._unsettled:
            return kept[1]
        answer = await self._db.read(self._question)
        if self._generation == generation and not self._unsettled:
            self._kept = (generation, answer)
        return answer

    async def write(self, fn: Callable[[Connection], R]) -> R:
        """``Database.write(fn)`` for a write that may change the answer (read anew after).

        A caller cancelled while ``fn`` runs on the writer thread does not wait for its commit,
        so nothing is kept until a write queued after it has ended: the writer thread runs its
        jobs in order, so that one has ended too.
        """
        self._submitted += 1
        number = self._submitted
        try:
            result = await self._db.write(fn)
        except asyncio.CancelledError:
            self._unsettled = max(self._unsettled, number)
            raise
        except BaseException:
            self._settled(number)
            raise
        self._settled(number)
        return result

    def _settled(self, number: int) -> None:
        """Write ``number`` has ended on the writer thread: answers read before are outdated."""
        self._generation += 1
        if number > self._unsettled:
            self._unsettled = 0
