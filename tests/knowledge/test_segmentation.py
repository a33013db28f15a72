"""Documents are cut where their authors cut them: headings in plain text, rows of tables.

A passage keeps the topic it is under and a table row keeps the names of its columns, so a
question about "the blue bin" or "the Wi-Fi password" finds the one passage that answers it.
"""

from __future__ import annotations

from pathlib import Path

from aria_desktop.adapters.knowledge.formats_html import html_document
from aria_desktop.adapters.knowledge.formats_text import (
    markdown_document,
    plain_document,
)

NOTES = """WI-FI DETAILS
Network: Harbour-5G
Password: tide-pool-42

Bin collection:

- Green bin on Mondays.

Heating
=======

The boiler service is due every October.

A short line without heading
"""


def test_plain_text_headings_in_capitals_with_a_colon_or_underlined_head_their_paragraphs() -> None:
    doc = plain_document(NOTES, "notes")
    found = [(block.heading, block.text) for block in doc.blocks]
    assert found == [
        (("WI-FI DETAILS",), "Network: Harbour-5G\nPassword: tide-pool-42"),
        (("WI-FI DETAILS", "Bin collection"), "- Green bin on Mondays."),
        (("Heating",), "The boiler service is due every October."),
        (("Heating",), "A short line without heading"),
    ]
    for block in doc.blocks:
        assert NOTES[block.start : block.end] == block.text  # offsets stay exact


def test_a_key_value_line_or_a_sentence_is_not_taken_for_a_heading() -> None:
    doc = plain_document("Password: tide-pool-42\n\nCall the landlord.\n\nOK\n", "notes")
    assert [block.heading for block in doc.blocks] == [(), (), ()]


def test_a_markdown_table_row_keeps_its_column_names_and_is_never_cut() -> None:
    text = "# Prices\n\n| Item | Price |\n|------|------:|\n| Coffee | 2.50 |\n| Tea | 2.00 |\n"
    doc = markdown_document(text, "prices")
    assert [(block.heading, block.text) for block in doc.blocks] == [
        (("Prices",), "Item: Coffee; Price: 2.50"),
        (("Prices",), "Item: Tea; Price: 2.00"),
    ]
    assert text[doc.blocks[0].start : doc.blocks[0].end] == "| Coffee | 2.50 |"


def test_a_pipe_in_running_text_is_not_a_table() -> None:
    doc = markdown_document("Use a | b for both.\nAnd more.\n", "t")
    assert [block.text for block in doc.blocks] == ["Use a | b for both.\nAnd more."]


PAGE = """<html><head><title>Bins</title></head><body>
<div class="content"><h2>Collections</h2>Collected <b>every</b> week, <a href="/map">see
the map</a>.<br>Bags go out by 7am.
<table><caption>Collection days</caption>
<tr><th>Bin</th><th>Day</th></tr>
<tr><td>Green</td><td>Monday</td></tr>
<tr><td>Blue</td><td>Friday</td></tr></table>
<table><tr><td>Depot</td><td>Mill Lane</td></tr></table>
<p>Questions? Call the council.</p></div></body></html>"""


def test_html_running_text_with_links_and_bold_words_stays_one_sentence() -> None:
    doc = html_document(PAGE, "bins")
    assert doc.blocks[0].text == "Collected every week, see the map. Bags go out by 7am."
    assert doc.blocks[0].heading == ("Collections",)


def test_html_table_rows_are_read_with_their_headers_under_the_tables_caption() -> None:
    doc = html_document(PAGE, "bins")
    rows = [(block.heading, block.text) for block in doc.blocks[1:4]]
    assert rows == [
        (("Collections", "Collection days"), "Bin: Green; Day: Monday"),
        (("Collections", "Collection days"), "Bin: Blue; Day: Friday"),
        (("Collections",), "Depot | Mill Lane"),
    ]
    assert doc.blocks[4].text == "Questions? Call the council."


def _docx(path: Path, rows: list[tuple[str, str]], *, bold_header: bool = False) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Childminding agreement", level=1)
    table = document.add_table(rows=len(rows), cols=2)
    for r, (left, right) in enumerate(rows):
        for c, text in enumerate((left, right)):
            run = table.cell(r, c).paragraphs[0].add_run(text)
            run.bold = bold_header and r == 0
    document.save(str(path))
    return path


def test_a_docx_table_under_a_header_row_names_each_value_by_its_column(tmp_path: Path) -> None:
    from aria_desktop.adapters.knowledge.formats_office import docx_document

    fees = [("Item", "Charge"), ("Hourly rate", "£7.00 per hour"), ("Late collection", "£15")]
    doc = docx_document(_docx(tmp_path / "a.docx", fees).read_bytes(), "a", "a.docx")
    assert [block.text for block in doc.blocks] == [
        "Item: Hourly rate; Charge: £7.00 per hour",
        "Item: Late collection; Charge: £15",
    ]
    words = [("Room", "Heating"), ("Kitchen", "Underfloor"), ("Hall", "Radiator")]
    bold = docx_document(
        _docx(tmp_path / "b.docx", words, bold_header=True).read_bytes(), "b", "b.docx"
    )
    assert bold.blocks[0].text == "Room: Kitchen; Heating: Underfloor"  # a bold header row


def test_a_docx_key_value_table_without_a_header_keeps_its_rows_as_they_are(
    tmp_path: Path,
) -> None:
    from aria_desktop.adapters.knowledge.formats_office import docx_document

    terms = [("Deposit", "three months of rent"), ("Notice period", "three months")]
    doc = docx_document(_docx(tmp_path / "c.docx", terms).read_bytes(), "c", "c.docx")
    assert [block.text for block in doc.blocks] == [
        "Deposit | three months of rent",
        "Notice period | three months",
    ]
