"""The real device code (sounddevice -> PortAudio -> ALSA -> PulseAudio) on a private
PulseAudio server whose virtual speaker the microphone hears (tests/voice/pulse.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from aria_desktop.adapters.voice.audio import pcm_to_int16, resample_pcm
from aria_desktop.adapters.voice.devices import (
    MicrophoneSource,
    SpeakerSink,
    find_device,
    list_devices,
)
from aria_desktop.adapters.voice.piper_tts import PiperTTS
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ, AudioClip
from aria_desktop.domain.errors import AudioDeviceError
from tests.voice.pulse import PulseServer
from tests.voice.wer import normalize, word_errors

# Outside the fast loop: a private PulseAudio server and the real Piper voice.
pytestmark = pytest.mark.slow

_ARIA_DIRS = ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR")
LOUD = 0.05 * 32768
"""A sample this loud is speech, not silence (the null sink adds no noise)."""


def test_pulseaudio_devices_are_listed_and_selected_by_index_or_name(pulse: PulseServer) -> None:
    devices = {d.name: d for d in list_devices()}
    assert {"pulse", "default"} <= set(devices), devices
    for device in devices.values():
        assert device.inputs > 0
        assert device.outputs > 0
        assert device.host_api == "ALSA"
    default = devices["default"]
    assert default.is_default_input
    assert default.is_default_output
    assert find_device("", output=True) == default
    assert find_device("", output=False) == default
    by_index = find_device(str(devices["pulse"].index), output=False)
    assert by_index.name == "pulse"
    assert find_device("PULS", output=True).name == "pulse"  # part of the name, any case
    assert find_device("  default ", output=False).name == "default"


def test_an_unknown_device_is_a_clear_error_listing_the_real_ones(pulse: PulseServer) -> None:
    with pytest.raises(AudioDeviceError) as info:
        find_device("usb headset", output=False)
    message = info.value.message
    assert message.startswith("No microphone matches 'usb headset'. Available: ")
    assert "pulse" in message
    assert "default" in message
    assert "aria voice devices" in info.value.hint
    assert "voice.input_device" in info.value.hint
    with pytest.raises(AudioDeviceError, match="No speaker matches '42'"):
        find_device("42", output=True)  # an index that does not exist


def test_aria_voice_devices_and_doctor_list_them(pulse: PulseServer, tmp_path: Path) -> None:
    env = {**pulse.env(), **{k: str(tmp_path / k) for k in _ARIA_DIRS}}

    def aria(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "aria_desktop", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )

    table = aria("voice", "devices")
    assert table.returncode == 0, table.stderr
    lines = {line.split()[1]: line for line in table.stdout.splitlines()}
    assert set(lines) == {"pulse", "default"}, table.stdout
    assert "*in *out" in lines["default"]
    assert "ALSA" in lines["pulse"]
    listed = json.loads(aria("voice", "devices", "--json").stdout)
    assert {d["name"] for d in listed} == {"pulse", "default"}
    doctor = aria("doctor")
    report = doctor.stdout + doctor.stderr
    assert "microphone" in report
    checks = {line.split()[1]: line for line in report.splitlines() if line[:4] in ("OK  ", "WARN")}
    assert checks["microphone"].split() == ["OK", "microphone", "default"], report
    assert checks["speaker"].split() == ["OK", "speaker", "default"], report
    assert "audio" not in checks


def _onset(pcm: bytes) -> int | None:
    """Index of the first loud sample."""
    loud = np.flatnonzero(np.abs(pcm_to_int16(pcm).astype(np.int32)) > LOUD)
    return int(loud[0]) if len(loud) else None


async def test_speech_played_on_the_speaker_is_heard_by_the_microphone(
    pulse: PulseServer, piper: PiperTTS, whisper: WhisperSTT
) -> None:
    """Piper speech through SpeakerSink into the virtual speaker, recorded back through
    MicrophoneSource from its monitor: same words, no gaps. (How long the round trip takes
    is the sound server's business, not an assertion here.)"""
    text = "The kettle is boiling. Please come to the kitchen."
    pieces = await asyncio.to_thread(piper._synthesize, text)
    source_pcm = b"".join(p.pcm for p in pieces)
    rate = pieces[0].sample_rate_hz
    expected = pcm_to_int16(resample_pcm(source_pcm, rate, PIPELINE_RATE_HZ)).astype(np.float64)
    recorded: list[bytes] = []
    arrived = asyncio.Event()

    async def record() -> None:
        async for frame in MicrophoneSource("pulse").frames():
            recorded.append(frame)
            arrived.set()

    async def recorded_until(done: Callable[[], bool]) -> None:
        """Wait (on the microphone's frames, not on time) until ``done`` holds."""
        while not done():
            arrived.clear()
            await arrived.wait()

    def heard_all_of_it() -> bool:
        """The recording holds the speech from its first loud sample to its length, plus a
        few frames: the whole sentence came back through the sound server."""
        first = next((i for i, f in enumerate(recorded) if _onset(f) is not None), None)
        if first is None:
            return False
        return (len(recorded) - first) * FRAME_SAMPLES > len(expected) + 4 * FRAME_SAMPLES

    recorder = asyncio.create_task(record())
    speaker = SpeakerSink("default")
    try:
        async with asyncio.timeout(10):
            await recorded_until(lambda: len(recorded) >= 3)  # the microphone is live
        for piece in pieces:
            await speaker.write(piece)
        async with asyncio.timeout(30):
            await speaker.drain()
            await recorded_until(heard_all_of_it)
    finally:
        recorder.cancel()
        await asyncio.gather(recorder, return_exceptions=True)
        await speaker.aclose()
    assert speaker.name == "speaker:default"
    assert speaker.underruns == 0, "the device ran dry while speech was queued"
    assert speaker.first_audio_at is not None

    pcm = b"".join(recorded)
    heard = await whisper.transcribe(AudioClip(pcm=pcm))
    words = normalize(heard.text)
    assert {"kettle", "boiling", "kitchen"} <= set(words), heard.text
    assert word_errors(text, heard.text)[0] <= 1, heard.text  # Whisper may slip on one word

    # the recording is the speech itself (no gaps, no distortion): normalised correlation
    got = pcm_to_int16(pcm).astype(np.float64)
    correlation = np.correlate(got, expected, mode="valid")
    lag = int(np.argmax(correlation))
    window = got[lag : lag + len(expected)]
    similarity = correlation[lag] / (np.linalg.norm(window) * np.linalg.norm(expected))
    assert similarity > 0.9, similarity
    # it came back once, after it was played: the speech starts where the recording's first
    # loud sample is (no earlier copy, nothing lost at the start). Within half a frame: a lost
    # or doubled frame is a whole one (80 ms), while the first loud sample of resampled,
    # randomly varied Piper speech moves by a few ms (22.6 ms once in CI, over a quarter frame)
    src_onset = _onset(source_pcm)
    rec_onset = _onset(pcm)
    assert src_onset is not None
    assert rec_onset is not None
    assert abs((lag + src_onset * PIPELINE_RATE_HZ / rate) - rec_onset) < FRAME_SAMPLES / 2
