"""Word error rate for spoken commands: (substitutions + deletions + insertions) / words.

Both sides are normalized the way a listener would compare them, following the rules of
Whisper's English text normaliser (the one Whisper's own WER figures use): case,
punctuation and accents do not count ("Zoltán" == "Zoltan"), contractions are expanded
("what's" == "what is", "I'm" == "I am", "won't" == "will not"), hesitations ("um", "uh")
and bracketed non-speech ("[music]") are dropped, and common British spellings count as the
American ones ("colour" == "color"). Numbers are compared as the words that were said
("7:30 p.m." == "730pm" == "seven thirty pm"; "3rd" == "third" == "3"); Whisper's normaliser
writes them as digits instead, to the same effect. A transcript that mangles a number
("0 730") still counts as wrong. Two rules are ARIA's own: "OK" == "okay", and "15x12" ==
"fifteen times twelve" (a command's arithmetic, written as Whisper writes it).
"""

from __future__ import annotations

import re
import unicodedata

from aria_desktop.core.skills.when_words import ENGLISH_NUMBER_WORDS

__all__ = ["error_pairs", "normalize", "word_errors"]

_CONTRACTIONS = (
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "can not"),
    (r"\blet's\b", "let us"),
    (r"\bain't\b", "aint"),
    (r"\by'all\b", "you all"),
    (r"\bwanna\b", "want to"),
    (r"\bgonna\b", "going to"),
    (r"\bgotta\b", "got to"),
    (r"n't\b", " not"),
    (r"'re\b", " are"),
    (r"'s\b", " is"),
    (r"'d\b", " would"),
    (r"'ll\b", " will"),
    (r"'ve\b", " have"),
    (r"'m\b", " am"),
)
"""Whisper's English normaliser expands these the same way (possessive "'s" included)."""
_HESITATIONS = r"\b(hmm|mm|mhm|mmm|uh|um)\b"
_LETTERS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th"}
"""Letters NFKD does not split into a base letter and an accent."""
_SPELLINGS = {
    "colour": "color",
    "colours": "colors",
    "favourite": "favorite",
    "favourites": "favorites",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "metres": "meters",
    "litre": "liter",
    "litres": "liters",
    "kilometre": "kilometer",
    "kilometres": "kilometers",
    "programme": "program",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "travelling": "traveling",
    "labelled": "labeled",
    "grey": "gray",
    "neighbour": "neighbor",
    "organise": "organize",
    "organised": "organized",
    "realise": "realize",
    "recognise": "recognize",
    "apologise": "apologize",
    "analyse": "analyze",
    "ok": "okay",
}
"""Common British spellings a command may hold, as the American ones (a subset of the list
Whisper's normaliser applies), and ARIA's "ok" == "okay"."""

_ONES = ENGLISH_NUMBER_WORDS
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = {
    "first": "one",
    "second": "two",
    "third": "three",
    "fifth": "five",
    "eighth": "eight",
    "ninth": "nine",
    "twelfth": "twelve",
}
_SPOKEN = {"a.m.": " am ", "p.m.": " pm ", "%": " percent ", "&": " and ", "o'clock": " oclock "}


def _say_number(n: int) -> list[str]:
    """A whole number as words ("hundred" for 100-999; larger ones digit by digit)."""
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        return [_TENS[n // 10]] + ([_ONES[n % 10]] if n % 10 else [])
    if n < 1000:
        return [_ONES[n // 100], "hundred"] + (_say_number(n % 100) if n % 100 else [])
    return [_ONES[int(d)] for d in str(n)]


def _cardinal(word: str) -> str:
    """An ordinal word as its cardinal ("third" -> "three", "twentieth" -> "twenty")."""
    if word in _ORDINALS:
        return _ORDINALS[word]
    if word.endswith("ieth") and word[:-4] + "y" in _TENS:
        return word[:-4] + "y"
    if word.endswith("th") and word[:-2] in _ONES[4:]:
        return word[:-2]
    return word


def _expand(token: str) -> list[str]:
    """Digits as the words said: "21st" -> twenty one; "915" / "1130" read as clock times."""
    match = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", token)
    if match is None:
        return [_cardinal(token)]
    digits = match.group(1)
    if len(digits) in (3, 4) and digits[0] != "0" and int(digits[-2:]) >= 10:
        return _say_number(int(digits[:-2])) + _say_number(int(digits[-2:]))
    return _say_number(int(digits))


def _plain_letters(text: str) -> str:
    """``text`` without accents ("Zoltán" -> "Zoltan", "Straße" -> "Strasse")."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return "".join(_LETTERS.get(ch, ch) for ch in plain)


def normalize(text: str) -> list[str]:
    """The words of ``text``, lower case, punctuation gone, numbers spelled out."""
    text = _plain_letters(text.lower()).replace("\u2019", "'")
    text = re.sub(r"[<\[][^>\]]*[>\]]|\([^)]*\)", " ", text)  # [music], (laughs)
    text = re.sub(_HESITATIONS, " ", text)
    text = re.sub(r"\s+'", "'", text)
    for contracted, expanded in _CONTRACTIONS:
        text = re.sub(contracted, expanded, text)
    for written, said in _SPOKEN.items():
        text = text.replace(written, said)
    text = re.sub(r"\b(a|p)\.?\s?m\b\.?", r"\1m", text)  # "p m", "pm." -> "pm"
    text = re.sub(r"(\d)[:.](\d\d)\b", r"\1 \2", text)  # 7:30 / 7.30 -> 7 30
    text = re.sub(r"(\d)\s*[x\u00d7*]\s*(?=\d)", r"\1 times ", text)  # 15x12 -> 15 times 12
    text = re.sub(r"(\d),(\d{3})", r"\1\2", text)
    text = re.sub(r"(\d)(am|pm)\b", r"\1 \2", text)
    words = re.sub(r"[^a-z0-9' ]+", " ", text.replace("-", " ")).split()
    words = [_SPELLINGS.get(w, w) for word in words if (w := word.strip("'"))]
    return [w for word in words for w in _expand(word)]


def _distances(ref: list[str], hyp: list[str]) -> list[list[int]]:
    """The word edit distance table: ``table[i][j]`` between ``ref[:i]`` and ``hyp[:j]``."""
    table = [list(range(len(hyp) + 1))]
    for i, r in enumerate(ref, 1):
        row = [i]
        for j, h in enumerate(hyp, 1):
            row.append(min(table[i - 1][j] + 1, row[j - 1] + 1, table[i - 1][j - 1] + (r != h)))
        table.append(row)
    return table


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance in words, number of reference words)."""
    ref, hyp = normalize(reference), normalize(hypothesis)
    return _distances(ref, hyp)[len(ref)][len(hyp)], len(ref)


def error_pairs(reference: str, hypothesis: str) -> list[tuple[str, str]]:
    """What was said and what was heard instead, for each run of word errors, in order.

    ``("priya raman", "pria ramen")`` is a misheard name, ``("thirty", "")`` a dropped word,
    ``("", "the")`` an inserted one (both sides normalized).
    """
    ref, hyp = normalize(reference), normalize(hypothesis)
    table = _distances(ref, hyp)
    i, j = len(ref), len(hyp)
    pairs: list[tuple[list[str], list[str]]] = []
    in_error = False
    while i or j:
        if i and j and ref[i - 1] == hyp[j - 1] and table[i][j] == table[i - 1][j - 1]:
            i, j, in_error = i - 1, j - 1, False
            continue
        if not in_error:
            pairs.append(([], []))
            in_error = True
        said, heard = pairs[-1]
        if i and j and table[i][j] == table[i - 1][j - 1] + 1:
            said.insert(0, ref[i - 1])
            heard.insert(0, hyp[j - 1])
            i, j = i - 1, j - 1
        elif i and table[i][j] == table[i - 1][j] + 1:
            said.insert(0, ref[i - 1])
            i -= 1
        else:
            heard.insert(0, hyp[j - 1])
            j -= 1
    return [(" ".join(said), " ".join(heard)) for said, heard in reversed(pairs)]
