"""Word error rate for spoken commands: (substitutions + deletions + insertions) / words.

Both sides are normalized the way a listener would compare them: case and punctuation do not
count, and numbers are compared as the words that were said ("7:30 p.m." == "730pm" ==
"seven thirty pm"; "3rd" == "third" == "3"). A transcript that mangles a number
("0 730") still counts as wrong.
"""

from __future__ import annotations

import re

__all__ = ["normalize", "word_errors"]

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
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


def normalize(text: str) -> list[str]:
    """The words of ``text``, lower case, punctuation gone, numbers spelled out."""
    text = text.lower()
    for written, said in _SPOKEN.items():
        text = text.replace(written, said)
    text = re.sub(r"\b(a|p)\.?\s?m\b\.?", r"\1m", text)  # "p m", "pm." -> "pm"
    text = re.sub(r"(\d)[:.](\d\d)\b", r"\1 \2", text)  # 7:30 / 7.30 -> 7 30
    text = re.sub(r"(\d),(\d{3})", r"\1\2", text)
    text = re.sub(r"(\d)(am|pm)\b", r"\1 \2", text)
    words = re.sub(r"[^a-z0-9' ]+", " ", text.replace("-", " ")).split()
    return [w for word in words for w in _expand(word.strip("'"))]


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(edit distance in words, number of reference words)."""
    ref, hyp = normalize(reference), normalize(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[len(hyp)], len(ref)
