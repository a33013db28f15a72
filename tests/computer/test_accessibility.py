"""Accessibility (AT-SPI) tells ARIA that the focused field is a password field, where the
screen around the pointer cannot: a private session bus, the real at-spi2 bus launcher and
registry, and the target app publishing its widgets (``QT_LINUX_ACCESSIBILITY_ALWAYS_ON``).

In a module of its own: the other computer modules' target app (the same windows) must not
be on the display meanwhile.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.computer.accessibility import AccessibilityProbe
from tests.computer.conftest import Rig, TargetApp, running_target_app
from tests.computer.dictation import focus
from tests.computer.test_desktop import field_point
from tests.skills.desktop_parts import session_bus, wait_for_name  # noqa: F401

pytestmark = pytest.mark.slow


@pytest.fixture
def accessible_app(
    display: str, session_bus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TargetApp]:
    """The target app publishing its widgets on a private accessibility bus."""
    launcher = Path("/usr/libexec/at-spi-bus-launcher")
    if not launcher.exists() or shutil.which("dbus-daemon") is None:
        pytest.fail("at-spi2-core missing: `bash packaging/setup.sh test` installs it")
    bus = subprocess.Popen([str(launcher), "--launch-immediately"], stderr=subprocess.DEVNULL)
    try:
        asyncio.run(wait_for_name("org.a11y.Bus"))
        env = {**os.environ, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1"}
        with running_target_app(env) as app:
            yield app
    finally:
        bus.terminate()
        bus.wait(timeout=10)


async def test_accessibility_tells_a_password_field_where_the_screen_cannot(
    rig_factory: Any, accessible_app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    probe = AccessibilityProbe()
    pid = accessible_app.proc.pid
    await focus(rig, "Password")
    # The pointer rests far from the field's label: only accessibility knows the field.
    await asyncio.to_thread(subprocess.run, ["xdotool", "mousemove", "1200", "760"], check=True)
    deadline = time.monotonic() + 20
    while probe.focused_password(pid) is None:  # the app registers on the bus as it starts
        assert time.monotonic() < deadline, "the app never answered on the accessibility bus"
        await asyncio.sleep(0.05)
    assert probe.focused_password(pid) is True
    mark = accessible_app.mark()
    outcome = await rig.computer.type_text("tulip", source="dictation")
    assert (outcome.status, outcome.rule) == ("denied", "password-field")
    accessible_app.settle()
    assert accessible_app.since(mark, "text") == []
    # The name field, with the pointer on the "Password" label: accessibility says it is not.
    name = await focus(rig, "Full name")
    label = await field_point(rig, "Password")
    await asyncio.to_thread(
        subprocess.run, ["xdotool", "mousemove", str(label.x - 300), str(label.y)], check=True
    )
    assert probe.focused_password(pid) is False
    typed = await rig.computer.type_text("Ada", source="dictation")
    assert typed.status == "ok", typed
    assert accessible_app.state()["fields"]["name"] == "Ada"
    assert name.y != label.y


def test_doctor_says_whether_password_fields_can_be_told(
    accessible_app: TargetApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aria_desktop.doctor.computer import check_computer
    from aria_desktop.settings import Settings

    line = {r.name: r for r in check_computer(Settings())}["password fields"]
    assert (line.status, line.detail) == (
        "OK",
        "told by the desktop's accessibility service (AT-SPI)",
    )
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    line = {r.name: r for r in check_computer(Settings())}["password fields"]
    assert line.status == "WARN"
    assert "labels next to it" in line.detail
    assert "at-spi2-core" in line.fix
