"""Tray clicks and a tray host that appears after start (in-process; real host: see
test_desktop_tray_host.py)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QSystemTrayIcon

from aria_desktop.gui.app import NO_TRAY_MESSAGE
from tests.gui.conftest import process_events, wait_for

Reason = QSystemTrayIcon.ActivationReason


def test_click_toggles_the_chat_and_double_click_leaves_it_open(
    desktop_factory: Any, run: Any
) -> None:
    desktop = desktop_factory(None, use_tray=True)
    chat = desktop.chat_view
    assert not chat.isVisible()
    desktop.tray_view.icon.activated.emit(Reason.Trigger)
    assert chat.isVisible()
    desktop.tray_view.icon.activated.emit(Reason.Trigger)
    assert not chat.isVisible()
    # A double-click is a click then DoubleClick, from hidden and from shown: open both times.
    for _ in range(2):
        desktop.tray_view.icon.activated.emit(Reason.Trigger)
        desktop.tray_view.icon.activated.emit(Reason.DoubleClick)
        process_events(run)
        assert chat.isVisible()
    desktop.tray_view.icon.activated.emit(Reason.Context)  # the menu's business, not the chat's
    assert chat.isVisible()


def test_a_tray_host_appearing_later_takes_the_app_into_the_tray(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(None, use_tray=None)  # auto: the session's Xvfb has no tray host
    assert not desktop.tray_view  # (not `is None`: mypy would keep that narrowing below)
    desktop.show_shell()
    assert desktop.chat_view.isVisible()
    assert desktop.chat_view.banner.text() == NO_TRAY_MESSAGE
    assert desktop._tray_watch.isActive()  # keeps looking for a tray host
    desktop.context.attach(stack.assistant)
    run(wait_for(lambda: desktop.tray.state == "idle"))

    desktop.adopt_tray()  # what the watch does once a host owns the tray selection
    view = desktop.tray_view
    assert view is not None
    assert view.icon.isVisible()
    assert view.icon.icon().cacheKey() == desktop.icons.for_state("idle").cacheKey()
    assert view.icon.toolTip() == desktop.tray.tooltip
    assert view.icon.toolTip().startswith("ARIA — Ready")
    assert not desktop.chat_view.banner.isVisible()
    stack.orchestrator.set_state("thinking")  # the adopted icon follows the state
    run(wait_for(lambda: desktop.tray.state == "thinking"))
    assert view.icon.icon().cacheKey() == desktop.icons.for_state("thinking").cacheKey()
    stack.orchestrator.set_state("idle")
    run(wait_for(lambda: desktop.tray.state == "idle"))

    # Now closing the window keeps ARIA running in the tray. (Checked synchronously: each
    # ``run`` ends qasync's loop, whose app.exit() emits aboutToQuit, which requests a quit.)
    desktop.quit_requested.clear()
    desktop.chat_view.close()
    assert not desktop.chat_view.isVisible()
    assert not desktop.quit_requested.is_set()
    view.icon.activated.emit(Reason.Trigger)
    assert desktop.chat_view.isVisible()
    desktop.adopt_tray()  # a second host (panel restart) changes nothing: Qt re-docks the icon
    assert desktop.tray_view is view


def test_a_forced_window_never_looks_for_a_tray_and_closing_it_quits(desktop_factory: Any) -> None:
    desktop = desktop_factory(None, use_tray=False)  # `aria desktop --no-tray`
    desktop.show_shell()
    assert desktop.chat_view.isVisible()
    assert not desktop._tray_watch.isActive()
    desktop.quit_requested.clear()  # see above: set by the fixture's loop runs
    desktop.chat_view.close()
    assert desktop.quit_requested.is_set()
