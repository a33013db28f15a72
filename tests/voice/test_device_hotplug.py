"""Devices that appear after ARIA started (a separate module: the ``pulse`` fixture of
test_devices.py must not be running here)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.devices import MicrophoneSource, find_device, list_devices
from aria_desktop.domain.audio import FRAME_SAMPLES
from aria_desktop.domain.errors import AudioDeviceError
from tests.voice.pulse import SINK, pulse_server

# Outside the fast loop: PulseAudio servers started and stopped under a running ARIA.
pytestmark = pytest.mark.slow

_ARIA_DIRS = ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR")


async def test_a_sound_server_started_later_is_found_without_a_restart(tmp_path: Path) -> None:
    """PortAudio lists devices once; ARIA re-lists when no stream is open, so a headset
    plugged in (here: a sound server started) after ARIA started is found, and gone again."""
    assert list_devices() == []  # no sound card on this machine
    with pulse_server(tmp_path) as server:
        names = {d.name for d in list_devices()}
        assert SINK in names  # the server's own speaker, by its name
        async with asyncio.timeout(10):
            mic = MicrophoneSource("pulse").frames()
            assert len(await anext(mic)) == FRAME_SAMPLES * 2
            await mic.aclose()
        assert server.process.poll() is None
    assert list_devices() == []
    with pytest.raises(AudioDeviceError, match="There is no microphone"):
        find_device("", output=False)


def test_doctor_reports_no_sound_device_as_a_warning(tmp_path: Path) -> None:
    env = {**os.environ, **{k: str(tmp_path / k) for k in _ARIA_DIRS}}
    doctor = subprocess.run(
        [sys.executable, "-m", "aria_desktop", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    report = doctor.stdout + doctor.stderr
    assert "Traceback" not in report
    audio = [line for line in report.splitlines() if line.split()[1:2] == ["audio"]]
    assert audio == [f"WARN  {'audio':18} no sound device (no microphone, no speaker)"], report
