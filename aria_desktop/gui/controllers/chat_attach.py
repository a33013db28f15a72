"""The chat window's Attach button: a tool server's resource goes with the next message.

The menu lists what the servers offer (``ListMcp``); choosing one reads it
(``ReadMcpResource``) at once, so what is sent is what the person saw attached, and a server
that refuses says so before the message is written. The core fences every attachment as
untrusted data for the model (``core/untrusted.fence_attachment``), apart from the user's words.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from aria_desktop.domain.commands import ListMcp, ReadMcpResource, TurnAttachment
from aria_desktop.domain.mcp import McpOverview, McpResourceInfo
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.views.chat_window import ChatWindowView

__all__ = ["AttachController", "Attached", "attached_note"]

Attached = tuple[str, TurnAttachment]
"""An attachment and its name as the window lists it ("todo (notes)")."""

NOTHING_OFFERED = "No tool server offers anything to attach"


def attached_note(names: list[str]) -> str:
    """How the window lists attachments ("Attached: todo (notes), plan (files)")."""
    return f"Attached: {', '.join(names)}" if names else ""


class AttachController(QObject):
    """Fills the Attach menu, reads the chosen resource and hands the attachments to a send."""

    def __init__(
        self,
        view: ChatWindowView,
        context: GuiContext,
        on_problem: Callable[[str, str], None],
    ) -> None:
        super().__init__(view)
        self.view = view
        self.context = context
        self.on_problem = on_problem
        self._pending: list[Attached] = []
        view.attach_button.clicked.connect(self.open_menu)
        view.remove_attached_button.clicked.connect(self.clear)

    def open_menu(self) -> None:
        """Ask ARIA what the servers offer, then show the menu under the button."""
        self.context.tasks.spawn(
            self._fill_and_show(), name="aria-gui-attach-menu", on_error=self.on_problem
        )

    async def _offers(self) -> tuple[McpResourceInfo, ...]:
        assistant = self.context.assistant
        if not any(status.name == "mcp" for status in await assistant.capabilities()):
            return ()
        overview: McpOverview = await assistant.execute(ListMcp())
        return overview.resources

    async def _fill_and_show(self) -> None:
        resources = await self._offers()
        menu = self.view.attach_menu
        menu.clear()
        if not resources:
            menu.addAction(NOTHING_OFFERED).setEnabled(False)
        for resource in resources:
            action = menu.addAction(f"{resource.name} — {resource.server}")
            action.setToolTip(resource.description or resource.uri)
            action.triggered.connect(lambda _checked=False, r=resource: self.attach(r))
        button = self.view.attach_button
        menu.popup(button.mapToGlobal(button.rect().bottomLeft()))

    def attach(self, resource: McpResourceInfo) -> None:
        """Read ``resource`` now; it goes with the next message."""
        self.context.tasks.spawn(
            self._read(resource), name="aria-gui-attach-read", on_error=self.on_problem
        )

    async def _read(self, resource: McpResourceInfo) -> None:
        read = await self.context.assistant.execute(
            ReadMcpResource(server=resource.server, uri=resource.uri)
        )
        if read.is_error:
            self.on_problem(
                f"{resource.server} did not hand over {resource.name}: {read.text}",
                "Try again, or check the tool server in Settings.",
            )
            return
        source = f"{resource.server}: {resource.uri}"
        self._pending = [p for p in self._pending if p[1].source != source]
        self._pending.append(
            (f"{resource.name} ({resource.server})", TurnAttachment(source=source, text=read.text))
        )
        self._show()

    def names(self) -> list[str]:
        """What the next message carries, as the window lists it."""
        return [name for name, _ in self._pending]

    def take(self) -> tuple[Attached, ...]:
        """The attachments for the message being sent (the row empties)."""
        taken = tuple(self._pending)
        self.clear()
        return taken

    def restore(self, taken: tuple[Attached, ...]) -> None:
        """Attach again what a message that never reached ARIA carried."""
        sources = {attachment.source for _, attachment in taken}
        self._pending = [*taken, *(p for p in self._pending if p[1].source not in sources)]
        self._show()

    def clear(self) -> None:
        """Nothing goes with the next message."""
        self._pending = []
        self._show()

    def _show(self) -> None:
        self.view.show_attached(attached_note(self.names()))
