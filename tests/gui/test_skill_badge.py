"""Who answered, in the chat window: a local skill in plain words, the same after a restart."""

from __future__ import annotations

from typing import Any

from aria_desktop.gui.format import reply_badge, skill_title
from tests.gui.conftest import Runner, wait_for
from tests.gui.everyday import skills_app

__all__ = ["skills_app"]


def test_a_skill_badge_names_the_skill_in_plain_words() -> None:
    assert reply_badge("lists", "skills", "local", 3.0) == "Answered on this computer · Lists"
    assert reply_badge("timers", "skills", "", None) == "Answered on this computer · Timers"
    assert reply_badge("", "skills", "local", None) == "Answered on this computer"
    assert skill_title("open_app") == "Open app"


def test_a_model_badge_is_unchanged() -> None:
    assert reply_badge("llama3.2", "ollama", "local", 1400) == "llama3.2 · local (ollama) · 1.4 s"
    assert reply_badge("llama3.2", "ollama", "", None) == "llama3.2 · ollama"


def _send(desktop: Any, run: Runner, text: str) -> None:
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run, status: finished.append(status))
    desktop.chat.send(text)
    run(wait_for(lambda: bool(finished), timeout_s=30), timeout_s=40)
    assert finished == ["complete"]


def test_local_answers_say_which_skill_answered_live_and_in_history(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    _send(desktop, run, "add milk to my shopping list")
    _send(desktop, run, "what time is it")
    live = desktop.chat_view.transcript.plain_text()
    assert live.count("Answered on this computer · Lists") == 1
    assert live.count("Answered on this computer · Clock") == 1
    assert "skills" not in live

    conversation = desktop.chat.conversation_id
    desktop.chat.new_conversation()
    desktop.chat.open_conversation(conversation)  # as after a restart: from the stored messages
    transcript = desktop.chat_view.transcript
    run(wait_for(lambda: "· Clock" in transcript.plain_text()))
    stored = transcript.plain_text()
    assert stored.count("Answered on this computer · Lists") == 1
    assert stored.count("Answered on this computer · Clock") == 1
    assert "skills" not in stored


def test_never_mind_ends_the_turn_quietly(
    desktop_factory: Any, skills_app: Any, run: Runner
) -> None:
    desktop = desktop_factory(skills_app.assistant)
    _send(desktop, run, "never mind")
    shown = desktop.chat_view.transcript.plain_text()
    assert shown.rstrip().endswith("Okay.")
    assert "Done ·" not in shown
    assert "Answered on this computer" not in shown
