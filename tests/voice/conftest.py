"""Real voice models shared across the voice tests (loaded once per session), and speech
generated at test time with Piper and espeak-ng."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import resample_pcm
from aria_desktop.adapters.voice.piper_tts import PiperTTS
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.domain.audio import PIPELINE_RATE_HZ
from tests.voice.pulse import PulseServer, pulse_server
from tests.voice.wyoming_servers import wake_server_process

SpeechMaker = Callable[..., Path]


def write_wav(path: Path, pcm: bytes, rate_hz: int = PIPELINE_RATE_HZ) -> Path:
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate_hz)
        writer.writeframes(pcm)
    return path


def silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * PIPELINE_RATE_HZ) * 2)


@pytest.fixture(scope="session")
def piper() -> PiperTTS:
    tts = PiperTTS()
    asyncio.run(tts.load())
    return tts


@pytest.fixture(scope="session")
def whisper() -> WhisperSTT:
    stt = WhisperSTT("tiny.en", cpu_threads=2)
    asyncio.run(stt.load())
    return stt


@pytest.fixture(scope="session")
def base_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's ``paths.model_cache_dir()`` with ``ARIA_CACHE_DIR`` = its parent: the
    multilingual base model is joined here (145 MB, removed at the end)."""
    folder = tmp_path_factory.mktemp("aria-cache") / "models"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def whisper_base(base_cache: Path) -> WhisperSTT:
    """Multilingual Whisper base (language detected), loaded once per session."""
    stt = WhisperSTT("base", cpu_threads=2, cache_dir=base_cache)
    asyncio.run(stt.load())
    return stt


def piper_pcm16k(piper: PiperTTS, text: str) -> bytes:
    pieces = piper._synthesize(text)
    return b"".join(resample_pcm(p.pcm, p.sample_rate_hz, PIPELINE_RATE_HZ) for p in pieces)


@pytest.fixture(scope="session")
def speech_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speech")


@pytest.fixture(scope="session")
def steady_piper() -> PiperTTS:
    """Piper without its natural variation: the same phrase is the same audio on every run."""
    tts = PiperTTS(varied=False)
    asyncio.run(tts.load())
    return tts


@pytest.fixture(scope="session")
def say_piper(piper: PiperTTS, steady_piper: PiperTTS, speech_dir: Path) -> SpeechMaker:
    """Speak phrases with Piper into one 16 kHz WAV (``pause_s`` between them).

    ``steady=True``: without Piper's random variation, for a test whose check hinges on how
    one clip is heard (a wake word's tail carried into the command), not on the voice.
    """
    count = 0

    def make(
        *phrases: str, pause_s: float = 0.3, lead_s: float = 0.3, steady: bool = False
    ) -> Path:
        nonlocal count
        count += 1
        engine = steady_piper if steady else piper
        pcm = silence(lead_s)
        for i, phrase in enumerate(phrases):
            if i:
                pcm += silence(pause_s)
            pcm += piper_pcm16k(engine, phrase)
        return write_wav(speech_dir / f"piper{count}.wav", pcm)

    return make


@pytest.fixture(scope="session")
def say_espeak(speech_dir: Path) -> Callable[[str, str], Path]:
    """Speak a phrase with espeak-ng (``voice``: en-us, de, fr, ...), as 16 kHz mono 16-bit."""
    if not (shutil.which("espeak-ng") and shutil.which("sox")):
        pytest.fail("espeak-ng and sox are needed (packaging/setup.sh installs them)")
    count = 0

    def make(text: str, voice: str = "en-us") -> Path:
        nonlocal count
        count += 1
        out = speech_dir / f"espeak{count}.wav"
        espeak = subprocess.run(
            ["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True
        )
        subprocess.run(
            ["sox", "-q", "-t", "wav", "-", "-r", "16000", "-c", "1", "-b", "16", str(out)],
            input=espeak.stdout,
            check=True,
        )
        return out

    return make


@pytest.fixture(scope="module")
def pulse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    """A private PulseAudio server with a virtual speaker and its monitor as microphone,
    for the tests of one module (stopped, and this process pointed back, afterwards)."""
    with pulse_server(tmp_path_factory.mktemp("pulse")) as server:
        yield server


@pytest.fixture(scope="module")
def wake_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Wyoming wake word server (tests/voice/wyoming_wake_server.py) for one module."""
    yield from wake_server_process(tmp_path_factory.mktemp("wyoming-wake"))
