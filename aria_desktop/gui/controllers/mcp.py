"""The Settings dialog's MCP tab: what ``aria mcp servers``/``tools``/``review`` show, live.

Everything goes through the ``Assistant`` (in-process or over the API): ``ListMcp`` for the
servers and tools, ``SetMcpToolPolicy`` (and the setting ``mcp.servers.<name>.tools``, so the
choice survives a restart) and ``ApproveMcpTool`` after the user looked at a change. A remote
server that waits for a sign-in gets "Sign in…" (``SignInMcpServer``: the server's page opens
in the browser, the tab waits for the person) and, once signed in, "Sign out".
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QComboBox, QTreeWidgetItem, QWidget

from aria_desktop.domain.commands import (
    ApproveMcpTool,
    ListMcp,
    SetMcpToolPolicy,
    SignInMcpServer,
    SignOutMcpServer,
)
from aria_desktop.domain.error_text import for_people
from aria_desktop.domain.mcp import McpOverview, McpServerStatus, McpToolState
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.views.mcp_page import POLICIES, McpPageView

__all__ = ["NO_SERVERS", "McpController"]

NO_SERVERS = (
    "No tool servers are set up yet. Tool servers give ARIA more to work with: your notes, "
    "calendar or files. How to add one, or to bring over the ones another assistant uses, is "
    "in ARIA's guide under \u201cMCP\u201d."
)
"""The tab's words while no server is set up (plain words: no settings keys, no commands)."""

_TOOL_ROLE = Qt.ItemDataRole.UserRole
_SERVER_ROLE = Qt.ItemDataRole.UserRole + 1
_STATE_WORDS = {
    "starting": "starting",
    "running": "running",
    "restarting": "restarting",
    "needs-sign-in": "needs you to sign in",
    "failed": "not working",
    "stopped": "stopped",
}
_APPROVAL = {
    "not approved": "not yet approved",
    "approved": "approved",
    "changed": "CHANGED: disabled until reviewed",
}


class McpController(QObject):
    """Fills the MCP tab and sends the user's choices to ARIA."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.view: McpPageView | None = None
        self.overview = McpOverview()

    def add_tab(self, add_page: Callable[[str, QWidget], object]) -> McpPageView:
        """Add the page (once) to the settings dialog (``add_page(title, page)``), load it."""
        if self.view is None:
            self.view = McpPageView()
            add_page("Tool servers", self.view)
            self.view.refresh_button.clicked.connect(self.refresh)
            self.view.approve_button.clicked.connect(self._approve_selected)
            self.view.sign_in_button.clicked.connect(self._sign_in_selected)
            self.view.sign_out_button.clicked.connect(self._sign_out_selected)
            self.view.tree.itemSelectionChanged.connect(self._show_selected)
        self.refresh()
        return self.view

    def refresh(self) -> None:
        """Reload servers and tools from ARIA."""
        self.context.tasks.spawn(self._load(), name="aria-gui-mcp-load", on_error=self._error)

    async def _load(self) -> None:
        assistant = self.context.assistant
        capabilities = await assistant.capabilities()
        if any(status.name == "mcp" for status in capabilities):
            self.overview = await assistant.execute(ListMcp())
        else:  # an ARIA without MCP (turned off, or not installed)
            self.overview = McpOverview()
        self._fill()

    def _fill(self) -> None:
        view = self.view
        if view is None:
            return
        view.tree.clear()
        for server in self.overview.servers:
            problem = "" if server.state == "needs-sign-in" else server.last_error
            row = QTreeWidgetItem([server.name, _STATE_WORDS[server.state], problem])
            row.setData(0, _SERVER_ROLE, server.name)
            row.setToolTip(0, server.where)
            view.tree.addTopLevelItem(row)
            for tool in self.overview.tools:
                if tool.server == server.name:
                    self._tool_row(row, tool)
            for resource in self.overview.resources:
                if resource.server == server.name:
                    item = QTreeWidgetItem([resource.name, "resource", ""])
                    item.setToolTip(0, f"{resource.uri}\n{resource.description}".strip())
                    row.addChild(item)
            for prompt in self.overview.prompts:
                if prompt.server == server.name:
                    item = QTreeWidgetItem([prompt.name, "prompt", ""])
                    item.setToolTip(0, prompt.description)
                    row.addChild(item)
            row.setExpanded(True)
        for column in (0, 1):  # a state in words ("needs you to sign in") is shown whole
            view.tree.resizeColumnToContents(column)
        if not self.overview.servers:
            view.status.setText(NO_SERVERS)
        else:
            view.status.setText("")

    def _tool_row(self, parent: QTreeWidgetItem, tool: McpToolState) -> None:
        assert self.view is not None
        row = QTreeWidgetItem([tool.name, "", _APPROVAL[tool.approval]])
        row.setData(0, _TOOL_ROLE, tool.qualified)
        parent.addChild(row)
        combo = QComboBox()
        combo.addItems(POLICIES)
        combo.setCurrentText(tool.policy)
        combo.currentTextChanged.connect(
            lambda policy, qualified=tool.qualified: self.set_policy(qualified, policy)
        )
        self.view.tree.setItemWidget(row, 1, combo)

    def _tool(self, qualified: str) -> McpToolState | None:
        return next((t for t in self.overview.tools if t.qualified == qualified), None)

    def _selected(self) -> McpToolState | None:
        assert self.view is not None
        items = self.view.tree.selectedItems()
        qualified = items[0].data(0, _TOOL_ROLE) if items else None
        return self._tool(qualified) if isinstance(qualified, str) else None

    def _selected_server(self) -> McpServerStatus | None:
        assert self.view is not None
        items = self.view.tree.selectedItems()
        name = items[0].data(0, _SERVER_ROLE) if items else None
        return next((s for s in self.overview.servers if s.name == name), None)

    def _show_selected(self) -> None:
        assert self.view is not None
        server = self._selected_server()
        state = server.state if server is not None and server.signs_in else ""
        self.view.sign_in_button.setEnabled(state == "needs-sign-in")
        self.view.sign_out_button.setEnabled(state == "running")
        tool = self._selected()
        self.view.approve_button.setEnabled(tool is not None and tool.approval == "changed")
        if tool is None:
            self.view.details.setPlainText("")
            return
        hints = tool.hints
        said = f"\nThe server says it is {' and '.join(hints)} (not trusted)." if hints else ""
        body = tool.diff if tool.approval == "changed" else tool.description
        self.view.details.setPlainText(f"{tool.qualified}{said}\n\n{body}")

    def set_policy(self, qualified: str, policy: str) -> None:
        """Apply a tool's policy now and keep it in the settings."""
        self.context.tasks.spawn(
            self._set_policy(qualified, policy), name="aria-gui-mcp-policy", on_error=self._error
        )

    async def _set_policy(self, qualified: str, policy: str) -> None:
        tool = self._tool(qualified)
        if tool is None:
            return
        assistant = self.context.assistant
        await assistant.execute(SetMcpToolPolicy(tool=qualified, policy=policy))
        entries = [
            f"{t.name}={policy if t.qualified == qualified else t.policy}"
            for t in self.overview.tools
            if t.server == tool.server and (t.qualified == qualified or t.policy != "ask")
        ]
        await assistant.update_settings({f"mcp.servers.{tool.server}.tools": entries})
        await self._load()

    def _approve_selected(self) -> None:
        tool = self._selected()
        if tool is not None:
            self.context.tasks.spawn(
                self._approve(tool.qualified), name="aria-gui-mcp-approve", on_error=self._error
            )

    async def _approve(self, qualified: str) -> None:
        await self.context.assistant.execute(ApproveMcpTool(tool=qualified))
        await self._load()

    def _sign_in_selected(self) -> None:
        server = self._selected_server()
        if server is not None and self.view is not None:
            self.view.sign_in_button.setEnabled(False)
            self.view.status.setText(
                f"Finish signing in to {server.name} in your web browser. "
                "ARIA connects as soon as you are done."
            )
            self.context.tasks.spawn(
                self._sign_in(server.name), name="aria-gui-mcp-sign-in", on_error=self._error
            )

    async def _sign_in(self, name: str) -> None:
        problem = await self.context.assistant.execute(SignInMcpServer(server=name))
        await self._load()
        if self.view is not None:
            failed = f"Signing in to {name} did not work: {problem}"
            self.view.status.setText(failed if problem else f"Signed in to {name}.")

    def _sign_out_selected(self) -> None:
        server = self._selected_server()
        if server is not None:
            self.context.tasks.spawn(
                self._sign_out(server.name), name="aria-gui-mcp-sign-out", on_error=self._error
            )

    async def _sign_out(self, name: str) -> None:
        await self.context.assistant.execute(SignOutMcpServer(server=name))
        await self._load()
        if self.view is not None:
            self.view.status.setText(f"Signed out of {name}.")

    def _error(self, message: str, hint: str) -> None:
        if self.view is not None:
            self.view.status.setText(for_people(message, hint))
