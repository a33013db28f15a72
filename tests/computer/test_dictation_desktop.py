"""Dictation on X11 (Xvfb): speech in Piper's voice, heard by the real Whisper while the real
global hotkey (X RECORD sees xdotool's key down and up) is held, typed by the real input path
into the target app's focused field; a password field gets nothing."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest

from aria_desktop.gui.hotkeys import GlobalHotkeys
from aria_desktop.gui.keyspec import parse_hotkey
from tests.computer.conftest import TargetApp
from tests.computer.dictation import SAID, Dictating, command, dictating, focus  # noqa: F401
from tests.voice.conftest import (  # noqa: F401
    SpeechMaker,
    piper,
    say_piper,
    speech_dir,
    steady_piper,
    whisper,
)

pytestmark = pytest.mark.slow


def xdotool(*args: str) -> Any:
    """An xdotool call, run off the loop (the hotkey listener's events reach the loop)."""

    async def run() -> None:
        await asyncio.to_thread(subprocess.run, ["xdotool", *args], check=True)

    return run


@pytest.fixture
async def hotkey(dictating: Any) -> AsyncIterator[list[Any]]:
    """The real global hotkey Ctrl+Alt+D, its edges sent as the tray app sends them."""
    loop = asyncio.get_running_loop()
    held: list[Any] = []

    sent: list[asyncio.Task[None]] = []

    def on_hotkey(action: str, kind: str) -> None:
        assert action == "dictate"
        if held:
            sent.append(loop.create_task(command(held[0], kind)()))

    keys = GlobalHotkeys(loop, on_hotkey)
    assert keys.start({"dictate": parse_hotkey("Ctrl+Alt+D")}), keys.status
    try:
        yield held
    finally:
        keys.stop()
        await xdotool("key", "shift")()  # the listener notices its stop at the next key


async def test_held_hotkey_types_the_dictated_sentence_into_the_focused_field_on_x11(
    dictating: Any, hotkey: list[Any], app: TargetApp, say_piper: SpeechMaker
) -> None:
    dictation: Dictating = await dictating()
    hotkey.append(dictation)
    await focus(dictation.rig, "Full name")
    down, up = xdotool("keydown", "ctrl+alt+d"), xdotool("keyup", "ctrl+alt+d")
    ended = await dictation.say_held(say_piper(*SAID, lead_s=0.2), down, up)
    assert ended.status == "typed", ended
    assert "tea" in ended.text.lower(), ended.text
    assert "sunday" in ended.text.lower(), ended.text
    assert app.state()["fields"]["name"] == ended.text, "the hotkey itself typed nothing"


async def test_a_password_field_gets_nothing_from_dictation_on_x11(
    dictating: Any, app: TargetApp, say_piper: SpeechMaker
) -> None:
    dictation: Dictating = await dictating()
    await focus(dictation.rig, "Password")
    mark = app.mark()
    ended = await dictation.say_held(
        say_piper("my secret is tulip", lead_s=0.2),
        command(dictation, "press"),
        command(dictation, "release"),
    )
    assert ended.status == "refused", ended
    assert ended.detail == "Nothing was typed: the focused field is a password field."
    app.settle()
    assert app.since(mark, "text") == []
    assert app.state()["fields"]["password"] == ""
