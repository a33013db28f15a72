"""A port-level double of the memory part of the Assistant (memory lands in another issue).

It wraps the real ``LocalAssistant`` and adds the memory methods with an in-memory list, and
records every call so tests can check that edits reach the port. Test-only; never packaged.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.domain.memory import Memory, MemoryHit, MemoryQuery


class AssistantWithMemory(LocalAssistant):
    def __init__(self, orchestrator: Any, memories: Sequence[Memory] = ()) -> None:
        super().__init__(orchestrator)
        self.memories = {m.id: m for m in memories}
        self.calls: list[tuple[str, Any]] = []
        self._ids = itertools.count(100)

    async def search_memories(self, query: MemoryQuery) -> list[MemoryHit]:
        self.calls.append(("search", query))
        words = query.text.lower().split()
        hits = [
            MemoryHit(memory=m, score=1.0)
            for m in self.memories.values()
            if all(w in m.content.lower() for w in words)
            and (not query.kinds or m.kind in query.kinds)
            and m.status in query.statuses
        ]
        return hits[: query.limit]

    async def list_memories(
        self,
        *,
        kinds: Sequence[str] = (),
        subject: str | None = None,
        statuses: Sequence[str] = ("active",),
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        self.calls.append(("list", (tuple(kinds), subject, tuple(statuses))))
        found = [
            m
            for m in self.memories.values()
            if m.status in statuses
            and (not kinds or m.kind in kinds)
            and (subject is None or m.subject == subject)
        ]
        return found[offset : offset + limit]

    async def get_memory(self, memory_id: str, /) -> Memory | None:
        return self.memories.get(memory_id)

    async def add_memory(
        self,
        content: str,
        *,
        kind: str = "fact",
        subject: str = "user",
        importance: float = 0.5,
        provenance: str = "manual",
    ) -> Memory:
        self.calls.append(("add", (content, kind, subject, importance, provenance)))
        memory = Memory(
            id=f"m{next(self._ids)}",
            content=content,
            kind=kind,
            subject=subject,
            importance=importance,
            provenance=provenance,
            created_at=time.time(),
            updated_at=time.time(),
        )
        self.memories[memory.id] = memory
        return memory

    async def update_memory(
        self,
        memory_id: str,
        /,
        *,
        content: str | None = None,
        kind: str | None = None,
        subject: str | None = None,
        importance: float | None = None,
    ) -> Memory:
        self.calls.append(("update", (memory_id, content, kind, subject, importance)))
        old = self.memories[memory_id]
        new = replace(
            old,
            content=content if content is not None else old.content,
            kind=kind if kind is not None else old.kind,
            subject=subject if subject is not None else old.subject,
            importance=importance if importance is not None else old.importance,
        )
        self.memories[memory_id] = new
        return new

    async def forget_memory(self, memory_id: str, /) -> None:
        self.calls.append(("forget", memory_id))
        self.memories[memory_id] = replace(self.memories[memory_id], status="forgotten")

    async def list_memory_inbox(self) -> list[Memory]:
        return [m for m in self.memories.values() if m.status == "proposed"]

    async def approve_memory(self, memory_id: str, /) -> Memory:
        self.calls.append(("approve", memory_id))
        self.memories[memory_id] = replace(self.memories[memory_id], status="active")
        return self.memories[memory_id]

    async def reject_memory(self, memory_id: str, /) -> None:
        self.calls.append(("reject", memory_id))
        self.memories[memory_id] = replace(self.memories[memory_id], status="rejected")
