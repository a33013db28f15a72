"""The Settings dialog's MCP tab on a real core with a real MCP server (stdio, SDK-written).

The tab lists the server and its tool with policy and approval; choosing a policy applies it
at once and writes ``mcp.servers.<name>.tools``; a tool changed after approval shows its diff
and is enabled again by "Approve as it is now".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QComboBox

from aria_desktop.adapters.mcp.hub import build_hub
from aria_desktop.adapters.mcp.pins import JsonPinStore
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.mcp.bridge import McpBridge
from aria_desktop.domain.mcp import McpPin
from aria_desktop.settings import FileSettingsAccess, load_settings
from aria_desktop.settings.schema_mcp import McpServerSettings, McpSettings
from tests.gui.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]


def test_mcp_tab_lists_tools_sets_policies_and_approves_a_changed_tool(
    desktop_factory: Any, stack: Any, run: Any, isolated_env: Path
) -> None:
    settings_file = isolated_env / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(
        f'[mcp.servers.fake]\ncommand = "{sys.executable}"\n'
        'args = ["-m", "tests.fakes.mcp_servers", "ok"]\n',
        encoding="utf-8",
    )
    server = McpServerSettings(
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_servers", "ok"),
        env=(f"PYTHONPATH={ROOT}",),
    )
    hub = build_hub(McpSettings(servers={"fake": server}), lambda _name: None)
    pins = JsonPinStore(isolated_env / "pins.json")
    bridge = McpBridge(hub, pins, policies={}, result_chars=8000)
    bridge.install(stack.orchestrator)

    async def start() -> None:
        hub.start()
        await hub.wait_started(30)

    try:
        run(start(), timeout_s=40)
        # An approval of an older definition: the tool counts as changed since.
        pins.put("fake__echo", McpPin(hash="0" * 64, definition={"name": "echo"}))
        assistant = LocalAssistant(stack.orchestrator, settings=FileSettingsAccess(settings_file))
        desktop = desktop_factory(assistant)
        desktop.open_settings()
        view = desktop.mcp.view
        run(wait_for(lambda: view.tree.topLevelItemCount() == 1))
        server_row = view.tree.topLevelItem(0)
        assert (server_row.text(0), server_row.text(1)) == ("fake", "running")
        tool_row = server_row.child(0)
        assert tool_row.text(0) == "echo"
        assert "CHANGED" in tool_row.text(2)

        view.tree.setCurrentItem(tool_row)
        assert view.approve_button.isEnabled()
        assert '"description": "Echo the text back."' in view.details.toPlainText()
        view.approve_button.click()
        run(wait_for(lambda: bridge.overview().tools[0].approval == "approved"))

        run(wait_for(lambda: view.tree.topLevelItem(0).child(0).text(2) == "approved"))
        combo = view.tree.itemWidget(view.tree.topLevelItem(0).child(0), 1)
        assert isinstance(combo, QComboBox)
        combo.setCurrentText("always")
        run(wait_for(lambda: bridge.overview().tools[0].policy == "always"))
        run(
            wait_for(
                lambda: (
                    load_settings(settings_file, env={}).mcp.servers["fake"].tools
                    == ("echo=always",)
                )
            )
        )
    finally:
        run(hub.aclose(), timeout_s=20)


def test_a_server_that_needs_a_sign_in_is_signed_in_and_out_from_the_tab(
    desktop_factory: Any, stack: Any, run: Any, isolated_env: Path, monkeypatch: Any, theme: str
) -> None:
    import keyring
    import keyring.backends.fail

    from aria_desktop.adapters.mcp import oauth
    from tests.fakes.oauth_mcp_server import oauth_mcp_server
    from tests.mcp.test_mcp_oauth import browse

    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    opened: list[str] = []

    async def browser(url: str) -> None:  # the person's browser: approve and come back
        opened.append(url)
        await browse(url)

    monkeypatch.setattr(oauth, "system_browser", browser)
    served = oauth_mcp_server()
    server = run(served.__aenter__())
    hub = build_hub(
        McpSettings(servers={"notes": McpServerSettings(url=server.url, transport="http")}),
        lambda _name: None,
    )
    bridge = McpBridge(hub, JsonPinStore(isolated_env / "pins.json"), policies={}, result_chars=800)
    bridge.install(stack.orchestrator)

    async def start() -> None:
        hub.start()
        await hub.wait_started(30)

    try:
        run(start(), timeout_s=40)
        desktop = desktop_factory(LocalAssistant(stack.orchestrator))
        desktop.open_settings()
        view = desktop.mcp.view
        run(wait_for(lambda: view.tree.topLevelItemCount() == 1))
        row = view.tree.topLevelItem(0)
        assert (row.text(0), row.text(1), row.text(2)) == ("notes", "needs you to sign in", "")
        view.tree.setCurrentItem(row)
        assert view.sign_in_button.isEnabled()
        assert not view.sign_out_button.isEnabled()

        view.sign_in_button.click()
        run(wait_for(lambda: view.status.text() == "Signed in to notes."))
        assert len(opened) == 1
        assert view.tree.topLevelItem(0).text(1) == "running"
        assert view.tree.topLevelItem(0).child(0).text(0) == "whoami"
        view.tree.setCurrentItem(view.tree.topLevelItem(0))
        assert view.sign_out_button.isEnabled()

        view.sign_out_button.click()
        run(wait_for(lambda: view.status.text() == "Signed out of notes."))
        assert server.provider.revoked
    finally:
        run(hub.aclose(), timeout_s=20)
        run(served.__aexit__(None, None, None), timeout_s=20)
        keyring.set_keyring(previous)
        oauth._IN_MEMORY.clear()


def test_without_tool_servers_the_tab_says_so_in_plain_words(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    from aria_desktop.gui.controllers.mcp import NO_SERVERS

    desktop = desktop_factory(stack.assistant)  # an ARIA without MCP
    desktop.open_settings()
    view = desktop.mcp.view
    run(wait_for(lambda: view.status.text() == NO_SERVERS))
    for technical in ("`", "[", "aria ", ".json", "mcp.servers"):
        assert technical not in NO_SERVERS
