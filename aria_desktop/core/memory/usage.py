"""Which recalled memories a reply used: the co-use that associates memories.

Pure: a memory counts as used when the reply cites its id (the recall block shows ids) or
holds most of its distinctive words (at least half of its content words of four letters or
more, and at least two of them; a one-word memory must appear whole). Recalled but unused
memories are not associated: being retrieved together is not evidence that they belong
together, being used together is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aria_desktop.domain.memory import Memory

__all__ = ["used_memories"]

_WORD = re.compile(r"[^\W\d_]{4,}")


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


def _used(memory: Memory, reply: str, reply_words: set[str]) -> bool:
    if memory.id in reply:
        return True
    words = _words(memory.content)
    if not words:
        return False
    shared = words & reply_words
    if len(words) == 1:
        return bool(shared)
    return len(shared) >= 2 and len(shared) * 2 >= len(words)


def used_memories(reply: str, recalled: Sequence[Memory]) -> list[Memory]:
    """The memories of ``recalled`` that ``reply`` used, in recall order."""
    reply_words = _words(reply)
    return [memory for memory in recalled if _used(memory, reply, reply_words)]
