"""The names speech-to-text is biased toward: from settings and from long-term memory.

Whisper mishears names it has rarely seen ("Dmitri" -> "the metri"); told the names the user
uses, it gets them right. The list is the user's own words (``voice.stt.vocabulary``) first,
then names found in active memories — a memory's subject ("Priya") and capitalised words
inside a sentence ("my sister lives in Reykjavik") — most important first, kept short (a
long hint makes Whisper invent names). It is rebuilt whenever memory changes. See
ARCHITECTURE.md, "Voice accuracy".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from aria_desktop.core.ports import EventSubscription, MemoryStore, VocabularyTarget
from aria_desktop.domain.memory import Memory, MemoryFilter
from aria_desktop.domain.memory_events import MemoryChanged

__all__ = ["MAX_TERMS", "SttVocabulary", "names_in_memories"]

_LOGGER = logging.getLogger(__name__)
MAX_TERMS = 12
"""At most this many names are suggested (measured: more unrelated names, more inventions)."""
_SCANNED = 200
_NOT_NAMES = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "the",
        "a",
        "an",
        "my",
        "our",
        "we",
        "he",
        "she",
        "they",
        "it",
        "this",
        "that",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "aria",
        "user",
        "ok",
        "okay",
    ]
)
_NAME_RUN = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")


def _is_name(words: str) -> bool:
    lower = words.lower()
    return len(words) > 1 and lower not in _NOT_NAMES and lower.removesuffix("s") not in _NOT_NAMES


def names_in_memories(memories: Sequence[Memory], limit: int = MAX_TERMS) -> list[str]:
    """Names in ``memories``, most important and most used first, without repeats."""
    ranked = sorted(memories, key=lambda m: (-m.importance, -m.access_count, -m.updated_at))
    names: list[str] = []
    seen: set[str] = set()
    for memory in ranked:
        found = [memory.subject] if memory.subject[:1].isupper() else []
        found += [m.group(1) for m in _NAME_RUN.finditer(memory.content.strip())]
        for name in found:
            name = name.strip(" '-")
            if _is_name(name) and name.lower() not in seen:
                seen.add(name.lower())
                names.append(name)
                if len(names) >= limit:
                    return names
    return names


class SttVocabulary:
    """Keeps the speech-to-text engine's vocabulary current.

    Args:
        target: the engine (anything with ``set_vocabulary``).
        fixed: the user's own list (``voice.stt.vocabulary``), always first.
        store: long-term memory (None: only the fixed list).
        limit: how many names at most.
    """

    def __init__(
        self,
        *,
        target: VocabularyTarget,
        fixed: Sequence[str],
        store: MemoryStore | None,
        limit: int = MAX_TERMS,
    ) -> None:
        self._target = target
        self._fixed = [t.strip() for t in fixed if t.strip()]
        self._store = store
        self._limit = limit

    async def refresh(self) -> list[str]:
        """Rebuild the list from settings and memory and hand it to the engine."""
        terms = list(self._fixed[: self._limit])
        if self._store is not None and len(terms) < self._limit:
            memories = await self._store.list_memories(MemoryFilter(limit=_SCANNED))
            known = {t.lower() for t in terms}
            for name in names_in_memories(memories, self._limit):
                if name.lower() not in known and len(terms) < self._limit:
                    terms.append(name)
        self._target.set_vocabulary(terms)
        _LOGGER.debug("Speech-to-text vocabulary: %s", ", ".join(terms))
        return terms

    async def follow(self, events: EventSubscription) -> None:
        """Refresh now, then after every memory change (until the subscription closes)."""
        await self.refresh()
        async for event in events:
            if isinstance(event, MemoryChanged):
                await self.refresh()
