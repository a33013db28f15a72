"""Long-term memory and knowledge base events: what changed, and what a turn cited."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aria_desktop.domain.events import Event
from aria_desktop.domain.knowledge import Citation


@dataclass(frozen=True, kw_only=True)
class MemoryChanged(Event):
    """Long-term memory changed (the GUI shows "Remembered: ..." and refreshes its list).

    Attributes:
        memory_id: the memory (or inbox entry) concerned.
        action: added, reinforced, superseded (a new memory replaced an old one), updated,
            forgotten, inbox (a candidate awaits approval) or rejected.
        content: the memory's text.
        conversation_id: the conversation it came from, when it came from one.
    """

    type: ClassVar[str] = "memory-changed"
    memory_id: str
    action: str
    content: str = ""
    conversation_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class KnowledgeChanged(Event):
    """The knowledge base changed: a source added or removed, a rescan, a watched folder.

    Attributes:
        action: added, removed, rescanned or watched (a watched folder's change applied).
        location: the source concerned ("" for a rescan of all or a watcher batch).
        files_indexed, files_removed, chunks_embedded, problems: what the change did.
    """

    type: ClassVar[str] = "knowledge-changed"
    action: str
    location: str = ""
    files_indexed: int = 0
    files_removed: int = 0
    chunks_embedded: int = 0
    problems: int = 0


@dataclass(frozen=True, kw_only=True)
class KnowledgeCited(Event):
    """A turn's prompt got numbered document passages; the answer cites them as ``[n]``.

    Attributes:
        conversation_id: the turn's conversation (the front-ends link the reply's ``[n]``).
        citations: the references, numbered from 1.
    """

    type: ClassVar[str] = "knowledge-cited"
    conversation_id: str
    citations: tuple[Citation, ...] = ()
