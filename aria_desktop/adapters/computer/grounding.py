"""Text grounding as pure code: numbered screen elements, and "where is this text?".

OCR gives words and lines, but one Tesseract line often spans several controls (a row of
buttons). Words are therefore split into *runs* wherever the gap between two words is wider
than the line is tall: a run is what a person reads as one label, and it is what a model can
point at by number.

Matching is tolerant in the ways screen text varies (case, spacing, trailing punctuation such as
"Name:", one misread letter) and strict about doubt: a phrase that fits several places equally
well is reported as ``ambiguous`` with every candidate, never guessed. Preference order: a
whole label equal to the query, then an equal run of words inside a longer label, then fuzzy
matches (similarity >= ``min_score``).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from aria_desktop.domain import computer
from aria_desktop.domain.geometry import union

__all__ = ["build_elements", "element_at", "find_text", "normalize", "word_runs"]

_GAP_FACTOR = 1.0
_TIE_MARGIN = 0.05
_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "…": "..."})


def normalize(text: str) -> str:
    """Case-folded, NFKC, single-spaced text with punctuation trimmed from each word's ends."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    tokens = (_EDGE_PUNCTUATION.sub("", token) for token in text.split())
    return " ".join(token for token in tokens if token)


def word_runs(line: computer.OcrLine) -> list[tuple[computer.OcrWord, ...]]:
    """The line's words split where the gap is wider than the line is tall."""
    runs: list[list[computer.OcrWord]] = []
    limit = max(6, int(line.box.height * _GAP_FACTOR))
    for word in sorted(line.words, key=lambda w: w.box.x):
        if runs and word.box.x - runs[-1][-1].box.right <= limit:
            runs[-1].append(word)
        else:
            runs.append([word])
    return [tuple(run) for run in runs]


def build_elements(lines: tuple[computer.OcrLine, ...]) -> tuple[computer.ScreenElement, ...]:
    """Numbered word runs in reading order (rows top to bottom, then left to right)."""
    runs = [run for line in lines for run in word_runs(line)]
    boxes = [union([w.box for w in run]) for run in runs]
    order = sorted(range(len(runs)), key=lambda i: (boxes[i].center.y // 12, boxes[i].x))
    return tuple(
        computer.ScreenElement(
            id=number,
            text=" ".join(w.text for w in runs[i]),
            box=boxes[i],
            confidence=min(w.confidence for w in runs[i]),
        )
        for number, i in enumerate(order, start=1)
    )


def element_at(
    screen: computer.ScreenText, point: computer.Point, *, tolerance_px: int = 8
) -> computer.ScreenElement | None:
    """The element under ``point``, else the nearest one within ``tolerance_px``, else None."""
    best: tuple[int, computer.ScreenElement] | None = None
    for element in screen.elements:
        box = element.box
        dx = max(box.x - point.x, 0, point.x - (box.right - 1))
        dy = max(box.y - point.y, 0, point.y - (box.bottom - 1))
        distance = max(dx, dy)
        if distance <= tolerance_px and (best is None or distance < best[0]):
            best = (distance, element)
    return best[1] if best else None


@dataclass(frozen=True)
class _Candidate:
    match: computer.TextMatch
    rank: int  # 3 whole label equal, 2 equal words inside a label, 1 fuzzy


def find_text(
    screen: computer.ScreenText,
    query: str,
    *,
    region: computer.Rect | None = None,
    min_score: float = 0.8,
) -> computer.Grounding:
    """Where ``query`` is on screen: one match, several equally good ones, or none."""
    wanted = normalize(query)
    compact_query = wanted.replace(" ", "")
    if not compact_query:
        return computer.Grounding(query=query, status="not_found")
    n_query = len(wanted.split())
    candidates: list[_Candidate] = []
    for line in screen.lines:
        for run in word_runs(line):
            words = [w for w in run if region is None or region.contains(w.box.center)]
            tokens = [normalize(w.text) for w in words]
            for start in range(len(words)):
                for length in range(max(1, n_query - 1), n_query + 2):
                    end = start + length
                    if end > len(words):
                        break
                    compact = "".join(tokens[start:end])
                    if not compact:
                        continue
                    exact = compact == compact_query
                    score = 1.0 if exact else _similarity(compact, compact_query)
                    if score < min_score:
                        continue
                    whole = start == 0 and end == len(words)
                    box = union([w.box for w in words[start:end]])
                    rank = 3 if exact and whole else 2 if exact else 1
                    candidates.append(
                        _Candidate(
                            computer.TextMatch(
                                text=" ".join(w.text for w in words[start:end]),
                                box=box,
                                center=box.center,
                                score=round(score, 3),
                                exact=exact,
                            ),
                            rank,
                        )
                    )
    if not candidates:
        return computer.Grounding(query=query, status="not_found")
    distinct = _best_per_place(candidates)
    top_rank = max(c.rank for c in distinct)
    tier = [c for c in distinct if c.rank == top_rank]
    best_score = max(c.match.score for c in tier)
    tied = [c for c in tier if c.match.score >= best_score - _TIE_MARGIN]
    tied.sort(key=lambda c: (-c.match.score, c.match.box.y, c.match.box.x))
    matches = tuple(c.match for c in tied)
    if len(matches) > 1:
        return computer.Grounding(query=query, status="ambiguous", matches=matches)
    others = sorted((c for c in distinct if c not in tied), key=lambda c: (-c.rank, -c.match.score))
    return computer.Grounding(
        query=query, status="found", matches=matches + tuple(c.match for c in others)
    )


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _best_per_place(candidates: list[_Candidate]) -> list[_Candidate]:
    """One candidate per screen place: overlapping candidates keep the best-ranked one."""
    ordered = sorted(candidates, key=lambda c: (-c.rank, -c.match.score, c.match.box.width))
    kept: list[_Candidate] = []
    for candidate in ordered:
        if all(candidate.match.box.intersection(k.match.box) is None for k in kept):
            kept.append(candidate)
    return kept
