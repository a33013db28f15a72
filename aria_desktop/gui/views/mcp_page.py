"""Settings tab "MCP servers": servers with their status, tools with policy and approval.

Layout only; ``gui/controllers/mcp.py`` fills it and acts on it.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

__all__ = ["POLICIES", "McpPageView"]

POLICIES = ("ask", "always", "never")


class McpPageView(QWidget):
    """A tree of servers and their tools, the selected tool's details and the actions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpPage")
        self.note = QLabel(
            "Tools of MCP servers ask before each call unless set to always. Hints a server "
            "gives (read-only, destructive) are shown, never trusted. A tool that changes "
            "after you approved it is disabled until you review it."
        )
        self.note.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("mcpTree")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Server / tool", "Status / policy", "Approval"])
        self.details = QPlainTextEdit()
        self.details.setObjectName("mcpDetails")
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(160)
        self.refresh_button = QPushButton("Refresh")
        self.approve_button = QPushButton("Approve as it is now")
        self.approve_button.setEnabled(False)
        self.sign_in_button = QPushButton("Sign in…")
        self.sign_in_button.setToolTip("Opens the server's sign-in page in your web browser")
        self.sign_in_button.setEnabled(False)
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.setEnabled(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.sign_in_button)
        buttons.addWidget(self.sign_out_button)
        buttons.addStretch(1)
        buttons.addWidget(self.approve_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
