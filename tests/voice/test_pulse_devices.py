"""Reading ``pactl list`` as pactl 16.1 prints it in the C locale (the fast loop: no server;
tests/voice/test_devices.py reads a real server's)."""

from __future__ import annotations

from aria_desktop.adapters.voice.pulse_devices import parse_pactl_list

SOURCES = """\
Source #0
\tState: RUNNING
\tName: alsa_output.pci-0000_00_1f.3.analog-stereo.monitor
\tDescription: Monitor of Audio interne Stéréo analogique
\tDriver: module-alsa-card.c
\tSample Specification: s16le 2ch 48000Hz
\tVolume: front-left: 65536 / 100% / 0.00 dB,   front-right: 65536 / 100% / 0.00 dB
\t        balance 0.00
\tMonitor of Sink: alsa_output.pci-0000_00_1f.3.analog-stereo
\tProperties:
\t\tdevice.description = "Monitor of Audio interne Stéréo analogique"
\t\tdevice.class = "monitor"

Source #1
\tState: SUSPENDED
\tName: alsa_input.usb-Logitech_USB_Headset-00.mono-fallback
\tDescription: USB Headset Mono
\tSample Specification: s16le 1ch 44100Hz
\tMonitor of Sink: n/a
\tProperties:
\t\tdevice.class = "sound"
"""


def test_real_microphones_come_before_monitors_with_their_descriptions() -> None:
    """A headset's microphone first, a sink's monitor after it; non-ASCII descriptions kept
    (pactl 16.1's JSON prints them as "(null)", which is why the text is read)."""
    headset, monitor = parse_pactl_list(
        SOURCES, default="alsa_input.usb-Logitech_USB_Headset-00.mono-fallback"
    )
    assert (headset.name, headset.description) == (
        "alsa_input.usb-Logitech_USB_Headset-00.mono-fallback",
        "USB Headset Mono",
    )
    assert (headset.inputs, headset.outputs, headset.default_rate_hz) == (1, 0, 44_100.0)
    assert headset.is_default_input
    assert not headset.is_default_output
    assert monitor.description == "Monitor of Audio interne Stéréo analogique"
    assert (monitor.inputs, monitor.index, monitor.host_api) == (2, -1, "PulseAudio")
    assert not monitor.is_default_input


def test_a_monitor_without_a_description_is_named_after_its_sink() -> None:
    text = "Source #3\n\tName: hdmi.monitor\n\tMonitor of Sink: hdmi\n\tSample Specification: x\n"
    (monitor,) = parse_pactl_list(text)
    assert monitor.description == "Monitor of hdmi"
    assert parse_pactl_list("") == []
