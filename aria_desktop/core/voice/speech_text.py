"""Text handling for speech (pure functions, no I/O).

Sentence splitting of a streamed reply, clean-up for the voice, and removing the wake phrase
from a transcript.
"""

from __future__ import annotations

import re

__all__ = ["SentenceSplitter", "speakable", "strip_wake_phrase"]

# A sentence ends at . ! ? ; or : followed by whitespace, or at a line break. Abbreviations and
# numbers ("e.g. ", "3.5") must not split: the lookbehinds exclude the common ones.
_BOUNDARY = re.compile(
    r"(?<!\b[A-Z])(?<!\be\.g)(?<!\bi\.e)(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSt)(?<!\bvs)"
    r"[.!?;:]+[\"')\]]*(?=\s)|\n+"
)
_LONG_CHARS = 220
"""A clause longer than this is cut at a comma so the voice does not wait for a full stop."""
_MARKDOWN = re.compile(r"[*_#`>|~]+")
_URL = re.compile(r"https?://\S+")
_SPACES = re.compile(r"\s+")
_LIST_MARK = re.compile(r"^\s*(?:[-+•]|\d+[.)])\s+", re.M)


def speakable(text: str) -> str:
    """``text`` as it should be read aloud: no markdown marks, no raw URLs, one line."""
    text = _LIST_MARK.sub("", text)
    text = _URL.sub("a link", text)
    text = _MARKDOWN.sub("", text)
    return _SPACES.sub(" ", text).strip()


class SentenceSplitter:
    """Cuts streamed text into sentences as soon as each one is complete.

    ``feed`` the LLM's text pieces in order; it returns the sentences completed so far.
    ``flush`` returns whatever is left at the end of the reply.
    """

    def __init__(self) -> None:
        self._buffer = ""

    def feed(self, text: str) -> list[str]:
        """Add a piece of text; return the sentences it completed (speakable, non-empty)."""
        self._buffer += text
        out: list[str] = []
        while True:
            match = _BOUNDARY.search(self._buffer)
            if match is None:
                break
            sentence, self._buffer = self._buffer[: match.end()], self._buffer[match.end() :]
            self._emit(sentence, out)
        if len(self._buffer) > _LONG_CHARS:
            cut = self._buffer.rfind(", ", 0, _LONG_CHARS)
            if cut < 0:
                cut = self._buffer.rfind(" ", 0, _LONG_CHARS)
            if cut > 0:
                self._emit(self._buffer[: cut + 1], out)
                self._buffer = self._buffer[cut + 1 :]
        return out

    def flush(self) -> list[str]:
        """The rest of the text, at the end of the reply."""
        out: list[str] = []
        self._emit(self._buffer, out)
        self._buffer = ""
        return out

    @staticmethod
    def _emit(sentence: str, out: list[str]) -> None:
        cleaned = speakable(sentence)
        if any(ch.isalnum() for ch in cleaned):
            out.append(cleaned)


def strip_wake_phrase(text: str, phrases: tuple[str, ...]) -> str:
    """Remove a leading wake phrase ("Hey Jarvis, ...") that the pre-roll audio carried in.

    The pre-roll keeps the end of the wake word so a command spoken without a pause is not
    clipped; Whisper then often writes the wake phrase too. Only a leading occurrence is
    removed, matched word by word, ignoring case and punctuation; partial tails ("Jarvis,
    ...") are removed as well.
    """
    words = text.split()
    norm = [re.sub(r"[^\w']", "", w).lower() for w in words]
    for phrase in phrases:
        target = phrase.lower().replace("_", " ").split()
        for start in range(len(target)):
            tail = target[start:]
            if norm[: len(tail)] == tail and tail:
                rest = " ".join(words[len(tail) :]).lstrip(" ,.!?;:-")
                return rest[:1].upper() + rest[1:] if rest else ""
    return text.strip()
