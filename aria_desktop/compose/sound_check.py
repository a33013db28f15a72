"""The sound check the settings dialog and the wizard use: the voice's own device adapters."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aria_desktop.core.voice.ports import SoundCheck

__all__ = ["build_sound_check"]


def build_sound_check() -> SoundCheck:
    """A ``SoundCheck`` over sounddevice (PortAudio), as voice lists and opens devices."""
    from aria_desktop.adapters.voice.devices import MicrophoneSource, SpeakerSink, list_devices
    from aria_desktop.core.voice.sound_check import DeviceCheck
    from aria_desktop.domain.audio import PIPELINE_RATE_HZ

    return DeviceCheck(
        list_devices,
        MicrophoneSource,
        lambda device: SpeakerSink(device, rate_hz=PIPELINE_RATE_HZ),
    )
