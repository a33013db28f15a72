"""The tray's face of the everyday skills: running timers with their countdown in the menu and
the tooltip, "Stop ringing" while a real ring sounds (PulseAudio's null sink), and the tray's
bubble only where the desktop shows no notification of its own (dunst on a private bus)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.domain.skill_events import ReminderDue, RingingChanged, TimerFinished
from aria_desktop.gui.controllers.everyday_board import countdown
from aria_desktop.gui.controllers.tray_skills import due_notice, timer_notice
from tests.gui.conftest import Runner, wait_for
from tests.gui.everyday import skills_app
from tests.skills.desktop_parts import NOTIFICATIONS, session_bus, wait_for_name
from tests.voice.pulse import pulse_server

__all__ = ["session_bus", "skills_app"]


def menu_texts(desktop: Any) -> list[str]:
    return [a.text() for a in desktop.tray_view.menu.actions() if not a.isSeparator()]


def test_running_timers_head_the_tray_menu_and_tooltip_with_their_countdown(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    sync = desktop.everyday_sync
    now = [0.0]
    sync.clock = lambda: now[0]
    timers = skills_app.assistant.timers
    pasta = run(timers.start_timer(300, name="pasta"))
    unnamed = run(timers.start_timer(600))
    now[0] = pasta.ends_at - 252
    other = f"10 min timer — {countdown(unnamed.ends_at - now[0])} left"  # started a bit later
    run(wait_for(lambda: len(desktop.tray_skills.timer_actions) == 2))
    ticks: list[None] = []
    sync.ticked.connect(lambda: ticks.append(None))
    run(wait_for(lambda: bool(ticks), timeout_s=3))
    assert menu_texts(desktop)[:3] == ["Pasta — 4:12 left", other, "Open chat"]
    tooltip = desktop.tray_view.icon.toolTip()
    assert f"Pasta — 4:12 left\n{other}" in tooltip

    now[0] += 60  # a minute on: the tick re-renders, nothing is read
    run(wait_for(lambda: "Pasta — 3:12 left" in desktop.tray_view.icon.toolTip(), timeout_s=3))

    pasta_item = desktop.tray_skills.timer_actions[0]
    pause, resume, cancel = pasta_item.menu().actions()
    assert pause.isVisible()
    assert not resume.isVisible()
    pause.trigger()
    run(wait_for(lambda: "Pasta — paused" in " ".join(menu_texts(desktop))))
    cancel.trigger()
    run(wait_for(lambda: len(desktop.tray_skills.timer_actions) == 1))
    run(timers.cancel_all_timers())
    run(wait_for(lambda: menu_texts(desktop)[0] == "Open chat"))
    assert "left" not in desktop.tray_view.icon.toolTip()
    assert not sync.ticking


def test_a_skill_answer_does_not_replace_the_model_in_the_tooltip(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _r, status: finished.append(status))
    desktop.chat.send("what time is it")
    run(wait_for(lambda: bool(finished) and desktop.tray.state == "idle"))
    assert "skills" not in desktop.tray_view.icon.toolTip()


@pytest.fixture
def speaker(tmp_path: Path) -> Iterator[Any]:
    """A private PulseAudio server with a null sink as this process's speaker."""
    with pulse_server(tmp_path / "pulse") as server:
        yield server


def rang(seen: list[object]) -> list[bool]:
    return [event.ringing for event in seen if isinstance(event, RingingChanged)]


@pytest.mark.slow
def test_stop_ringing_is_offered_while_a_real_ring_sounds_and_silences_only_the_ring(
    speaker: Any, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    seen: list[object] = []
    desktop.bridge.event_received.connect(seen.append)
    run(skills_app.assistant.timers.start_timer(1, name="tea"))
    run(wait_for(lambda: menu_texts(desktop)[0] == "Stop ringing", timeout_s=15), timeout_s=20)
    assert rang(seen) == [True]
    assert "Ringing" in desktop.tray_view.icon.toolTip()
    desktop.tray_skills.stop_ringing.trigger()
    run(wait_for(lambda: rang(seen) == [True, False], timeout_s=10))
    run(wait_for(lambda: menu_texts(desktop)[0] == "Open chat"))
    assert "Ringing" not in desktop.tray_view.icon.toolTip()
    assert any(isinstance(event, TimerFinished) and event.name == "tea" for event in seen)


@pytest.fixture
def notification_service(session_bus: str, tmp_path: Path, run: Runner) -> Iterator[None]:
    """dunst on the GUI tests' display and the private bus."""
    config = tmp_path / "dunstrc"
    config.write_text("[global]\n    timeout = 0\n", encoding="utf-8")
    service = subprocess.Popen(
        ["dunst", "-config", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        run(wait_for_name(NOTIFICATIONS))
        yield
    finally:
        service.terminate()
        service.wait(timeout=10)


def bubbles(desktop: Any) -> list[tuple[str, str]]:
    """Every tray bubble shown from now on (still shown: the real one is called)."""
    shown: list[tuple[str, str]] = []
    real = desktop.tray_view.notify

    def notify(title: str, text: str, *, warning: bool = False) -> None:
        shown.append((title, text))
        real(title, text, warning=warning)

    desktop.tray_view.notify = notify
    return shown


def test_no_bubble_where_the_desktop_shows_the_announcers_notification(
    notification_service: None, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    shown = bubbles(desktop)
    decided: list[tuple[str, bool]] = []
    desktop.tray_skills.notice_decided.connect(
        lambda title, by_tray: decided.append((title, by_tray))
    )
    bus = skills_app.orchestrator.bus
    bus.publish(TimerFinished(timer_id="t1", name="pasta", duration_s=300))
    bus.publish(ReminderDue(reminder_id="r1", text="call mom"))
    run(wait_for(lambda: len(decided) == 2 and not desktop.tasks._tasks))
    assert decided == [("Timer", False), ("Reminder", False)]
    assert shown == []


def test_two_notices_at_once_are_decided_in_the_order_they_came(
    monkeypatch: pytest.MonkeyPatch, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    import asyncio

    from aria_desktop.gui.controllers import tray_skills

    answers = iter([0.3, 0.0])  # the session bus answers the first question last

    async def no_service() -> bool:
        await asyncio.sleep(next(answers))
        return False

    monkeypatch.setattr(tray_skills, "notification_service_present", no_service)
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    shown = bubbles(desktop)
    bus = skills_app.orchestrator.bus
    bus.publish(TimerFinished(timer_id="t1", name="pasta", duration_s=300))
    bus.publish(ReminderDue(reminder_id="r1", text="call mom"))
    run(wait_for(lambda: len(shown) == 2 and not desktop.tasks._tasks))
    assert [title for title, _ in shown] == ["Timer", "Reminder"]


def test_the_tray_bubble_stands_in_where_the_desktop_has_no_notifications(
    session_bus: str, desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant, use_tray=True)
    shown = bubbles(desktop)
    bus = skills_app.orchestrator.bus
    bus.publish(TimerFinished(timer_id="t1", name="pasta", duration_s=300))
    bus.publish(ReminderDue(reminder_id="r1", kind="alarm", due_at=0.0, late=True))
    run(wait_for(lambda: len(shown) == 2 and not desktop.tasks._tasks))
    assert shown[0] == ("Timer", "Your pasta timer is done.")
    assert shown[1][0] == "Alarm"
    assert shown[1][1].startswith("Time to wake up. (late: it was due at ")


def test_notices_in_plain_words() -> None:
    assert timer_notice(TimerFinished(timer_id="t", duration_s=300)) == (
        "Timer",
        "Your 5 min timer is done.",
    )
    missed = TimerFinished(timer_id="t", name="eggs", duration_s=300, missed=True)
    assert timer_notice(missed)[1] == "Your eggs timer ended while ARIA was not running."
    assert due_notice(ReminderDue(reminder_id="r", text="call mom")) == ("Reminder", "call mom")
