"""Desktop notifications on a real notification service: dunst on Xvfb, on a private session
bus. The call is read as it went over the bus (a D-Bus monitor) and back from dunst's own
history; a bus with no service, and no bus at all, are a quiet False."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aria_desktop.adapters.skills.notifications import (
    NOTIFICATIONS,
    DesktopNotifier,
    notification_server,
)
from aria_desktop.compose.desktop_skills import build_notifier
from tests.skills.desktop_parts import (
    dunst,  # noqa: F401 - fixture
    dunst_history,
    session_bus,  # noqa: F401 - fixture
    watch_calls,
)


@pytest.mark.usefixtures("dunst")
async def test_a_notification_reaches_the_desktops_notification_service() -> None:
    notifier = build_notifier()
    async with watch_calls(NOTIFICATIONS, "Notify") as next_call:
        shown = await notifier.notify("Timer", "Your pasta timer is done.", urgent=True)
        call = await next_call()
    assert shown is True
    app_name, replaces, icon, summary, body, actions, hints, expire = call.body
    assert (app_name, replaces, summary, body, actions, expire) == (
        "ARIA", 0, "Timer", "Your pasta timer is done.", [], -1,
    )  # fmt: skip
    assert icon.endswith("aria.svg")
    assert Path(icon).is_file()
    assert hints["urgency"] == ("y", 2)  # critical: stays until dismissed
    (entry,) = await dunst_history()
    assert (entry["appname"], entry["summary"], entry["body"]) == (
        "ARIA",
        "Timer",
        "Your pasta timer is done.",
    )


@pytest.mark.usefixtures("dunst")
async def test_a_normal_notification_and_the_service_name() -> None:
    async with watch_calls(NOTIFICATIONS, "Notify") as next_call:
        assert await DesktopNotifier().notify("Reminder", "Call mom.")
        call = await next_call()
    assert call.body[6]["urgency"] == ("y", 1)
    server = await notification_server()
    assert server is not None
    assert server.startswith("dunst ")


@pytest.mark.usefixtures("session_bus")
async def test_a_bus_without_a_notification_service_is_false_not_an_error() -> None:
    started = time.monotonic()
    assert await DesktopNotifier().notify("Timer", "Done.") is False
    assert await notification_server() is None
    assert time.monotonic() - started < 2


async def test_no_session_bus_is_false_not_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    assert await DesktopNotifier().notify("Timer", "Done.") is False
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/gone")
    assert await DesktopNotifier().notify("Timer", "Done.") is False
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "tcp:host=nowhere,port=1")
    assert await DesktopNotifier().notify("Timer", "Done.") is False
