"""The microphone and speaker picker on a real sound server (a private PulseAudio with a
virtual speaker whose monitor is the microphone): the devices listed, the level meter on a
played tone, Test recording and playing back."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from aria_desktop.compose.sound_check import build_sound_check
from aria_desktop.domain.audio import encode_wav
from aria_desktop.gui.controllers.devices import DevicePicker
from aria_desktop.gui.views.devices import DevicePickerView, level_percent
from tests.gui.conftest import wait_for
from tests.gui.test_render import screenshot, settle
from tests.voice.pulse import SINK, PulseServer, pulse_server

MONITOR = f"{SINK}.monitor"


@pytest.fixture(scope="module")
def pulse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    with pulse_server(tmp_path_factory.mktemp("pulse")) as server:
        yield server


def tone(path: Path, seconds: float = 4.0, rate_hz: int = 16_000) -> Path:
    """A loud 440 Hz tone as a WAV file (someone speaking into the room)."""
    samples = (
        int(12_000 * math.sin(2 * math.pi * 440 * i / rate_hz))
        for i in range(int(seconds * rate_hz))
    )
    path.write_bytes(encode_wav(b"".join(struct.pack("<h", s) for s in samples), rate_hz))
    return path


@pytest.fixture
def picker(pulse: PulseServer, qapp: Any, run: Any) -> Iterator[DevicePicker]:
    view = DevicePickerView()
    controller = DevicePicker(build_sound_check(), view)
    yield controller
    run(controller.aclose())
    view.hide()
    view.deleteLater()


async def listed(picker: DevicePicker, microphone: str, speaker: str) -> None:
    """Show these devices as chosen and wait until the computer's devices are listed (as
    showing the picker does)."""
    picker.load(microphone, speaker)
    picker.refresh()
    await picker.listed.wait()


async def on_loop(call: Callable[[], object]) -> None:
    """Show or hide on the loop: the meter's task is started or cancelled there."""
    call()


def items(box: Any) -> list[tuple[str, str]]:
    return [(box.itemText(i), box.itemData(i)) for i in range(box.count())]


def test_the_pickers_list_the_sound_servers_devices(picker: DevicePicker, run: Any) -> None:
    """The server's own sinks and sources, by description, stored by their names."""
    view = picker.view
    run(listed(picker, "", ""))
    microphones, speakers = items(view.microphone), items(view.speaker)
    assert microphones == [
        ("System default — Monitor of ARIA-test-speaker", ""),
        ("Monitor of ARIA-test-speaker", MONITOR),
    ]
    assert speakers == [
        ("System default — ARIA-test-speaker", ""),
        ("ARIA-test-speaker", SINK),
    ]  # not ALSA's "pulse" and "default": the first entry already is them
    assert view.speaker.itemData(1, Qt.ItemDataRole.ToolTipRole) == SINK
    # Picking one stores the sound server's name of it, as voice takes it.
    view.microphone.setCurrentIndex(view.microphone.findText("Monitor of ARIA-test-speaker"))
    view.speaker.setCurrentIndex(view.speaker.findText("ARIA-test-speaker"))
    assert (picker.microphone(), picker.speaker()) == (MONITOR, SINK)
    run(listed(picker, MONITOR, SINK))  # a saved choice is shown by its description
    assert view.microphone.currentText() == "Monitor of ARIA-test-speaker"
    assert view.speaker.currentText() == "ARIA-test-speaker"
    run(on_loop(view.show))  # showing lists the devices again: wait for that listing
    run(picker.listed.wait())
    settle(run, view)
    screenshot("device-picker")  # looked at: the server's devices by their descriptions
    run(on_loop(view.hide))
    # A saved device that is not plugged in stays listed (saving keeps it), and is chosen; a
    # saved "pulse" (the one device the pickers knew before) is the system default.
    run(listed(picker, "USB headset", "pulse"))
    assert view.microphone.currentText() == "USB headset (not connected)"
    assert view.speaker.currentIndex() == 0
    assert (picker.microphone(), picker.speaker()) == ("USB headset", "")
    run(listed(picker, "monitor of aria", "test_speak"))  # part of a description or a name
    assert (picker.microphone(), picker.speaker()) == (MONITOR, SINK)


def test_the_level_meter_moves_on_a_played_tone_and_test_plays_it_back(
    picker: DevicePicker, pulse: PulseServer, run: Any, tmp_path: Path
) -> None:
    view = picker.view
    run(listed(picker, "", ""))
    run(on_loop(view.show))
    run(wait_for(lambda: picker._meter is not None))
    assert view.level.value() == 0
    sound = tone(tmp_path / "tone.wav")
    player = pulse.play(sound)
    try:
        run(wait_for(lambda: view.level.value() > 60))
        picker.test_seconds = 0.4
        view.test_button.click()
        run(wait_for(lambda: "heard yourself" in view.status.text()))
    finally:
        player.kill()
        player.wait(timeout=5)
    assert view.test_button.isEnabled()
    run(on_loop(view.hide))
    assert picker._meter is None  # hidden: the microphone is closed
    assert view.level.value() == 0


def test_the_meter_scale() -> None:
    assert [level_percent(db) for db in (-100.0, -60.0, -30.0, 0.0, 3.0)] == [0, 0, 50, 100, 100]
