"""A tool server's question on the desktop: its form, the person's answer, a refused answer.

A real SDK-written server (tests/fakes/mcp_servers.py ``asks``, over stdio) asks during its
tool call; the desktop opens the dialog from the ``mcp-question`` event, with the server's
defaults filled in, and the call finishes with what the person typed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit

from aria_desktop.adapters.mcp.hub import build_hub
from aria_desktop.adapters.mcp.pins import JsonPinStore
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.mcp.bridge import McpBridge
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings
from tests.gui.conftest import wait_for
from tests.gui.mcp_hub import restaurant_hub
from tests.gui.test_render import screenshot, settle

__all__ = ["restaurant_hub"]


def test_a_servers_question_is_answered_in_its_dialog(
    restaurant_hub: Any, desktop_factory: Any, stack: Any, run: Any, theme: str, qapp: Any
) -> None:
    hub = restaurant_hub
    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)  # as the app itself: a closed dialog quits nothing
    try:
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
        qapp.setQuitOnLastWindowClosed(quits)


async def _started(call: Any) -> asyncio.Task[Any]:
    return asyncio.create_task(call())


def test_a_page_a_server_asks_for_opens_only_when_the_person_clicks_open_the_page(
    desktop_factory: Any,
    stack: Any,
    run: Any,
    isolated_env: Path,
    theme: str,
    qapp: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp.types import ElicitRequestURLParams

    from aria_desktop.adapters.mcp import oauth

    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)

    monkeypatch.setattr(oauth, "system_browser", browser)
    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    shop = McpServerSettings(url="https://shop.example/mcp", oauth=False)
    hub = build_hub(McpSettings(servers={"shop": shop}), lambda _name: None)
    bridge = McpBridge(hub, JsonPinStore(isolated_env / "pins.json"), policies={}, result_chars=800)
    bridge.install(stack.orchestrator)  # the hub's questions go to the desktop
    supervisor = hub._supervisors["shop"]
    page = ElicitRequestURLParams(
        message="Pay 12 EUR for the order on the shop's page.",
        url="https://pay.shop.example/orders/42",
        elicitation_id="pay-42",
    )
    try:
        desktop = desktop_factory(LocalAssistant(stack.orchestrator))
        questions = desktop.mcp_questions
        for click, expected in (("decline", []), ("accept", [page.url])):
            asked = run(_started(lambda: supervisor._elicit(None, page)))
            run(wait_for(lambda: len(questions._open) == 1))
            (request_id,) = questions._open
            view = questions.dialog(request_id)
            assert view is not None
            shown = view.findChild(QLabel, "mcpQuestionPage")
            assert shown is not None
            assert "pay.shop.example" in shown.text()
            assert view.accept_button.text() == "Open the page"
            assert view.inputs == {}  # a page, no form
            if click == "accept":
                settle(run, view)
                screenshot("mcp-question-page", theme)
            assert opened == []  # nothing opens before the person chose
            button = view.accept_button if click == "accept" else view.decline_button
            button.click()
            result = run(asked)
            assert result.action == click
            assert opened == expected
            run(wait_for(lambda: not questions._open))
    finally:
        run(hub.aclose(), timeout_s=20)
        qapp.setQuitOnLastWindowClosed(quits)
