"""The device picker's behaviour: list the real devices, show the level, test, say the choice.

Shared by the settings dialog and the first-run wizard (``DevicePickerView``). Devices are
listed, and the microphone opened, only while the picker is on screen: the meter starts when
it is shown and stops when it is hidden or another microphone is picked. A device is stored
by name, as ``voice.input_device`` / ``voice.output_device`` take it ("" = the system
default), and shown by its description when it has one (a sound server's sink or source:
"USB Headset Analog Stereo", stored as ``alsa_output.usb-...``).
"""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox

from aria_desktop.core.ports import SoundCheck
from aria_desktop.domain.audio import AudioDevice
from aria_desktop.domain.error_text import plain_error
from aria_desktop.domain.errors import AriaError, AudioDeviceError
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.devices import DevicePickerView

__all__ = ["TEST_SECONDS", "DevicePicker", "device_label"]

_LOGGER = logging.getLogger(__name__)
TEST_SECONDS = 3.0
QUIET_DBFS = -50.0
"""A test recording whose loudest frame stays below this heard nothing (a muted microphone)."""
_SERVER_NAMES = {"pulse": "Sound server (PulseAudio)", "pipewire": "Sound server (PipeWire)"}
_HIDDEN = frozenset({"default", "sysdefault"})
"""ALSA's aliases of the system default, which the first entry already is."""
_DEFAULT_ALIASES = frozenset({*_HIDDEN, *_SERVER_NAMES})
"""Saved names that mean the system default when the computer no longer lists them (voice
lists the sound server's own devices instead of ALSA's ``pulse``)."""


def device_label(device: AudioDevice) -> str:
    """A device as people read it in the list: its description, else its name."""
    return device.description or _SERVER_NAMES.get(device.name, device.name)


class DevicePicker(QObject):
    """Fills ``view`` from ``sound`` and runs its meter and test.

    Args:
        sound: the computer's devices (None: none can be listed; the picker says so).
        view: the widget it drives.

    Signals:
        changed: the user picked another microphone or speaker.
    """

    changed = Signal()

    def __init__(self, sound: SoundCheck | None, view: DevicePickerView) -> None:
        super().__init__(view)
        self.sound, self.view = sound, view
        self.tasks = TaskOwner(self._report)
        self.devices: list[AudioDevice] = []
        self._wanted = ("", "")
        self._meter: asyncio.Task[None] | None = None
        self._testing = False
        self.test_seconds = TEST_SECONDS
        """How long Test records."""
        self.listed = asyncio.Event()
        """Set once the devices have been listed (tests and callers wait on it)."""
        view.microphone.activated.connect(self._picked)
        view.speaker.activated.connect(lambda _index: self.changed.emit())
        view.refresh_button.clicked.connect(self.refresh)
        view.test_button.clicked.connect(self.test)
        view.shown.connect(self.refresh)
        view.hidden.connect(self.stop_meter)

    # --- the choice ---------------------------------------------------------------------------

    def load(self, microphone: str, speaker: str) -> None:
        """Show these devices as chosen; the computer's are listed once the picker is seen."""
        self._wanted = (microphone, speaker)
        _fill(self.view.microphone, None, microphone, output=False)
        _fill(self.view.speaker, None, speaker, output=True)
        if self.view.isVisible():
            self.refresh()

    def microphone(self) -> str:
        """The chosen microphone as the setting takes it ("" = the system default)."""
        return str(self.view.microphone.currentData() or "")

    def speaker(self) -> str:
        """The chosen speaker as the setting takes it ("" = the system default)."""
        return str(self.view.speaker.currentData() or "")

    def refresh(self) -> None:
        """List the devices again (a headset plugged in meanwhile appears)."""
        self.listed.clear()
        self.tasks.spawn(self._list(), name="aria-gui-list-devices")

    async def _list(self) -> None:
        view = self.view
        chosen = (self.microphone() or self._wanted[0], self.speaker() or self._wanted[1])
        try:
            if self.sound is None:
                raise AudioDeviceError("Sound devices cannot be listed here.")
            self.devices = await self.sound.devices()
        except AriaError as exc:
            self.devices = []
            self._failed(exc, "Typed chat works without sound.")
        _fill(view.microphone, [d for d in self.devices if d.inputs], chosen[0], output=False)
        _fill(view.speaker, [d for d in self.devices if d.outputs], chosen[1], output=True)
        if self.sound is not None and not self.devices:
            view.say("No microphone or speaker found. Typed chat works without them.", "error")
        view.test_button.setEnabled(bool(self.devices) and not self._testing)
        self.listed.set()
        if self.devices and view.isVisible():
            self.start_meter()

    def _picked(self, _index: int) -> None:
        self.changed.emit()
        self.start_meter()

    # --- the level ----------------------------------------------------------------------------

    def start_meter(self) -> None:
        """Listen to the chosen microphone and show its level (again, after a new choice)."""
        self.stop_meter()
        if self.sound is None or not self.devices or self._testing:
            return
        self._meter = self.tasks.spawn(self._run_meter(self.microphone()), name="aria-gui-meter")

    def stop_meter(self) -> None:
        """Close the microphone; the meter drops to empty."""
        if self._meter is not None:
            self._meter.cancel()
            self._meter = None
        self.view.show_level(-100.0)

    async def _run_meter(self, microphone: str) -> None:
        assert self.sound is not None
        levels = self.sound.levels(microphone)
        try:
            async for level in levels:
                self.view.show_level(level)
        finally:
            await levels.aclose()

    # --- the test -----------------------------------------------------------------------------

    def test(self) -> None:
        """Record 3 s from the microphone, then play them on the speaker."""
        if self.sound is None or self._testing:
            return
        self.tasks.spawn(self._test(), name="aria-gui-test-devices")

    async def _test(self) -> None:
        assert self.sound is not None
        view = self.view
        self._testing = True
        self.stop_meter()
        view.test_button.setEnabled(False)
        loudest = -100.0

        def heard(level: float) -> None:
            nonlocal loudest
            loudest = max(loudest, level)
            view.show_level(level)

        try:
            view.say(f"Recording for {self.test_seconds:g} seconds: say something.")
            clip = await self.sound.record(self.microphone(), self.test_seconds, heard)
            view.show_level(-100.0)
            view.say("Playing it back…")
            await self.sound.play(self.speaker(), clip)
        except AriaError as exc:
            self._failed(exc)
        else:
            if loudest < QUIET_DBFS:
                view.say(
                    "The microphone heard almost nothing: check that it is not muted, or pick "
                    "another one.",
                    "error",
                )
            else:
                view.say("Done: you should have heard yourself.", "success")
        finally:
            self._testing = False
            view.test_button.setEnabled(bool(self.devices))
            if view.isVisible():
                self.start_meter()

    def _failed(self, exc: AriaError, then: str = "") -> None:
        """The failure in plain words (the error table's); its technical text as a tooltip."""
        plain = plain_error(exc.code, exc.message)
        self.view.say(f"{plain.message} {then}".strip(), "error")
        self.view.status.setToolTip(plain.detail or exc.message)

    def _report(self, message: str, _hint: str) -> None:
        self.view.say(message, "error")

    async def aclose(self) -> None:
        """Stop the meter and any test (the microphone and speaker close)."""
        self.stop_meter()
        await self.tasks.cancel_all()


def _fill(box: QComboBox, devices: list[AudioDevice] | None, chosen: str, *, output: bool) -> None:
    """The system default first, then each device (None: not listed yet).

    A chosen device that is not connected now stays listed as such, so saving keeps it. A
    chosen part of a name or description picks the device it names (as voice would); a
    chosen alias of the system default that is not listed picks "System default".
    """
    box.clear()
    found = devices or []
    default = next(
        (d for d in found if (d.is_default_output if output else d.is_default_input)), None
    )
    suffix = f" — {device_label(default)}" if default and default.name not in _HIDDEN else ""
    box.addItem(f"System default{suffix}", "")
    for device in found:
        if device.name not in _HIDDEN:
            box.addItem(device_label(device), device.name)
            if device.description:  # what the setting stores, for who looks it up
                box.setItemData(box.count() - 1, device.name, Qt.ItemDataRole.ToolTipRole)
    if chosen and box.findData(chosen) < 0:
        if found and chosen.strip().lower() in _DEFAULT_ALIASES:
            box.setCurrentIndex(0)
            return
        wanted = chosen.strip().lower()
        named = [
            i
            for i in range(1, box.count())
            if wanted in str(box.itemData(i)).lower() or wanted in box.itemText(i).lower()
        ]
        if named:  # find_device takes part of a name or a description too
            box.setCurrentIndex(named[0])
            return
        box.addItem(chosen if devices is None else f"{chosen} (not connected)", chosen)
    box.setCurrentIndex(max(0, box.findData(chosen)))
