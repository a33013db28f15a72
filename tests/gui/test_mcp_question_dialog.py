"""A tool server's question on the desktop: its form, the person's answer, a refused answer.

A real SDK-written server (tests/fakes/mcp_servers.py ``asks``, over stdio) asks during its
tool call; the desktop opens the dialog from the ``mcp-question`` event, with the server's
defaults filled in, and the call finishes with what the person typed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QCheckBox, QLineEdit

from aria_desktop.adapters.mcp.hub import build_hub
from aria_desktop.adapters.mcp.pins import JsonPinStore
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.mcp.bridge import McpBridge
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings
from tests.gui.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]


def test_a_servers_question_is_answered_in_its_dialog(
    desktop_factory: Any, stack: Any, run: Any, isolated_env: Path, theme: str, qapp: Any
) -> None:
    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)  # as the app itself: a closed dialog quits nothing
    server = McpServerSettings(
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_servers", "asks"),
        env=(f"PYTHONPATH={ROOT}",),
    )
    hub = build_hub(McpSettings(servers={"restaurant": server}), lambda _name: None)
    bridge = McpBridge(hub, JsonPinStore(isolated_env / "pins.json"), policies={}, result_chars=800)
    bridge.install(stack.orchestrator)

    async def start() -> None:
        hub.start()
        await hub.wait_started(30)

    try:
        run(start(), timeout_s=40)
        desktop = desktop_factory(LocalAssistant(stack.orchestrator))
        questions = desktop.mcp_questions

        async def call() -> Any:
            return await hub.call("restaurant", "book_table", {})

        booking = run(_started(call))
        run(wait_for(lambda: len(questions._open) == 1))
        (request_id,) = questions._open
        view = questions.dialog(request_id)
        assert view is not None
        assert view.windowTitle() == "restaurant asks"
        assert view.message.text() == "Which name and how many guests?"
        name = view.inputs["name"][1]
        guests = view.inputs["guests"][1]
        terrace = view.inputs["terrace"][1]
        assert isinstance(name, QLineEdit)
        assert isinstance(guests, QLineEdit)
        assert isinstance(terrace, QCheckBox)
        assert guests.text() == "2"  # the server's default, shown

        view.accept_button.click()  # the name is required: refused, the dialog stays
        run(wait_for(lambda: view.problem.isVisible()))
        assert "needs an answer" in view.problem.text()

        name.setText("Ada")
        terrace.setChecked(True)
        view.accept_button.click()
        result = run(booking)
        assert result.text == "booked for Ada, 2 guests, terrace True"
        run(wait_for(lambda: questions.dialog(request_id) is None))

        # The MCP tab lists what the server offers besides its tool.
        desktop.open_settings()
        tree = desktop.mcp.view.tree
        run(wait_for(lambda: tree.topLevelItemCount() == 1 and tree.topLevelItem(0).childCount()))
        server_row = tree.topLevelItem(0)
        offered = {
            (server_row.child(i).text(0), server_row.child(i).text(1))
            for i in range(server_row.childCount())
        }
        assert {("todo", "resource"), ("plan_trip", "prompt")} <= offered
    finally:
        run(hub.aclose(), timeout_s=20)
        qapp.setQuitOnLastWindowClosed(quits)


async def _started(call: Any) -> asyncio.Task[Any]:
    return asyncio.create_task(call())
