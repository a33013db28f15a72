"""openWakeWord with the packaged "hey jarvis" model on speech made at test time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import FRAME_BYTES, read_wav, to_pipeline_pcm
from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector, packaged_wake_models
from aria_desktop.domain.audio import SpeechAudio
from aria_desktop.domain.errors import VoiceModelError
from tests.voice.conftest import SpeechMaker, silence

# Outside the fast loop: the real openWakeWord models.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def detector() -> OpenWakeWordDetector:
    wake = OpenWakeWordDetector(("hey_jarvis",), threshold=0.5)
    asyncio.run(wake.load())
    return wake


def best_score(detector: OpenWakeWordDetector, path: Path) -> tuple[float, bool]:
    """Highest score over the clip (padded with silence) and whether it was detected."""
    detector.reset()
    pcm = silence(1.0) + to_pipeline_pcm(read_wav(path)) + silence(1.0)
    best, detected = 0.0, False
    model = detector._model
    for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
        frame = pcm[i : i + FRAME_BYTES]
        if detector.process_sync(frame) is not None:
            detected = True
        best = max(best, max(model.prediction_buffer["hey_jarvis_v0.1"]))
    detector.reset()
    return best, detected


def test_packaged_models_are_found() -> None:
    models = packaged_wake_models()
    assert {"hey_jarvis", "alexa", "hey_mycroft", "hey_rhasspy"} <= set(models)
    assert all(path.suffix == ".onnx" and path.is_file() for path in models.values())


@pytest.mark.parametrize(
    ("maker", "phrases"),
    [
        ("espeak", ("hey jarvis",)),
        ("espeak", ("hey jarvis, what time is it",)),
        ("piper", ("Hey Jarvis.",)),
        ("piper", ("Hey Jarvis, what is on my screen?",)),
    ],
)
def test_wake_word_detected_in_positive_clips(
    detector: OpenWakeWordDetector,
    say_espeak: SpeechMaker,
    say_piper: SpeechMaker,
    maker: str,
    phrases: tuple[str, ...],
) -> None:
    path = say_espeak(*phrases) if maker == "espeak" else say_piper(*phrases)
    score, detected = best_score(detector, path)
    assert detected, f"score {score:.3f} for {phrases}"


@pytest.mark.parametrize(
    ("maker", "text"),
    [
        ("espeak", "hello there, what is the weather like today"),
        ("espeak", "hey travis, open the garage"),
        ("piper", "Harvest the carrots in the garden before it rains."),
        ("piper", "Hey, can you tell me a joke about computers?"),
        ("piper", "Jars of jam are on the shelf in the kitchen."),
    ],
)
def test_wake_word_not_detected_in_negative_clips(
    detector: OpenWakeWordDetector,
    say_espeak: SpeechMaker,
    say_piper: SpeechMaker,
    maker: str,
    text: str,
) -> None:
    path = say_espeak(text) if maker == "espeak" else say_piper(text)
    score, detected = best_score(detector, path)
    assert not detected, f"false wake on {text!r} (score {score:.3f})"


async def test_scan_finds_the_wake_word_in_synthesized_speech(
    detector: OpenWakeWordDetector, piper: object
) -> None:
    pieces = piper._synthesize("Sure. You can wake me by saying hey Jarvis, any time.")  # type: ignore[attr-defined]
    audio = SpeechAudio(
        pcm=b"".join(p.pcm for p in pieces), sample_rate_hz=pieces[0].sample_rate_hz
    )
    hits = await detector.scan_speech(audio)
    assert hits, "ARIA's own 'hey Jarvis' should be found"
    assert all(0 < t <= audio.duration_s + 0.1 for t in hits)
    plain = piper._synthesize("Sure. The weather is fine today.")  # type: ignore[attr-defined]
    clean = SpeechAudio(pcm=plain[0].pcm, sample_rate_hz=plain[0].sample_rate_hz)
    assert await detector.scan_speech(clean) == []


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(VoiceModelError, match="no packaged wake word 'hey_computer'") as info:
        asyncio.run(OpenWakeWordDetector(("hey_computer",)).load())
    assert "hey_jarvis" in info.value.hint
    with pytest.raises(VoiceModelError, match="does not exist"):
        asyncio.run(OpenWakeWordDetector(("/nope/custom.onnx",)).load())
