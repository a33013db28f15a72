"""The dictation sign: shown while ARIA listens for words to type, changed while it types, gone
after; a refusal is told in plain words. Driven by the real events through the real bus."""

from __future__ import annotations

from typing import Any

from aria_desktop.domain.voice_events import DictationEnd, SttEnd, SttStart, SttVadEnd
from tests.gui.conftest import wait_for
from tests.gui.test_render import screenshot, settle


def test_the_sign_shows_while_listening_then_typing_and_goes_after(
    desktop_factory: Any, stack: Any, run: Any, theme: str
) -> None:
    desktop = desktop_factory(stack.assistant)
    view = desktop.dictation.view
    bus = stack.orchestrator.bus
    bus.publish(SttStart(trigger="dictation"))
    run(wait_for(lambda: view.isVisible()))
    settle(run, view)
    screenshot("dictation-listening", theme)
    assert view.label.text().startswith("Listening — speak, then ")
    assert "`" not in view.label.text()
    assert not view.isActiveWindow(), "the focused window keeps the focus"
    bus.publish(SttVadEnd(reason="released", audio_ms=1800.0))
    run(wait_for(lambda: view.label.text() == "Typing what you said…"))
    bus.publish(DictationEnd(status="typed", text="See you on Sunday."))
    run(wait_for(lambda: not view.isVisible()))


def test_a_refused_dictation_is_told_and_a_question_shows_no_sign(
    desktop_factory: Any, stack: Any, run: Any
) -> None:
    desktop = desktop_factory(stack.assistant)
    told: list[tuple[str, str]] = []
    desktop.dictation._notify = lambda title, text: told.append((title, text))
    view = desktop.dictation.view
    bus = stack.orchestrator.bus
    bus.publish(SttStart(trigger="dictation"))
    run(wait_for(lambda: view.isVisible()))
    detail = "Nothing was typed: the focused field is a password field."
    bus.publish(DictationEnd(status="refused", detail=detail))
    run(wait_for(lambda: not view.isVisible()))
    assert told == [("Dictation", detail)]
    bus.publish(SttStart(trigger="push-to-talk"))
    bus.publish(SttEnd(text="what time is it"))
    run(wait_for(lambda: not desktop.dictation.active))
    assert not view.isVisible()
