"""What the memory browser needs from the Assistant (present once memory is installed).

Checked at run time with ``isinstance`` (a runtime-checkable Protocol), so the browser shows
"memory not available" against an Assistant without these methods instead of failing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from aria_desktop.domain.memory import Memory, MemoryHit, MemoryQuery

__all__ = ["MemoryAccess"]


@runtime_checkable
class MemoryAccess(Protocol):
    """The memory part of ``core.ports.Assistant``."""

    async def search_memories(self, query: MemoryQuery) -> list[MemoryHit]: ...

    async def list_memories(
        self,
        *,
        kinds: Sequence[str] = (),
        subject: str | None = None,
        statuses: Sequence[str] = ("active",),
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]: ...

    async def get_memory(self, memory_id: str, /) -> Memory | None: ...

    async def add_memory(
        self,
        content: str,
        *,
        kind: str = "fact",
        subject: str = "user",
        importance: float = 0.5,
        provenance: str = "manual",
    ) -> Memory: ...

    async def update_memory(
        self,
        memory_id: str,
        /,
        *,
        content: str | None = None,
        kind: str | None = None,
        subject: str | None = None,
        importance: float | None = None,
    ) -> Memory: ...

    async def forget_memory(self, memory_id: str, /) -> None: ...

    async def list_memory_inbox(self) -> list[Memory]: ...

    async def approve_memory(self, memory_id: str, /) -> Memory: ...

    async def reject_memory(self, memory_id: str, /) -> None: ...
