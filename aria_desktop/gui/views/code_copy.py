"""A "Copy code" link under each code block of a finished reply.

The Markdown importer leaves a fenced block as consecutive blocks carrying the code-fence
property; each run of them gets one link under it, and the link's key maps to the block's
text, which the chat controller puts on the clipboard when the link is clicked (the text as
the model wrote it, without the shading or the link).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import (
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
    QTextFrame,
)

__all__ = ["COPY_LABEL", "COPY_SCHEME", "add_copy_links", "is_code_block"]

COPY_SCHEME = "aria-copy"
COPY_LABEL = "Copy code"


def is_code_block(block: QTextBlock) -> bool:
    """Whether ``block`` is a line of a fenced code block.

    The importer marks such lines with the code-fence property, but a block that starts or
    ends an inserted piece of Markdown takes the format of the block it is merged into and
    loses it; its characters keep their fixed-pitch family, so a line set wholly in it counts.
    """
    if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
        return True
    it, fixed = block.begin(), False
    while not it.atEnd():
        families = it.fragment().charFormat().fontFamilies() or []  # None when unset
        if "monospace" not in families:
            return False
        fixed = True
        it += 1
    return fixed


def _code_runs(frame: QTextFrame) -> list[tuple[QTextBlock, list[str]]]:
    """Each run of code-fence blocks in ``frame``: its last block and its lines."""
    runs: list[tuple[QTextBlock, list[str]]] = []
    lines: list[str] = []
    last = QTextBlock()
    block = frame.document().findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        if is_code_block(block):
            lines.append(block.text())
            last = block
        elif lines:
            runs.append((last, lines))
            lines = []
        block = block.next()
    if lines:
        runs.append((last, lines))
    return runs


def add_copy_links(
    frame: QTextFrame, link: Callable[[str], QTextCharFormat], store: dict[str, str]
) -> None:
    """Put a copy link under every code block in ``frame``; ``store`` gets key -> code."""
    runs = _code_runs(frame)
    keys = [f"{COPY_SCHEME}:{len(store) + index}" for index in range(len(runs))]
    # From the last run back, so inserting a link keeps the earlier blocks where they are.
    for key, (last, lines) in reversed(list(zip(keys, runs, strict=True))):
        store[key] = "\n".join(lines)
        cursor = QTextCursor(last)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        cursor.insertBlock(QTextBlockFormat())
        cursor.insertText(COPY_LABEL, link(key))
