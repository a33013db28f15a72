"""Computer use on a real Wayland desktop: headless sway (two outputs, the second at scale 2)
and the PySide6 target app as a native Wayland client (``QT_QPA_PLATFORM=wayland``). ARIA sees
the screen through grim, knows the windows from sway's IPC and acts through its virtual pointer
and wtype: labels are found on the captured screen, a click lands on the app's widget on the
second, HiDPI output, typed text reaches the field, a dry run clicks nothing and a password
manager is refused."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.computer.sway import SwayIpc, SwayWindows
from aria_desktop.domain.commands import ClickText
from aria_desktop.domain.computer import ComputerAction
from tests.computer.conftest import Rig, TargetApp, running_target_app
from tests.computer.dictation import SAID, Dictating, command, dictating, focus  # noqa: F401
from tests.computer.target_labels import BUTTONS, MAIN_TITLE, VAULT_TITLE
from tests.computer.test_desktop import field_point
from tests.computer.wayland import SwaySession, sway_session
from tests.fakes.harness import answering
from tests.voice.conftest import (  # noqa: F401
    SpeechMaker,
    piper,
    say_piper,
    speech_dir,
    steady_piper,
    whisper,
)

pytestmark = pytest.mark.slow

_RUN_COMMAND = 0


@pytest.fixture(scope="module")
def sway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SwaySession]:
    with sway_session(tmp_path_factory.mktemp("sway")) as session:
        yield session


def _until(condition: Any, what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def wl_app(sway: SwaySession) -> Iterator[TargetApp]:
    """The target app on Wayland; its main window moved to the second (scale 2) output."""
    with running_target_app(sway.env) as app:
        ipc = SwayIpc(str(sway.ipc_socket))
        windows = SwayWindows(ipc)
        _until(lambda: {w.title for w in windows.windows()} >= {MAIN_TITLE, VAULT_TITLE}, "map")
        ipc.request(_RUN_COMMAND, f'[title="^{MAIN_TITLE}$"] move to output HEADLESS-2'.encode())
        _until(
            lambda: any(w.title == MAIN_TITLE and w.geometry.x >= 1280 for w in windows.windows()),
            "the main window on the second output",
        )
        yield app


@pytest.fixture
def app(wl_app: TargetApp, sway: SwaySession, monkeypatch: pytest.MonkeyPatch) -> TargetApp:
    """The app, reset, with ARIA inside the sway session."""
    monkeypatch.setenv("WAYLAND_DISPLAY", str(sway.wayland_socket))
    monkeypatch.setenv("SWAYSOCK", str(sway.ipc_socket))
    wl_app.reset()
    return wl_app


async def test_the_wayland_session_is_seen_through_grim_and_sway(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    port = rig.computer.port
    assert type(port.screen).__name__ == "GrimScreen"  # type: ignore[attr-defined]
    assert port.screen_bounds().width == 2560
    screen = await rig.computer.read()
    for label in BUTTONS:
        grounding = port.ground(screen, label)
        assert grounding.status == "found", (label, grounding, screen.text)
        assert grounding.best is not None
        assert grounding.best.center.x >= 1280, (label, grounding.best)  # the second output


async def test_a_click_on_wayland_lands_on_the_right_widget(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    for label, widget in (("Save Draft", "save_draft"), ("Preview", "preview")):
        mark = app.mark()
        async with answering(rig.orchestrator, True) as requests:
            outcome = await rig.computer.click_text(label)
        assert outcome.status == "ok", outcome
        assert requests == []
        app.wait_for("click", since=mark)
        assert app.clicks(mark) == [widget], label


async def test_typing_on_wayland_lands_in_the_clicked_field(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    point = await field_point(rig, "City")
    click = await rig.computer.perform(
        ComputerAction(kind="click", x=point.x, y=point.y), run_id=None, task_id="t"
    )
    assert click.status == "ok", click
    typed = await rig.computer.perform(
        ComputerAction(kind="type", text="Grüße aus Köln 50667"), run_id=None, task_id="t"
    )
    assert typed.status == "ok", typed
    assert app.state()["fields"]["city"] == "Grüße aus Köln 50667"
    tab = await rig.computer.perform(
        ComputerAction(kind="type", text=" am Rhein\t"), run_id=None, task_id="t"
    )
    assert tab.status == "ok", tab
    # the tab went out as the Tab key (focus moves on), not as a character in the field
    assert app.state()["fields"]["city"] == "Grüße aus Köln 50667 am Rhein"


async def test_a_dry_run_on_wayland_clicks_nothing(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory(enabled=False)
    mark = app.mark()
    outcome = await rig.computer.click_text("Save Draft", dry_run=True)
    assert (outcome.status, outcome.dry_run) == ("ok", True)
    app.settle()
    assert [e for e in app.since(mark) if e["event"] != "state"] == []


async def test_a_password_manager_on_wayland_is_refused_by_its_title(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    mark = app.mark()
    outcome = await rig.orchestrator.handle(ClickText(text="Unlock"))
    assert (outcome.status, outcome.rule) == ("denied", "deny:password-manager")
    app.settle()
    assert app.clicks(mark) == []


def test_the_session_is_told_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from aria_desktop.adapters.computer.screen import desktop_session, display_problem

    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    monkeypatch.setenv("SWAYSOCK", str(tmp_path / "sway.sock"))
    monkeypatch.setenv("DISPLAY", ":0")  # XWayland beside sway sees only X11 windows
    assert (desktop_session(), display_problem()) == ("sway", None)
    monkeypatch.delenv("SWAYSOCK")
    assert desktop_session() == "x11"  # GNOME or KDE with XWayland: the X11 path
    monkeypatch.delenv("DISPLAY")
    assert desktop_session() == "wayland"
    problem = display_problem()
    assert problem is not None
    assert "not supported yet" in problem
    monkeypatch.delenv("WAYLAND_DISPLAY")
    assert desktop_session() == "none"


def test_doctor_says_which_path_each_part_takes_on_wayland(app: TargetApp) -> None:
    from aria_desktop.doctor.computer import check_computer
    from aria_desktop.settings import Settings

    results = {r.name: r for r in check_computer(Settings())}
    assert results["screen capture"].status == "OK"
    assert "2560x800 logical px, 2 output(s), through grim" in results["screen capture"].detail
    assert results["window facts"].status == "OK"
    assert "from sway's IPC" in results["window facts"].detail
    assert (results["input"].status, results["input"].detail) == (
        "OK",
        "pointer through the virtual pointer protocol, keys through wtype",
    )


async def test_dictation_on_sway_types_into_the_focused_field(
    dictating: Any, app: TargetApp, say_piper: SpeechMaker
) -> None:
    """The key binding's press and release (``aria dictate press``/``release``) around Piper's
    voice; Whisper hears it, and wtype types it into the focused field."""
    dictation: Dictating = await dictating()
    await focus(dictation.rig, "City")
    ended = await dictation.say_held(
        say_piper(*SAID, lead_s=0.2), command(dictation, "press"), command(dictation, "release")
    )
    assert ended.status == "typed", ended
    assert "sunday" in ended.text.lower(), ended.text
    assert app.state()["fields"]["city"] == ended.text
