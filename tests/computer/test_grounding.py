"""Text grounding over OCR results (pure): tolerant matching, strict about ambiguity."""

from __future__ import annotations

import pytest

from aria_desktop.adapters.computer.grounding import (
    build_elements,
    element_at,
    find_text,
    normalize,
)
from aria_desktop.domain.computer import OcrLine, OcrWord, Point, Rect, ScreenText


def screen(*rows: list[tuple[str, int]], y0: int = 100, height: int = 12) -> ScreenText:
    """Rows of (word, x) at 40 px spacing; each word ~8 px per character."""
    lines = []
    for row_index, row in enumerate(rows):
        y = y0 + row_index * 40
        words = tuple(
            OcrWord(
                text=text,
                confidence=95.0,
                box=Rect(x, y, 8 * len(text), height),
                block=1,
                line=row_index + 1,
            )
            for text, x in row
        )
        lines.append(
            OcrLine(
                id=row_index + 1,
                text=" ".join(w.text for w in words),
                box=Rect(words[0].box.x, y, words[-1].box.right - words[0].box.x, height),
                block=1,
                words=words,
            )
        )
    ordered = tuple(lines)
    return ScreenText(
        region=Rect(0, 0, 1280, 800),
        words=tuple(w for ln in ordered for w in ln.words),
        lines=ordered,
        elements=build_elements(ordered),
    )


FORM = screen(
    [("Full", 50), ("name:", 86)],
    [("Send", 50), ("Delete", 300), ("Save", 550), ("Draft", 588)],
    [("Sender:", 50), ("bob@example.org", 120)],
)


def test_normalize_folds_case_spacing_and_edge_punctuation() -> None:
    assert normalize("  Full\tNAME: ") == "full name"
    assert normalize("“Save”…") == "save"
    assert normalize("e-mail") == "e-mail"


def test_elements_split_rows_at_wide_gaps_and_number_in_reading_order() -> None:
    assert [(e.id, e.text) for e in FORM.elements] == [
        (1, "Full name:"),
        (2, "Send"),
        (3, "Delete"),
        (4, "Save Draft"),
        (5, "Sender:"),
        (6, "bob@example.org"),
    ]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("Send", "Send"),
        ("send", "Send"),
        ("SAVE   draft", "Save Draft"),
        ("savedraft", "Save Draft"),
        ("Full name", "Full name:"),
        ("Delet", "Delete"),  # one letter missing (OCR or the user)
        ("Sender", "Sender:"),
    ],
)
def test_tolerant_matching(query: str, found: str) -> None:
    result = find_text(FORM, query)
    assert result.status == "found"
    assert result.best is not None
    assert result.best.text == found


def test_a_whole_label_beats_the_same_word_inside_a_longer_one() -> None:
    result = find_text(FORM, "Draft")
    assert result.status == "found"
    assert result.best is not None
    assert result.best.text == "Draft"
    text = screen([("Draft", 50)], [("Save", 300), ("Draft", 338)])
    best = find_text(text, "Draft").best
    assert best is not None
    assert best.box.x == 50


def test_equal_candidates_are_reported_as_ambiguous_never_guessed() -> None:
    text = screen([("OK", 50), ("Cancel", 200)], [("OK", 50)])
    result = find_text(text, "ok")
    assert result.status == "ambiguous"
    assert result.best is None
    assert [m.box.y for m in result.matches] == [100, 140]


def test_equally_fuzzy_candidates_are_ambiguous_too() -> None:
    text = screen([("Submlt", 50)], [("Subnit", 50)])
    assert find_text(text, "Submit").status == "ambiguous"


def test_unrelated_text_is_not_found() -> None:
    assert find_text(FORM, "Transfer money").status == "not_found"
    assert find_text(FORM, "   ").status == "not_found"
    assert find_text(FORM, "Sand").status == "not_found"  # too different from "Send"


def test_region_limits_the_search() -> None:
    text = screen([("OK", 50)], [("OK", 50)])
    result = find_text(text, "OK", region=Rect(0, 130, 400, 40))
    assert result.status == "found"
    assert result.best is not None
    assert result.best.box.y == 140


def test_match_centre_is_inside_the_box() -> None:
    best = find_text(FORM, "Save Draft").best
    assert best is not None
    assert best.box.contains(best.center)


def test_element_at_point_with_tolerance() -> None:
    element = element_at(FORM, Point(310, 146))
    assert element is not None
    assert element.text == "Delete"
    assert element_at(FORM, Point(900, 600)) is None
