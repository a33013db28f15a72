"""The chat window: conversations on the left, the transcript and composer on the right."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QCloseEvent, QIcon, QKeyEvent, QKeySequence, QPainter, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.gui.theme import mark
from aria_desktop.gui.views.actions import ActionSet
from aria_desktop.gui.views.transcript import TranscriptView

__all__ = ["ChatWindowView", "ComposerEdit"]

CONVERSATION_ID_ROLE = Qt.ItemDataRole.UserRole
DATE_ROLE = Qt.ItemDataRole.UserRole + 1
"""When the conversation last changed, as the list shows it ("Today 14:02", "3 Mar")."""


class _DatedRow(QStyledItemDelegate):
    """A conversation's title with its date in quieter text at the right of the row."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        """Draw the title (elided before the date), then the date right-aligned."""
        date = str(index.data(DATE_ROLE) or "")
        width = option.fontMetrics.horizontalAdvance(date) + 16 if date else 0
        row = QStyleOptionViewItem(option)
        self.initStyleOption(row, index)
        # The whole row is drawn (its selection too); only the title stops before the date.
        row.text = row.fontMetrics.elidedText(
            row.text, Qt.TextElideMode.ElideRight, max(0, row.rect.width() - width - 8)
        )
        widget = row.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, row, painter, widget)
        if not date:
            return
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = (
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText
        )
        painter.setPen(option.palette.color(role))
        area = option.rect.adjusted(0, 0, -6, 0)
        painter.drawText(
            area, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), date
        )
        painter.restore()


class ComposerEdit(QPlainTextEdit):
    """Message input: Enter sends, Shift+Enter starts a new line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Send on Enter; keep Shift+Enter as a line break."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


def _pane(
    top: QWidget, body: QWidget, bottom: QLayout, margins: tuple[int, int, int, int]
) -> QWidget:
    """One side of the splitter: ``top``, then ``body`` taking the spare height, then ``bottom``.

    Both sides are built this way so the list and the transcript grow together when the window
    is resized; ``margins`` keep the gap at the splitter narrower than at the window edge.
    """
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(*margins)
    layout.addWidget(top)
    layout.addWidget(body, 1)
    layout.addLayout(bottom)
    return pane


class ChatWindowView(QMainWindow):
    """Layout of the chat window; the ``ChatController`` fills it and reacts to it."""

    close_requested = Signal()
    """The user closed the window (the controller decides: hide, or quit without a tray)."""

    def __init__(self, actions: ActionSet, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ARIA")
        self.setWindowIcon(icon)
        self.resize(980, 680)
        self.setMinimumSize(640, 420)

        self._build_menu(actions)
        left = self._build_conversation_list()
        right = self._build_transcript_pane()

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 720])
        splitter.setChildrenCollapsible(False)
        self.setCentralWidget(splitter)

        self.status = QLabel("Starting…")
        self.status.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().setSizeGripEnabled(True)
        self._add_shortcuts(actions)

    def _add_shortcuts(self, actions: ActionSet) -> None:
        """Ctrl+N a new conversation, Ctrl+F find, Ctrl+, settings (also in the menu)."""
        actions.settings.setShortcut(QKeySequence("Ctrl+,"))
        actions.settings.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.addAction(actions.settings)
        self.new_shortcut = QShortcut(QKeySequence.StandardKey.New, self)
        self.new_shortcut.activated.connect(self.new_button.click)
        self.find_shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        self.find_shortcut.activated.connect(self._find)

    def _find(self) -> None:
        """Ctrl+F: the search box, its text selected to type over."""
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _build_menu(self, actions: ActionSet) -> None:
        """The ARIA menu: quick ask, voice and computer control, the other windows, quit."""
        menu = self.menuBar().addMenu("&ARIA")
        menu.addAction(actions.quick_ask)
        menu.addSeparator()
        menu.addAction(actions.push_to_talk)
        menu.addAction(actions.mute)
        menu.addAction(actions.computer_control)
        menu.addAction(actions.stop_everything)
        menu.addSeparator()
        menu.addAction(actions.everyday)
        menu.addAction(actions.memory)
        menu.addAction(actions.knowledge)
        menu.addAction(actions.settings)
        menu.addSeparator()
        menu.addAction(actions.quit)
        menu.setToolTipsVisible(True)

    def _build_conversation_list(self) -> QWidget:
        """The left pane: the conversation search, the list, and new, rename and delete."""
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search conversations (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.conversations = QListWidget()
        self.conversations.setObjectName("conversations")
        self.conversations.setAlternatingRowColors(False)
        self.conversations.setEditTriggers(QListWidget.EditTrigger.EditKeyPressed)
        self.conversations.setItemDelegate(_DatedRow(self.conversations))
        self.new_button = QPushButton("New")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.rename_button = QPushButton("Rename")
        self.delete_button = QPushButton("Delete")
        buttons = QHBoxLayout()
        for button in (self.new_button, self.rename_button, self.delete_button):
            buttons.addWidget(button)
        return _pane(self.search, self.conversations, buttons, (8, 8, 4, 8))

    def _build_transcript_pane(self) -> QWidget:
        """The right pane: the banner, the transcript, and the composer with send and stop."""
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        mark(self.banner, "banner")
        self.banner.hide()
        self.transcript = TranscriptView()
        self.transcript.setObjectName("transcript")
        self.composer = ComposerEdit()
        self.composer.setObjectName("composer")
        self.composer.setPlaceholderText("Message ARIA — Enter sends, Shift+Enter for a new line")
        self.composer.setFixedHeight(84)
        self.send_button = QPushButton("Send")
        self.send_button.setDefault(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop this reply")
        self.stop_button.setEnabled(False)
        self.attach_button = QPushButton("Attach…")
        self.attach_button.setObjectName("attach")
        self.attach_button.setToolTip(
            "Attach something a tool server offers (a note, a file) to your next message"
        )
        self.attach_menu = QMenu(self.attach_button)
        self.attach_menu.setObjectName("attachMenu")
        self.attach_menu.setToolTipsVisible(True)
        send_column = QVBoxLayout()
        send_column.addWidget(self.send_button)
        send_column.addWidget(self.stop_button)
        send_column.addWidget(self.attach_button)
        send_column.addStretch(1)
        composer_row = QHBoxLayout()
        composer_row.addWidget(self.composer, 1)
        composer_row.addLayout(send_column)
        bottom = QVBoxLayout()
        bottom.addLayout(self._build_attached_row())
        bottom.addLayout(composer_row)
        return _pane(self.banner, self.transcript, bottom, (4, 8, 8, 8))

    def _build_attached_row(self) -> QHBoxLayout:
        """What goes with the next message (hidden while nothing is attached)."""
        self.attached = QLabel()
        self.attached.setObjectName("attached")
        self.attached.setWordWrap(True)
        self.attached.setTextFormat(Qt.TextFormat.PlainText)
        mark(self.attached, "muted")
        self.remove_attached_button = QPushButton("Remove")
        self.remove_attached_button.setToolTip("Send the next message without these")
        row = QHBoxLayout()
        row.addWidget(self.attached, 1)
        row.addWidget(self.remove_attached_button)
        self.show_attached("")
        return row

    def show_attached(self, text: str) -> None:
        """What the next message carries ("" hides the row)."""
        self.attached.setText(text)
        self.attached.setVisible(bool(text))
        self.remove_attached_button.setVisible(bool(text))

    # --- small view helpers (no behaviour) ----------------------------------------------------

    def show_banner(self, text: str) -> None:
        """A message above the transcript ("" hides it)."""
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    def set_busy(self, busy: bool) -> None:
        """A reply is streaming: Stop is enabled."""
        self.stop_button.setEnabled(busy)

    def set_conversations(
        self,
        items: list[tuple[str, str]],
        selected: str | None,
        dates: dict[str, str] | None = None,
    ) -> None:
        """Fill the list with ``(conversation id, title)``; keep ``selected`` highlighted.

        ``dates`` holds each conversation's date as the row shows it at its right.
        """
        self.conversations.blockSignals(True)
        try:
            self.conversations.clear()
            for conversation_id, title in items:
                item = QListWidgetItem(title or "Untitled")
                item.setData(CONVERSATION_ID_ROLE, conversation_id)
                item.setData(DATE_ROLE, (dates or {}).get(conversation_id, ""))
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(title)
                self.conversations.addItem(item)
                if conversation_id == selected:
                    self.conversations.setCurrentItem(item)
        finally:
            self.conversations.blockSignals(False)

    def bring_to_front(self) -> None:
        """Show, un-minimize and raise the window."""
        self.show()
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.raise_()
        self.activateWindow()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Let the controller decide what closing means."""
        event.ignore()
        self.close_requested.emit()
