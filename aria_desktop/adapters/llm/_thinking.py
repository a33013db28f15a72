"""Reasoning written inline as ``<think>…</think>`` in the reply text, split out of it.

DeepSeek-R1 and Qwen3 distills (and servers that do not separate reasoning themselves) write
their reasoning into the content stream between ``<think>`` and ``</think>``. The tags arrive
split across chunks (``<thi`` + ``nk>``), so :class:`ThinkTagSplitter` holds back a tail that
could still be the start of a tag and releases it once the next chunk decides. What is inside
the tags becomes thinking, the rest stays answer text (ARCHITECTURE.md: thinking kept apart).
Only a reply that starts with the tag (leading blanks aside) is split: a ``<think>`` in the
middle of an answer is something the answer talks about.
"""

from __future__ import annotations

from collections.abc import Iterator

from aria_desktop.domain.chat import TextDelta, ThinkingDelta

__all__ = ["ThinkTagSplitter"]

_OPEN = "<think>"
_CLOSE = "</think>"


def _partial_tag_len(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkTagSplitter:
    """Turns content pieces into ``TextDelta`` and ``ThinkingDelta`` values, tags removed."""

    def __init__(self) -> None:
        """Start outside any thinking block."""
        self._inside = False
        self._held = ""
        self._answer_started = False

    def feed(self, piece: str) -> Iterator[TextDelta | ThinkingDelta]:
        """The chunks ``piece`` completes (a possible tag start is held back)."""
        text = self._held + piece
        self._held = ""
        while text:
            if self._answer_started and not self._inside:
                # Only a reply that opens with ``<think>`` reasons inline; later tags are text.
                yield from self._emit(text)
                return
            tag = _CLOSE if self._inside else _OPEN
            index = text.find(tag)
            if index > 0 and not self._inside and text[:index].strip():
                index = -1  # answer text comes first: this reply does not reason inline
            if index >= 0:
                yield from self._emit(text[:index])
                self._inside = not self._inside
                text = text[index + len(tag) :]
                continue
            keep = _partial_tag_len(text, tag)
            yield from self._emit(text[: len(text) - keep])
            self._held = text[len(text) - keep :]
            return

    def flush(self) -> Iterator[TextDelta | ThinkingDelta]:
        """What was held back, at the end of the stream (an unclosed tag stays thinking)."""
        held, self._held = self._held, ""
        yield from self._emit(held)

    def _emit(self, text: str) -> Iterator[TextDelta | ThinkingDelta]:
        if self._inside:
            if text:
                yield ThinkingDelta(text=text)
            return
        if not self._answer_started:
            # The blank lines between ``</think>`` and the answer are not part of the answer.
            text = text.lstrip()
        if text:
            self._answer_started = True
            yield TextDelta(text=text)
