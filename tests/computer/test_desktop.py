"""Computer use against a real PySide6 app under Xvfb: seeing, grounding, clicking, typing, and
the safety checks around them (policy, confirmation, re-verification, kill switch)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from aria_desktop.adapters.computer.input import RecordedInput
from aria_desktop.domain.commands import (
    ClickText,
    ConfirmAction,
    SetComputerControl,
    StopEverything,
)
from aria_desktop.domain.computer import ComputerAction, Point, Rect
from aria_desktop.domain.computer_events import (
    ComputerActionEnd,
    ComputerActionStart,
    ComputerControlChanged,
)
from aria_desktop.domain.errors import TargetAmbiguousError, TargetNotFoundError
from aria_desktop.domain.events import ActionConfirmRequest
from tests.computer.conftest import Rig, TargetApp
from tests.computer.target_labels import ALL_LABELS
from tests.fakes.harness import answering

# Outside the fast loop: the real target app under Xvfb.
pytestmark = pytest.mark.slow


def held_keys_and_buttons() -> tuple[list[int], int]:
    """X server state: pressed key codes, and the pointer's button mask."""
    from Xlib import X, display

    d = display.Display()
    try:
        keymap = d.query_keymap()
        pressed = [
            i * 8 + bit for i, byte in enumerate(keymap) for bit in range(8) if byte >> bit & 1
        ]
        mask = d.screen().root.query_pointer().mask
        buttons = mask & (X.Button1Mask | X.Button2Mask | X.Button3Mask)
        return pressed, buttons
    finally:
        d.close()


def pointer() -> Point:
    from Xlib import display

    d = display.Display()
    try:
        p = d.screen().root.query_pointer()
        return Point(p.root_x, p.root_y)
    finally:
        d.close()


async def field_point(rig: Rig, label: str) -> Point:
    """A point inside the text field to the right of ``label``."""
    screen = await rig.computer.read()
    grounding = rig.computer.port.ground(screen, label)
    assert grounding.best is not None, grounding
    return Point(grounding.best.box.x + 300, grounding.best.center.y)


async def test_find_and_click_lands_on_the_right_widget(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory()
    labels = [
        "Save Draft",
        "Open Downloads",
        "Cancel",
        "Preview",
        "Bananas",
        "subscribe to  NEWSLETTER",
    ]
    expected = ["save_draft", "open_downloads", "cancel", "preview", "list", "checkbox"]
    for label, widget in zip(labels, expected, strict=True):
        mark = app.mark()
        async with answering(rig.orchestrator, True) as requests:
            outcome = await rig.computer.click_text(label)
        assert outcome.status == "ok", outcome
        # Subscribing commits the user: only that click asks (and is approved here).
        assert len(requests) == (1 if "subscribe" in label else 0), label
        app.wait_for("click", since=mark)
        assert app.clicks(mark) == [widget], label
    assert app.state()["checkbox"] is True


async def test_grounding_finds_every_label_of_the_target_app(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    screen = await rig.computer.read()
    widgets = app.ready["widgets"]
    for label in ALL_LABELS:
        grounding = rig.computer.port.ground(screen, label)
        assert grounding.status == "found", (label, grounding, screen.text)
        assert grounding.best is not None
        assert grounding.best.exact, (label, grounding)
        x, y, w, h = widgets[label]
        assert Rect(x, y, w, h).contains(grounding.best.center), (label, grounding.best)


async def test_missing_and_ambiguous_text_is_reported_never_guessed(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    # A whole label equal to the text beats the same word inside a longer text ...
    app.command("banner", "banner-shown", text="Preview of the weekly report")
    mark = app.mark()
    assert (await rig.computer.click_text("preview")).status == "ok"
    app.wait_for("click", since=mark)
    assert app.clicks(mark) == ["preview"]
    # ... but two equally good places are reported, not guessed.
    app.command("banner", "banner-shown", text="Preview")
    mark = app.mark()
    with pytest.raises(TargetAmbiguousError, match="2 places"):
        await rig.computer.click_text("Preview")
    with pytest.raises(TargetNotFoundError):
        await rig.computer.click_text("Transmogrify")
    app.settle()
    assert app.clicks(mark) == []


async def test_typing_lands_in_the_clicked_field(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory()
    point = await field_point(rig, "City")
    click = await rig.computer.perform(
        ComputerAction(kind="click", x=point.x, y=point.y), run_id=None, task_id="t"
    )
    assert click.status == "ok", click
    typed = await rig.computer.perform(
        ComputerAction(kind="type", text="Berlin 10115"), run_id=None, task_id="t"
    )
    assert typed.status == "ok", typed
    state = app.state()
    assert state["fields"] == {"name": "", "email": "", "password": "", "city": "Berlin 10115"}


async def test_typing_into_a_password_field_is_refused(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory()
    point = await field_point(rig, "Password")
    await rig.computer.perform(
        ComputerAction(kind="click", x=point.x, y=point.y), run_id=None, task_id="t"
    )
    mark = app.mark()
    outcome = await rig.computer.perform(
        ComputerAction(kind="type", text="hunter2"), run_id=None, task_id="t"
    )
    assert (outcome.status, outcome.rule) == ("denied", "password-field")
    app.settle()
    assert app.since(mark, "text") == []
    assert app.state()["fields"]["password"] == ""
    # The typed text never reaches the audit log.
    assert all("hunter2" not in repr(r.data) for r in rig.audit.records())


async def test_scaled_screenshot_coordinates_map_back_exactly(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory(scale_longest_px=640)
    observation = await rig.computer.observe()
    assert (observation.model_width, observation.model_height) == (640, 400)
    assert observation.model_png[1:4] == b"PNG"
    assert observation.text is not None
    for label, widget in (("Preview", "preview"), ("Cancel", "cancel"), ("Dates", "list")):
        element = next(e for e in observation.text.elements if e.text == label)
        # Where the model sees the element's centre in its 640x400 image ...
        model_point = Point(element.box.center.x // 2, element.box.center.y // 2)
        physical = rig.computer.port.to_physical(observation, model_point)
        assert element.box.contains(physical)
        # ... is clicked on the same widget on the 1280x800 screen.
        mark = app.mark()
        outcome = await rig.computer.perform(
            ComputerAction(kind="click", x=physical.x, y=physical.y),
            run_id=None,
            task_id="scale",
            observation=observation,
        )
        assert outcome.status == "ok", outcome
        app.wait_for("click", since=mark)
        assert app.clicks(mark) == [widget]


async def test_dry_run_emits_no_input_events(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory(enabled=False)
    before = pointer()
    mark = app.mark()
    outcome = await rig.computer.click_text("Save Draft", dry_run=True)
    typed = await rig.computer.perform(
        ComputerAction(kind="type", text="abc"), run_id=None, task_id="t", dry_run=True
    )
    assert (outcome.status, outcome.dry_run, typed.status) == ("ok", True, "ok")
    app.settle()
    assert [e for e in app.since(mark) if e["event"] != "state"] == []
    assert pointer() == before
    records = rig.computer.port.dry_input.records  # type: ignore[attr-defined]
    assert records[0].op == "click"
    assert records[1] == RecordedInput("type", (3,))


async def test_control_off_refuses_real_actions(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory(enabled=False)
    mark = app.mark()
    outcome = await rig.computer.click_text("Save Draft")
    assert (outcome.status, outcome.rule) == ("denied", "computer-off")
    sub = rig.orchestrator.bus.subscribe()
    assert await rig.orchestrator.handle(SetComputerControl(enabled=True)) is True
    event = await sub.get(timeout_s=1)
    assert isinstance(event, ComputerControlChanged)
    assert event.enabled
    sub.close()
    assert (await rig.computer.click_text("Save Draft")).status == "ok"
    app.wait_for("click", since=mark)
    assert app.clicks(mark) == ["save_draft"]
    statuses = rig.orchestrator.capabilities()
    assert [(s.name, s.available, s.enabled) for s in statuses] == [("computer", True, True)]


async def test_deny_listed_window_is_refused_and_the_rule_named(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    mark = app.mark()
    outcome = await rig.orchestrator.handle(ClickText(text="Unlock"))
    assert outcome.status == "denied"
    assert outcome.rule == "deny:password-manager"
    assert "password-manager" in outcome.detail
    app.settle()
    assert app.clicks(mark) == []
    kinds = [r.kind for r in rig.audit.records()]
    assert kinds[-3:] == ["computer-proposal", "computer-decision", "computer-result"]


@pytest.mark.parametrize("answer", ["decline", "timeout", "approve"])
async def test_send_and_delete_need_confirmation(
    rig_factory: Any, app: TargetApp, answer: str
) -> None:
    rig: Rig = await rig_factory(confirm_timeout_s=0.8)
    reply = {"decline": False, "timeout": None, "approve": True}[answer]
    for label, widget in (("Send", "send"), ("Delete", "delete")):
        mark = app.mark()
        async with answering(rig.orchestrator, reply) as requests:
            outcome = await rig.computer.click_text(label)
        assert [r.tool for r in requests] == ["computer"]
        assert f"'{label.lower()}'" in requests[0].reason  # the reason names what it commits
        if answer == "approve":
            assert outcome.status == "ok"
            app.wait_for("click", since=mark)
            assert app.clicks(mark) == [widget]
        else:
            assert outcome.status == "denied"
            assert ("did not answer" if answer == "timeout" else "declined") in outcome.detail
            app.settle()
            assert app.clicks(mark) == []


async def test_window_swapped_between_screenshot_and_click_aborts(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    observation = await rig.computer.observe()
    assert observation.text is not None
    send = rig.computer.port.ground(observation.text, "Send").best
    assert send is not None
    mark = app.mark()
    sub = rig.orchestrator.bus.subscribe()

    async def swap_then_approve() -> None:
        async for event in sub:
            if isinstance(event, ActionConfirmRequest):
                # While the user reads the dialog, another window moves over the target.
                await asyncio.to_thread(app.command, "raise_vault", "raised")
                await rig.orchestrator.handle(
                    ConfirmAction(request_id=event.request_id, nonce=event.nonce, approved=True)
                )
                return

    helper = asyncio.create_task(swap_then_approve())
    outcome = await rig.computer.perform(
        ComputerAction(kind="click", x=send.center.x, y=send.center.y),
        run_id="r1",
        task_id="r1",
        observation=observation,
    )
    await helper
    assert outcome.status == "target_changed"
    assert "KeePassXC" in outcome.detail
    app.settle()
    assert app.clicks(mark) == []
    sub.close()  # everything the action published is buffered: drain it
    ends = [event.status async for event in sub if isinstance(event, ComputerActionEnd)]
    assert ends == ["target_changed"]
    # Had the window moved before the decision, the deny rule would have refused outright.
    again = await rig.computer.perform(
        ComputerAction(kind="click", x=send.center.x, y=send.center.y),
        run_id="r1",
        task_id="r1",
        observation=observation,
    )
    assert (again.status, again.rule) == ("denied", "deny:password-manager")


async def test_changed_pixels_at_the_target_abort(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory()
    app.command("banner", "banner-shown", text="Quarterly report is ready")
    observation = await rig.computer.observe()
    assert observation.text is not None
    target = rig.computer.port.ground(observation.text, "Quarterly report").best
    assert target is not None
    app.command("banner", "banner-shown", text="WIRE TRANSFER APPROVED")
    outcome = await rig.computer.perform(
        ComputerAction(kind="click", x=target.center.x, y=target.center.y),
        run_id=None,
        task_id="t",
        observation=observation,
    )
    assert outcome.status == "target_changed"
    assert "changed" in outcome.detail


class SteppedClock:
    """A clock that moves only when the test says (the rate limit counts its seconds)."""

    def __init__(self) -> None:
        self.now_s = 1000.0

    def monotonic(self) -> float:
        return self.now_s

    def time(self) -> float:
        return self.now_s


def typed_20(event: dict[str, Any]) -> bool:
    """A text event once 20 characters are in the field (typing is well under way)."""
    return int(event.get("length", 0)) >= 20


async def test_two_hundred_clicks_in_a_second_are_throttled(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory(max_actions_per_s=5.0)
    clock = SteppedClock()
    rig.computer.clock = clock
    observation = await rig.computer.observe()
    click = ComputerAction(kind="click", x=700, y=700)
    decisions = await asyncio.gather(
        *(
            rig.computer.decide(click, task_id="burst", observation=observation, dry_run=False)
            for _ in range(200)
        )
    )
    verdicts = [decision.verdict for decision, _ in decisions]
    rules = {decision.rule for decision, _ in decisions if decision.verdict == "deny"}
    assert (verdicts.count("allow"), verdicts.count("deny")) == (5, 195)
    assert rules == {"rate:per-second"}
    # Through the whole pipeline (dry run), a second later: throttled actions are never
    # performed.
    records = rig.computer.port.dry_input.records  # type: ignore[attr-defined]
    clock.now_s += 1.0
    outcomes = await asyncio.gather(
        *(
            rig.computer.perform(
                click, run_id=None, task_id="burst2", observation=observation, dry_run=True
            )
            for _ in range(20)
        )
    )
    performed = [o for o in outcomes if o.status == "ok"]
    assert len(records) == len(performed) == 5
    assert all(o.rule == "rate:per-second" for o in outcomes if o.status == "denied")


async def test_corner_coordinates_are_clamped(rig_factory: Any, app: TargetApp) -> None:
    rig: Rig = await rig_factory(corner_margin_px=5)
    for x, y, expected in ((0, 0, (5, 5)), (1279, 799, (1274, 794)), (3000, -4, (1274, 5))):
        outcome = await rig.computer.perform(
            ComputerAction(kind="move", x=x, y=y), run_id=None, task_id="c", dry_run=True
        )
        assert (outcome.action["x"], outcome.action["y"]) == expected
    records = rig.computer.port.dry_input.records  # type: ignore[attr-defined]
    assert [r.args for r in records] == [(5, 5), (1274, 794), (1274, 5)]


async def test_kill_switch_stops_a_long_type_at_once_and_holds_no_key(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory(typing_interval_ms=10.0)
    point = await field_point(rig, "Full name")
    await rig.computer.perform(
        ComputerAction(kind="click", x=point.x, y=point.y), run_id=None, task_id="k"
    )
    mark = app.mark()
    sub = rig.orchestrator.bus.subscribe()
    text = "the quick brown fox jumps over the lazy dog " * 60
    typing = asyncio.create_task(
        rig.computer.perform(ComputerAction(kind="type", text=text), run_id=None, task_id="k")
    )
    await asyncio.to_thread(app.wait_for, "text", since=mark, timeout_s=5, where=typed_20)
    await rig.orchestrator.handle(StopEverything())
    # Once the kill switch has returned, not one more key reaches the app.
    typed_at_stop = app.state()["fields"]["name"]
    outcome = await asyncio.wait_for(typing, timeout=2)
    assert outcome.status == "aborted"
    assert held_keys_and_buttons() == ([], 0)
    typed = app.state()["fields"]["name"]
    assert typed == typed_at_stop
    assert 0 < len(typed) < len(text)
    assert text.startswith(typed)
    assert rig.computer.enabled is False
    sub.close()  # everything the kill switch published is buffered: drain it
    seen = [event async for event in sub]
    assert any(isinstance(e, ComputerControlChanged) and not e.enabled for e in seen)
    assert any(isinstance(e, ComputerActionStart) for e in seen)


async def test_every_action_is_audited_with_a_local_thumbnail(
    rig_factory: Any, app: TargetApp, tmp_path: Any
) -> None:
    rig: Rig = await rig_factory()
    await rig.computer.click_text("Cancel")
    refused = await rig.computer.click_text("Unlock")
    assert refused.status == "denied"
    records = [r for r in rig.audit.records() if r.kind.startswith("computer-")]
    results = [r.data for r in records if r.kind == "computer-result"]
    assert [r["status"] for r in results] == ["ok", "denied"]
    decisions = [r.data["rule"] for r in records if r.kind == "computer-decision"]
    assert decisions == ["harmless:target", "deny:password-manager"]
    folder = tmp_path / "data" / "computer" / "thumbnails"
    for result in results:
        thumbnail = folder / result["thumbnail"]
        assert thumbnail.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
        assert thumbnail.stat().st_mode & 0o777 == 0o600
    assert rig.audit.verify().ok


def test_thumbnails_older_than_the_retention_are_deleted(tmp_path: Any) -> None:
    import os

    from aria_desktop.adapters.computer.thumbnails import ThumbnailStore

    store = ThumbnailStore(tmp_path / "thumbs", retention_days=2)
    png = tmp_path / "x.png"
    from aria_desktop.adapters.computer import imaging

    png.write_bytes(imaging.to_png(imaging.from_bgra(bytes(4 * 64 * 40), 64, 40)))
    old = tmp_path / "thumbs" / store.save(png.read_bytes(), label="click")
    new = tmp_path / "thumbs" / store.save(png.read_bytes(), label="click")
    three_days_ago = time.time() - 3 * 86400
    os.utime(old, (three_days_ago, three_days_ago))
    assert store.prune() == 1
    assert not old.exists()
    assert new.exists()
    assert ThumbnailStore(tmp_path / "off", retention_days=0).save(b"", label="x") == ""
