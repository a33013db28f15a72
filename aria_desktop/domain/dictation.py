"""Dictation's words to typed text: spoken punctuation ("comma", "new line") and spacing.

Whisper already punctuates what it hears, and a person who says "comma" often gets "Hello,
comma," back. So a spoken mark replaces the mark Whisper put beside it instead of adding a
second one, the word after a spoken sentence end starts with a capital, and no space goes
before a comma or after a new line. Pure text in, text out: the voice pipeline and
``aria dictate`` both call :func:`typed_text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "DICTATION_PROMPT",
    "SPOKEN_MARKS",
    "DictationPiece",
    "asks_for_dictation",
    "joined",
    "typed_text",
]

SPOKEN_MARKS: dict[tuple[str, ...], str] = {
    ("comma",): ",",
    ("full", "stop"): ".",
    ("period",): ".",
    ("question", "mark"): "?",
    ("exclamation", "mark"): "!",
    ("exclamation", "point"): "!",
    ("colon",): ":",
    ("semicolon",): ";",
    ("semi", "colon"): ";",
    ("new", "line"): "\n",
    ("newline",): "\n",
    ("new", "paragraph"): "\n\n",
}
"""Spoken words -> the mark typed (English, the dictation language of the packaged models)."""

DICTATION_PROMPT = "comma, full stop, question mark, exclamation mark, colon, new line"
"""Given to speech-to-text before a dictation: Whisper then writes the spoken marks as words.

Measured (``aria bench voice --dictation``, bench/README.md): without it tiny.en often hears
a lone "comma" as "comment" or "coming"; a sentence written with the marks as words did not
help.
"""

_LONGEST = max(len(words) for words in SPOKEN_MARKS)
_SENTENCE_ENDS = frozenset(".?!\n")
_CLOSING = frozenset(",.?!:;")
_TOKEN_RE = re.compile(r"\S+")
_EDGE_PUNCTUATION = ",.?!:;\"'"


_ASKS = frozenset(
    {
        "dictate",
        "dictation",
        "start dictating",
        "start dictation",
        "take dictation",
        "take a dictation",
        "type what i say",
        "type what i say next",
    }
)
"""Whole utterances that start a dictation ("Hey Jarvis, dictate")."""
_POLITE = re.compile(r"^(please |can you |could you )|( please| now)$")


def asks_for_dictation(said: str) -> bool:
    """Whether ``said`` (the wake phrase taken off) is only a request to dictate.

    Only the whole utterance counts: "How do I dictate in Word?" is a question for the model.
    """
    words = re.sub(r"[^\w' ]+", " ", said.lower())
    words = " ".join(words.split())
    for _ in range(2):
        words = _POLITE.sub("", words).strip()
    return words in _ASKS


@dataclass(frozen=True)
class DictationPiece:
    """One word as spoken, or one spoken mark (``mark`` set, ``word`` empty)."""

    word: str = ""
    mark: str = ""


def _bare(token: str) -> str:
    return token.strip(_EDGE_PUNCTUATION + "-").lower()


def _pieces(text: str) -> list[DictationPiece]:
    """Words and spoken marks; a mark drops the punctuation Whisper wrote beside it."""
    tokens = _TOKEN_RE.findall(text)
    bare = [_bare(t) for t in tokens]
    pieces: list[DictationPiece] = []
    i = 0
    while i < len(tokens):
        for size in range(min(_LONGEST, len(tokens) - i), 0, -1):
            mark = SPOKEN_MARKS.get(tuple(bare[i : i + size]))
            if mark is not None:
                if pieces and pieces[-1].word:
                    # "Hello, comma": the comma Whisper heard is the one spoken.
                    pieces[-1] = DictationPiece(word=pieces[-1].word.rstrip(",.?!:;"))
                pieces.append(DictationPiece(mark=mark))
                i += size
                break
        else:
            word = tokens[i]
            if pieces and pieces[-1].mark and pieces[-1].mark != "\n":
                # "comma, how": Whisper's mark after the spoken one goes too.
                word = word.lstrip(",.?!:;") or ""
            if word:
                pieces.append(DictationPiece(word=word))
            i += 1
    return pieces


def _capitalised(word: str) -> str:
    for index, char in enumerate(word):
        if char.isalpha():
            return word[:index] + char.upper() + word[index + 1 :]
    return word


def typed_text(transcript: str) -> str:
    """What to type for one dictated transcript ("" when nothing but silence was heard).

    "Dear Anna comma new line thanks for the tea full stop see you soon" types "Dear Anna,",
    a new line, then "Thanks for the tea. See you soon".
    """
    out = ""
    capital_next = False
    for piece in _pieces(transcript):
        if piece.mark:
            if piece.mark in _CLOSING:
                out = out.rstrip(" ").rstrip(",.?!:;") + piece.mark
            else:
                out = out.rstrip(" ") + piece.mark
            capital_next = piece.mark[-1] in _SENTENCE_ENDS
            continue
        word = _capitalised(piece.word) if capital_next else piece.word
        capital_next = False
        if out and not out.endswith("\n"):
            out += " "
        out += word
    return out.strip(" ")


def joined(before: str, text: str) -> str:
    """``text`` as typed after ``before`` (the end of the last dictation into the same field).

    A space separates it from a word or a mark, none follows a new line, and a sentence that
    ended starts the next with a capital.
    """
    if not before or not text:
        return text
    if text[0] in _CLOSING or text[0] == "\n" or before.endswith(("\n", " ")):
        return text
    if before[-1] in _SENTENCE_ENDS:
        text = _capitalised(text)
    return f" {text}"
