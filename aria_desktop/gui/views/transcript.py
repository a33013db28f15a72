"""The chat transcript: one rich-text document with a frame per message.

Replies are Markdown from a model, so they are untrusted: raw HTML in them is not rendered
(``MarkdownNoHTML``) and links are not followed on click (the controller asks first). While a
reply streams, only its own frame is re-rendered, so long conversations stay cheap to update.
A model's reasoning gets its own card, folded by default ("Thinking…" while it streams), so it
never reads as the answer (ARCHITECTURE.md: thinking kept apart).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
    QTextFrameFormat,
    QTextLength,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from aria_desktop.gui.views.code_copy import add_copy_links, is_code_block
from aria_desktop.gui.views.transcript_theme import DARK, LIGHT, TranscriptTheme

__all__ = ["SUGGESTION_LINK", "TranscriptView"]

SUGGESTION_LINK = "aria-suggest:0"
"""The link of the placeholder's suggestion (clicking it sends the suggestion)."""

_MARKDOWN = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)


_SHOW = "▸ Show output"
_HIDE = "▾ Hide output"
_SHOW_THINKING = "▸ Show thinking"
_HIDE_THINKING = "▾ Hide thinking"
_THINKING = "Thinking…"
_THOUGHT = "Thought"
_DETAILS = "▸ Details"
_HIDE_DETAILS = "▾ Hide details"


@dataclass
class _Output:
    """A card's expandable text: a tool's output or a model's reasoning.

    Holds the card's frame, the text, whether it is shown, and the link's two labels.
    """

    frame: QTextFrame
    text: str
    shown: bool = False
    show: str = _SHOW
    hide: str = _HIDE


def _frame_format(background: str, *, border: str | None = None) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setBackground(QColor(background))
    fmt.setPadding(10)
    fmt.setMargin(6)
    fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
    if border is not None:
        fmt.setBorder(1)
        fmt.setBorderBrush(QColor(border))
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    else:
        fmt.setBorder(0)
    return fmt


class TranscriptView(QTextBrowser):
    """Renders messages, streamed replies, tool cards, badges and errors."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        self.document().setDefaultStyleSheet(self._theme.style())
        self.document().setDocumentMargin(8)
        self._reply: QTextFrame | None = None
        self._reply_body_start = 0
        self._tail_start = 0
        self._stable_text = ""
        self._placeholder = True
        self._outputs: dict[str, _Output] = {}
        self.generation = 0
        """Counts clears: positions taken before a clear mean nothing after it."""
        self.show_placeholder()

    def changeEvent(self, event: QEvent) -> None:
        """A light/dark switch: code and links in what is drawn next take the new colours."""
        if event.type() == QEvent.Type.PaletteChange:
            self.document().setDefaultStyleSheet(self._theme.style())
        super().changeEvent(event)

    @property
    def _theme(self) -> TranscriptTheme:
        """Light or dark colours, as the widget's palette is now."""
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        return DARK if dark else LIGHT

    # --- whole-document operations ------------------------------------------------------------

    def show_placeholder(
        self, text: str = "Ask ARIA anything. Replies appear here.", suggestion: str = ""
    ) -> None:
        """An empty conversation's hint; with ``suggestion``, a link under it that sends it."""
        self.generation += 1
        self.clear()
        self._reply = None
        self._placeholder = True
        self.placeholder_text = text
        self.code_blocks: dict[str, str] = {}  # a copy link's key -> the code it copies
        self.suggestion = suggestion
        cursor = QTextCursor(self.document())
        block = QTextBlockFormat()
        block.setAlignment(Qt.AlignmentFlag.AlignCenter)
        block.setTopMargin(40)
        cursor.setBlockFormat(block)
        cursor.insertText(text, self._char(color=self._theme.muted, size_delta=1))
        if suggestion:
            block.setTopMargin(12)
            cursor.insertBlock(block)
            link = self._link(SUGGESTION_LINK)
            link.setFontPointSize(link.fontPointSize() + 3)
            cursor.insertText(f"“{suggestion}”", link)

    @property
    def is_placeholder(self) -> bool:
        """Whether only the empty conversation's hint is shown."""
        return self._placeholder

    def _ensure_started(self) -> None:
        if self._placeholder:
            self.clear()
            self._placeholder = False

    def plain_text(self) -> str:
        """The transcript as plain text (what a screen reader or a copy gets)."""
        return self.document().toPlainText()

    # --- messages ----------------------------------------------------------------------------

    def append_user(self, text: str, *, note: str = "") -> None:
        """The user's message (plain text, shown as typed), and ``note`` (what went with it)."""
        frame = self._new_frame(_frame_format(self._theme.user_bg))
        cursor = frame.firstCursorPosition()
        cursor.insertText("You", self._char(bold=True, color=self._theme.you))
        cursor.insertBlock()
        cursor.insertText(text, self._char())
        if note:
            cursor.insertBlock()
            cursor.insertText(note, self._char(color=self._theme.muted, size_delta=-1))
        self._scroll_to_end()

    def append_reply(self, markdown: str, badge: str = "", *, note: str = "") -> None:
        """A finished assistant message (from history)."""
        self.begin_reply()
        self.set_reply_markdown(markdown)
        self.end_reply(badge, note=note)

    def begin_reply(self) -> None:
        """Open a frame for a reply that will stream in."""
        frame = self._new_frame(_frame_format(self._theme.aria_bg, border=self._theme.aria_border))
        cursor = frame.firstCursorPosition()
        cursor.insertText("ARIA", self._char(bold=True, color=self._theme.aria))
        self._reply = frame
        self._reply_body_start = cursor.position()
        self._tail_start = self._reply_body_start
        self._stable_text = ""

    @property
    def reply_open(self) -> bool:
        """Whether a reply frame is open."""
        return self._reply is not None

    def set_reply_markdown(self, markdown: str) -> None:
        """Replace the open reply's text (called as more of it arrives).

        Paragraphs that can no longer change (before the last blank line outside a code
        block) are rendered once; only the last paragraph is re-rendered on each update, so
        the cost per update does not grow with the length of the reply.
        """
        frame = self._reply
        if frame is None:
            self.begin_reply()
            frame = self._reply
            assert frame is not None
        at_end = self._at_end()
        if not markdown.startswith(self._stable_text):
            self._replace(self._reply_body_start, frame, "")
            self._stable_text = ""
            self._tail_start = self._reply_body_start
        stable_length = _stable_prefix_length(markdown)
        if stable_length > len(self._stable_text):
            fresh = markdown[len(self._stable_text) : stable_length]
            self._tail_start = self._replace(self._tail_start, frame, fresh)
            self._stable_text = markdown[:stable_length]
        self._replace(self._tail_start, frame, markdown[stable_length:])
        if at_end:
            self._scroll_to_end()

    def _replace(self, start: int, frame: QTextFrame, markdown: str) -> int:
        """Put ``markdown`` from ``start`` to the end of ``frame``; returns where it ends."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        if markdown.strip():
            cursor.insertBlock(QTextBlockFormat(), self._char())
            text_list = cursor.currentList()
            if text_list is not None:  # a block after a list item would join the list
                text_list.remove(cursor.block())
                cursor.setBlockFormat(QTextBlockFormat())
            # A trailing blank line would make the importer add an empty list item.
            cursor.insertMarkdown(markdown.strip("\n"), _MARKDOWN)
            self._shade_code_blocks(start, cursor.position())
        return cursor.position()

    def end_reply(self, badge: str = "", *, note: str = "") -> None:
        """Close the open reply; ``badge`` (model, where it ran, latency) goes under it."""
        frame = self._reply
        self._reply = None
        if frame is None:
            return
        add_copy_links(frame, self._link, self.code_blocks)
        if badge or note:
            cursor = frame.lastCursorPosition()
            cursor.insertBlock(QTextBlockFormat(), self._char())
            if note:
                cursor.insertText(
                    note + ("   " if badge else ""), self._char(color=self._theme.note)
                )
            if badge:
                cursor.insertText(badge, self._char(color=self._theme.muted, size_delta=-1))
        self._scroll_to_end()

    def append_sources(self, sources: list[tuple[str, str]]) -> list[tuple[int, int]]:
        """A quiet "Sources" line of ``(label, link)`` items; returns each item's span.

        The spans let :meth:`mark_changed` mark a source later without moving any text.
        """
        self._ensure_started()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertBlock(QTextBlockFormat(), self._char())
        cursor.insertText("Sources: ", self._char(color=self._theme.muted, size_delta=-1))
        spans: list[tuple[int, int]] = []
        for index, (label, link) in enumerate(sources):
            if index:
                cursor.insertText("  ·  ", self._char(color=self._theme.muted, size_delta=-1))
            fmt = self._char(color=self._theme.link, size_delta=-1)
            fmt.setAnchor(True)
            fmt.setAnchorHref(link)
            fmt.setToolTip(link)
            start = cursor.position()
            cursor.insertText(label, fmt)
            spans.append((start, cursor.position()))
        self._scroll_to_end()
        return spans

    def mark_changed(self, span: tuple[int, int], note: str) -> None:
        """Mark a source of an earlier answer as changed since (struck through, ``note`` tip)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat()
        fmt.setFontStrikeOut(True)
        fmt.setForeground(QColor(self._theme.note))
        fmt.setToolTip(note)
        cursor.mergeCharFormat(fmt)

    def append_tool_card(
        self, label: str, title: str, detail: str, status: str, output: str = ""
    ) -> None:
        """A compact card for a tool call: what kind, what was called, and the result.

        With ``output`` (file and shell tools) the card has a "Show output" link that expands
        the whole output inside the card (:meth:`toggle_output`).
        """
        border = self._theme.card_border(status)
        frame = self._new_frame(_frame_format(self._theme.card_bg, border=border))
        cursor = frame.firstCursorPosition()
        cursor.insertText(f"{label}  ", self._char(bold=True, size_delta=-1))
        cursor.insertText(title, self._char(size_delta=-1, mono=True))
        status_text = {"ok": "done", "error": "failed", "denied": "not allowed"}.get(status, status)
        cursor.insertText(f"   {status_text}", self._char(color=self._theme.muted, size_delta=-1))
        if detail:
            cursor.insertBlock()
            cursor.insertText(detail, self._char(color=self._theme.detail, size_delta=-1))
        if output:
            key = f"aria-tool:{len(self._outputs)}"
            self._outputs[key] = _Output(frame=frame, text=output)
            cursor.insertBlock()
            cursor.insertText(_SHOW, self._link(key))
        self._scroll_to_end()

    def begin_thinking(self) -> str:
        """A folded "Thinking…" card for reasoning that streams in; returns its link key."""
        frame = self._new_frame(
            _frame_format(self._theme.card_bg, border=self._theme.thinking_border)
        )
        cursor = frame.firstCursorPosition()
        cursor.insertText(
            _THINKING, self._char(italic=True, color=self._theme.muted, size_delta=-1)
        )
        cursor.insertText("   ", self._char(size_delta=-1))
        key = f"aria-tool:{len(self._outputs)}"
        self._outputs[key] = _Output(frame=frame, text="", show=_SHOW_THINKING, hide=_HIDE_THINKING)
        cursor.insertText(_SHOW_THINKING, self._link(key))
        self._scroll_to_end()
        return key

    def set_thinking(self, key: str, text: str) -> None:
        """The card's reasoning so far (redrawn only while the card is unfolded)."""
        entry = self._outputs.get(key)
        if entry is None:
            return
        entry.text = text
        if entry.shown:
            self._fold(key, entry)
            self._unfold(key, entry)

    def end_thinking(self, key: str) -> None:
        """The reasoning is complete: the card's "Thinking…" becomes "Thought"."""
        entry = self._outputs.get(key)
        if entry is None:
            return
        found = self.document().find(_THINKING, entry.frame.firstPosition())
        if not found.isNull() and found.position() <= entry.frame.lastPosition():
            found.insertText(
                _THOUGHT, self._char(italic=True, color=self._theme.muted, size_delta=-1)
            )

    def append_thinking(self, text: str) -> str:
        """A stored reply's reasoning: a folded, finished card; returns its link key."""
        key = self.begin_thinking()
        self.set_thinking(key, text)
        self.end_thinking(key)
        return key

    def is_unfolded(self, key: str) -> bool:
        """Whether the card behind link ``key`` shows its text."""
        entry = self._outputs.get(key)
        return entry is not None and entry.shown

    def toggle_output(self, key: str) -> bool:
        """Expand or fold the text of the card behind link ``key``; False if unknown."""
        entry = self._outputs.get(key)
        if entry is None:
            return False
        done = self._fold(key, entry) if entry.shown else self._unfold(key, entry)
        if done:
            entry.shown = not entry.shown
        return done

    def _find_link(self, entry: _Output, label: str) -> QTextCursor | None:
        link = self.document().find(label, entry.frame.firstPosition())
        if link.isNull() or link.position() > entry.frame.lastPosition():
            return None
        return link

    def _fold(self, key: str, entry: _Output) -> bool:
        return self._set_shown(key, entry, shown=False)

    def _unfold(self, key: str, entry: _Output) -> bool:
        return self._set_shown(key, entry, shown=True)

    def _set_shown(self, key: str, entry: _Output, *, shown: bool) -> bool:
        """Swap the card's link label and show (or remove) the text after it."""
        link = self._find_link(entry, entry.show if shown else entry.hide)
        if link is None:
            return False
        link.insertText(entry.hide if shown else entry.show, self._link(key))
        cursor = QTextCursor(self.document())
        cursor.setPosition(link.position())
        if shown:
            cursor.insertBlock()
            cursor.insertText(entry.text, self._char(size_delta=-1, mono=True))
        else:
            # Everything after the link up to the card's end is the shown text.
            cursor.setPosition(entry.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
        return True

    def _link(self, key: str) -> QTextCharFormat:
        fmt = self._char(color=self._theme.link, size_delta=-1)
        fmt.setAnchor(True)
        fmt.setAnchorHref(key)
        fmt.setFontUnderline(True)
        return fmt

    def append_error(
        self,
        message: str,
        hint: str = "",
        *,
        actions: tuple[tuple[str, str], ...] = (),
        detail: str = "",
        notice: bool = False,
    ) -> None:
        """A failure in plain words; ``actions`` (label, link) as buttons, ``detail`` folded.

        ``notice``: a state to know about rather than a failure (no model set up yet), drawn
        in the calmer amber of a notice instead of an error's red.
        """
        theme = self._theme
        background, border, color, hint_color = (
            (theme.notice_bg, theme.notice_border, theme.notice_text, theme.text)
            if notice
            else (theme.error_bg, theme.error_border, theme.error_text, theme.error_hint)
        )
        frame = self._new_frame(_frame_format(background, border=border))
        cursor = frame.firstCursorPosition()
        cursor.insertText(message, self._char(bold=True, color=color))
        if hint:
            cursor.insertBlock()
            cursor.insertText(hint, self._char(color=hint_color))
        if actions or detail:
            cursor.insertBlock()
        for label, link in actions:
            button = self._link(link)
            button.setFontUnderline(False)
            button.setFontWeight(QFont.Weight.Bold)
            button.setBackground(QColor(self._theme.aria_bg))
            cursor.insertText(f"  {label}  ", button)
            cursor.insertText("   ", self._char(size_delta=-1))
        if detail:
            key = f"aria-tool:{len(self._outputs)}"
            self._outputs[key] = _Output(frame, detail, show=_DETAILS, hide=_HIDE_DETAILS)
            cursor.insertText(_DETAILS, self._link(key))
        self._scroll_to_end()

    def append_notice(self, text: str) -> None:
        """A quiet line (stopped, fell back to another model, ...)."""
        self._ensure_started()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertBlock(QTextBlockFormat(), self._char())
        cursor.insertText(text, self._char(color=self._theme.muted, size_delta=-1, italic=True))
        self._scroll_to_end()

    # --- helpers -----------------------------------------------------------------------------

    def _new_frame(self, fmt: QTextFrameFormat) -> QTextFrame:
        self._ensure_started()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor.insertFrame(fmt)

    def _char(
        self,
        *,
        bold: bool = False,
        italic: bool = False,
        color: str = "",
        size_delta: int = 0,
        mono: bool = False,
    ) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Weight.Bold if bold else QFont.Weight.Normal)
        fmt.setFontItalic(italic)
        fmt.setForeground(QColor(color or self._theme.text))
        base = self.font().pointSizeF()
        if base > 0:
            fmt.setFontPointSize(max(6.0, base + size_delta))
        if mono:
            fmt.setFontFamilies(["monospace"])
        return fmt

    def _shade_code_blocks(self, start: int, end: int) -> None:
        """Give fenced code blocks a background (Markdown import leaves them plain)."""
        document = self.document()
        block = document.findBlock(start)
        shaded = QTextBlockFormat()
        shaded.setBackground(QColor(self._theme.code_bg))
        while block.isValid() and block.position() <= end:
            if is_code_block(block):
                QTextCursor(block).mergeBlockFormat(shaded)
            block = block.next()

    def _at_end(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())


def _stable_prefix_length(markdown: str) -> int:
    """Length of the leading paragraphs that later text cannot change.

    That is everything up to the last blank line that is not inside a fenced code block.
    """
    end = markdown.rfind("\n\n")
    while end >= 0:
        if markdown.count("```", 0, end) % 2 == 0:
            return end + 2
        end = markdown.rfind("\n\n", 0, end)
    return 0


def escape(text: str) -> str:
    """HTML-escape text for labels that use rich text."""
    return html.escape(text, quote=False)
