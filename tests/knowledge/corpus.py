"""A generated folder of real documents (Markdown, HTML, multi-page PDF, DOCX) for the tests.

Generated with fpdf2 and python-docx at test time, so the files are what real tools write and
nothing binary is checked in. ``QUESTIONS`` pairs questions (and paraphrases that share few
words with the text) with the file and page or heading that answers them.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["QUESTIONS", "write_corpus", "write_pdf"]

ROUTER_MD = """# Home network

Notes about the flat's network, kept by hand.

## Router

The router admin page listens on port 8443 and the default user name is admin.
Firmware updates are installed by hand from the vendor's site.

## Printer

The office printer is a Brother HL-L2350 on the second floor. It prints double-sided only
when the tray is full.

## Backups

Photos are copied every Sunday night to the external disk labelled Archive.
"""

RECIPES_HTML = """<!doctype html>
<html><head><title>Grandma's recipes</title></head>
<body>
<header><a href="/">Home</a> <a href="/recipes">Recipes</a> <a href="/about">About us</a></header>
<nav class="main-menu"><ul><li>Soups</li><li>Cakes</li>
<li>Subscribe to our newsletter</li></ul></nav>
<main>
<h1>Grandma's recipes</h1>
<p>Family dishes written down before they were forgotten.</p>
<h2>Apple pie</h2>
<p>Bake the apple pie at 180 degrees Celsius for 45 minutes, until the crust is golden.</p>
<h2>Lentil soup</h2>
<ul><li>Simmer red lentils with cumin for twenty minutes.</li>
<li>Add lemon juice before serving.</li></ul>
</main>
<div id="sidebar">Popular: chocolate cookies with a secret ingredient</div>
<footer>Copyright 2024 Grandma's kitchen. All rights reserved.</footer>
</body></html>
"""

PDF_PAGES = (
    "Aurora espresso machine - user manual. Introduction: thank you for choosing the Aurora. "
    "Fill the water tank with fresh water before the first use.",
    "Descaling. Run the descaling programme every 90 days with a citric acid solution; hard "
    "water needs it every 60 days. The orange light blinks when descaling is due.",
    "Warranty. The warranty lasts 24 months from the date of purchase and covers the pump and "
    "the heating element. Keep the receipt.",
)

QUESTIONS: tuple[tuple[str, str, int | None, str], ...] = (
    # (question, file name, page, heading contained)
    ("What port does the router admin page use?", "router.md", None, "Home network > Router"),
    ("which port is the modem's settings website on", "router.md", None, "Router"),
    ("Which printer is in the office?", "router.md", None, "Printer"),
    ("when are my pictures saved to the external drive", "router.md", None, "Backups"),
    ("How often should the espresso machine be descaled?", "manual.pdf", 2, ""),
    ("how frequently do I remove limescale from the coffee maker", "manual.pdf", 2, ""),
    ("How long is the warranty?", "manual.pdf", 3, ""),
    ("for how many years is the guarantee valid", "manual.pdf", 3, ""),
    ("How much is the monthly rent?", "lease.docx", None, "Rent"),
    ("what do I pay for the apartment each month", "lease.docx", None, "Rent"),
    ("Am I allowed to keep a dog?", "lease.docx", None, "Pets"),
    ("At what temperature should the apple pie be baked?", "recipes.html", None, "Apple pie"),
    ("how hot should the oven be for the fruit tart", "recipes.html", None, "Apple pie"),
)


def write_pdf(path: Path, pages: tuple[str, ...], *, blank_pages: tuple[int, ...] = ()) -> None:
    """A real PDF with one text page per entry (and image-only pages at ``blank_pages``)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    texts = iter(pages)
    for number in range(1, len(pages) + len(blank_pages) + 1):
        pdf.add_page()
        if number in blank_pages:
            pdf.rect(20, 20, 100, 60, style="F")  # a "scan": ink, no text
        else:
            pdf.multi_cell(0, 8, next(texts))
    pdf.output(str(path))


def write_docx(path: Path) -> None:
    """A lease with Word heading styles and a table."""
    import docx

    document = docx.Document()
    document.add_heading("Lease agreement", level=0)
    document.add_heading("Rent", level=1)
    document.add_paragraph(
        "The monthly rent is 1,250 euros, due on the first working day of each month."
    )
    document.add_heading("Pets", level=1)
    document.add_paragraph("Tenants may keep one cat or one small dog in the flat.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Deposit"
    table.cell(0, 1).text = "three months of rent"
    table.cell(1, 0).text = "Notice period"
    table.cell(1, 1).text = "three months"
    document.save(str(path))


def write_corpus(folder: Path) -> Path:
    """The test folder: router.md, recipes.html, manual.pdf (3 pages), lease.docx."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "router.md").write_text(ROUTER_MD, encoding="utf-8")
    (folder / "recipes.html").write_text(RECIPES_HTML, encoding="utf-8")
    write_pdf(folder / "manual.pdf", PDF_PAGES)
    write_docx(folder / "lease.docx")
    return folder
