"""The real device code (sounddevice -> PortAudio -> ALSA -> PulseAudio) on a private
PulseAudio server whose virtual speaker the microphone hears (tests/voice/pulse.py)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import struct
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
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ, AudioClip, SpeechAudio
from aria_desktop.domain.errors import AudioDeviceError
from tests.voice.pulse import SINK, PulseServer
from tests.voice.wer import normalize, word_errors

# Outside the fast loop: a private PulseAudio server and the real Piper voice.
pytestmark = pytest.mark.slow

_ARIA_DIRS = ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR")
LOUD = 0.05 * 32768
"""A sample this loud is speech, not silence (the null sink adds no noise)."""
MONITOR = f"{SINK}.monitor"
SECOND = "aria_test_second"
SECOND_LABEL = "ARIA second speaker"


def test_the_sound_servers_devices_are_listed_by_description_and_selected(
    pulse: PulseServer,
) -> None:
    """pactl's sinks and sources, not ALSA's one "pulse" device: by name and description."""
    devices = list_devices()
    by_name = {d.name: d for d in devices}
    assert set(by_name) == {SINK, MONITOR}, devices  # ALSA's "pulse" and "default" hidden
    speaker, monitor = by_name[SINK], by_name[MONITOR]
    assert (speaker.description, speaker.inputs, speaker.outputs) == ("ARIA-test-speaker", 0, 2)
    assert (monitor.description, monitor.inputs, monitor.outputs) == (
        "Monitor of ARIA-test-speaker",
        2,
        0,
    )
    assert speaker.host_api == monitor.host_api == "PulseAudio"
    assert [d for d in devices if d.is_default_output] == [speaker]
    assert [d for d in devices if d.is_default_input] == [monitor]
    assert find_device("", output=True) == speaker
    assert find_device("", output=False) == monitor
    assert find_device(SINK, output=True) == speaker  # the whole name, as settings store it
    assert find_device(MONITOR, output=False) == monitor
    assert find_device("aria-test-SPEAKER", output=True) == speaker  # a description, any case
    assert find_device("monitor of aria", output=False) == monitor  # part of one
    assert find_device(" test_speak ", output=False) == monitor  # part of a name


def test_older_settings_naming_alsas_devices_still_find_them(pulse: PulseServer) -> None:
    """ "pulse" and "default" (what the pickers stored before) are not listed beside the
    server's devices, and still open the same ALSA devices as before."""
    pulse_pcm = find_device("pulse", output=False)
    assert (pulse_pcm.name, pulse_pcm.host_api) == ("pulse", "ALSA")
    assert find_device(str(pulse_pcm.index), output=True) == pulse_pcm  # by index
    assert find_device("PULS", output=True) == pulse_pcm  # part of the name, any case
    assert find_device("  default ", output=False).name == "default"


@pytest.mark.parametrize("pactl", ["missing", "no server"])
def test_without_pactl_or_its_server_portaudios_devices_are_listed_as_before(
    pulse: PulseServer, pactl: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pactl == "no server":  # a pactl that cannot reach a server, as pactl says it
        fake = tmp_path / "pactl"
        fake.write_text("#!/bin/sh\necho 'Connection failure: Connection refused' >&2\nexit 1\n")
        fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    devices = {d.name: d for d in list_devices()}
    assert set(devices) == {"pulse", "default"}, devices
    assert all(d.host_api == "ALSA" and not d.description for d in devices.values())
    assert devices["default"].is_default_input
    assert devices["default"].is_default_output
    assert find_device("", output=True) == devices["default"]


def test_an_unknown_device_is_a_clear_error_listing_the_real_ones(pulse: PulseServer) -> None:
    with pytest.raises(AudioDeviceError) as info:
        find_device("usb headset", output=False)
    message = info.value.message
    assert message == (
        f"No microphone matches 'usb headset'. Available: Monitor of ARIA-test-speaker ({MONITOR})."
    )
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
    assert set(lines) == {SINK, MONITOR}, table.stdout
    assert lines[SINK].split()[:3] == ["-", SINK, "ARIA-test-speaker"], table.stdout
    assert lines[MONITOR].split()[:6] == ["-", MONITOR, "Monitor", "of", "ARIA-test-speaker", "in"]
    assert lines[SINK].endswith("PulseAudio *out")
    assert lines[MONITOR].rstrip().endswith("PulseAudio *in")
    listed = json.loads(aria("voice", "devices", "--json").stdout)
    assert {d["name"]: d["description"] for d in listed} == {
        SINK: "ARIA-test-speaker",
        MONITOR: "Monitor of ARIA-test-speaker",
    }
    doctor = aria("doctor")
    report = doctor.stdout + doctor.stderr
    assert "microphone" in report
    checks = {line.split()[1]: line for line in report.splitlines() if line[:4] in ("OK  ", "WARN")}
    assert checks["microphone"].split() == ["OK", "microphone", MONITOR], report
    assert checks["speaker"].split() == ["OK", "speaker", SINK], report
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


async def test_a_chosen_speaker_and_microphone_are_the_ones_used(pulse: PulseServer) -> None:
    """With two speakers, a tone played on the second by its name goes to it (PULSE_SINK while
    the stream opens), and only that speaker's monitor, picked by its description, hears it
    (PULSE_SOURCE); the variables are back as they were once the streams are open."""
    rate = PIPELINE_RATE_HZ
    tone = b"".join(
        struct.pack("<h", int(12_000 * math.sin(2 * math.pi * 440 * i / rate)))
        for i in range(rate)  # 1 s
    )
    heard: dict[str, list[bytes]] = {"second": [], "first": []}
    arrived = asyncio.Event()

    async def record(spec: str, into: list[bytes]) -> None:
        async for frame in MicrophoneSource(spec).frames():
            into.append(frame)
            arrived.set()

    def loud(frames: list[bytes]) -> int:
        return sum(_onset(f) is not None for f in frames)

    async def until(done: Callable[[], bool]) -> None:
        while not done():
            arrived.clear()
            await arrived.wait()

    variables = ("PULSE_SINK", "PULSE_SOURCE")
    before = {name: os.environ.get(name) for name in variables}
    with pulse.second_speaker(SECOND, SECOND_LABEL):
        listed = {d.name: d.description for d in list_devices()}
        assert listed[SECOND] == SECOND_LABEL
        assert listed[f"{SECOND}.monitor"] == f"Monitor of {SECOND_LABEL}"
        recorders = [
            asyncio.create_task(record(f"monitor of {SECOND_LABEL}", heard["second"])),
            asyncio.create_task(record(MONITOR, heard["first"])),
        ]
        speaker = SpeakerSink(SECOND, rate_hz=rate)
        try:
            async with asyncio.timeout(10):
                await until(lambda: min(len(f) for f in heard.values()) >= 3)  # both are live
            # each speaker's clock records its monitor, and so does each of our microphones
            recording = sorted(pulse.streams_on("source-outputs"))
            assert recording == sorted(2 * [MONITOR, f"{SECOND}.monitor"])
            await speaker.write(SpeechAudio(pcm=tone, sample_rate_hz=rate))
            assert pulse.streams_on("sink-inputs") == [SECOND]  # playing, on the second
            assert {name: os.environ.get(name) for name in variables} == before
            async with asyncio.timeout(20):
                await speaker.drain()
                await until(lambda: loud(heard["second"]) >= 10)  # 0.8 s of the tone
            settled = len(heard["first"]) + 3
            async with asyncio.timeout(10):
                await until(lambda: len(heard["first"]) >= settled)
        finally:
            for recorder in recorders:
                recorder.cancel()
            await asyncio.gather(*recorders, return_exceptions=True)
            await speaker.aclose()
    assert speaker.name == f"speaker:{SECOND}"
    assert loud(heard["first"]) == 0, "the first speaker played the tone too"
