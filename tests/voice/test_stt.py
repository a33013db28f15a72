"""faster-whisper tiny.en (packaged, int8, 2 threads) on commands spoken by Piper."""

from __future__ import annotations

import asyncio
import wave

import pytest

from aria_desktop.adapters.voice.audio import read_wav
from aria_desktop.adapters.voice.whisper import (
    SileroVAD,
    WhisperSTT,
    decoding_prefix,
    whisper_model_path,
)
from aria_desktop.domain.audio import AudioClip, decode_wav
from aria_desktop.domain.errors import AudioFormatError, VoiceModelError
from tests.voice.conftest import SpeechMaker, silence
from tests.voice.wer import word_errors

# Outside the fast loop: the real Whisper model.
pytestmark = pytest.mark.slow

COMMANDS = [
    "What is on my screen?",
    "Open the calendar for next week.",
    "Set a timer for ten minutes.",
    "What is the weather like today?",
    "Read my latest email.",
    "Turn off the lights in the kitchen.",
    "Remind me to call my mother tomorrow.",
    "How far is the moon from the earth?",
    "Close all the windows on the desktop.",
    "Play some relaxing music.",
    "What time is it in Tokyo?",
    "Take a screenshot of this window.",
    "Search the web for pizza recipes.",
    "Summarize this document for me.",
    "Create a new note called shopping list.",
    "How many days until Christmas?",
    "Translate good morning into French.",
    "Show me my schedule for today.",
    "Send a message to the team.",
    "What is the capital of Australia?",
    "Scroll down to the bottom of the page.",
    "Stop the music.",
]


@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_word_error_rate_under_ten_percent(
    whisper: WhisperSTT, say_piper: SpeechMaker
) -> None:
    errors = words = 0
    misses = []
    for command in COMMANDS:
        clip = read_wav(say_piper(command))
        transcript = await whisper.transcribe(clip)
        e, n = word_errors(command, transcript.text)
        errors += e
        words += n
        if e:
            misses.append((command, transcript.text))
    wer = errors / words
    assert len(COMMANDS) >= 20
    assert wer < 0.10, f"WER {wer:.1%}; misses: {misses}"


async def test_transcript_fields_and_resampling(
    whisper: WhisperSTT, say_piper: SpeechMaker
) -> None:
    clip = read_wav(say_piper("Open the calendar."))
    # the same speech at 48 kHz stereo must give the same words
    from aria_desktop.adapters.voice.audio import resample_pcm

    mono48 = resample_pcm(clip.pcm, 16_000, 48_000)
    stereo = b"".join(mono48[i : i + 2] * 2 for i in range(0, len(mono48), 2))
    transcript = await whisper.transcribe(AudioClip(pcm=stereo, sample_rate_hz=48_000, channels=2))
    assert word_errors("Open the calendar.", transcript.text)[0] == 0, transcript.text
    assert transcript.language == "en"
    assert transcript.engine == "faster-whisper tiny.en"
    assert transcript.latency_ms > 0
    assert transcript.audio_s == pytest.approx(clip.duration_s, abs=0.05)


def _record_encoder_windows(whisper: WhisperSTT, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Spy on the real model's encoder: the number of mel frames of each window it encodes
    (after ``_WindowedEncoder`` cut it, so what CTranslate2 really gets)."""
    assert whisper._encoder is not None
    real_encode = whisper._encoder._encode
    windows: list[int] = []

    def encode(features: object) -> object:
        windows.append(int(features.shape[-1]))  # type: ignore[attr-defined]
        return real_encode(features)

    monkeypatch.setattr(whisper._encoder, "_encode", encode)
    return windows


async def test_a_short_command_is_encoded_in_the_full_window(
    whisper: WhisperSTT, say_piper: SpeechMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The speech-fitted window changed transcripts on the accuracy set: it is not used."""
    windows = _record_encoder_windows(whisper, monkeypatch)
    clip = read_wav(say_piper("Set a timer for ten minutes."))
    transcript = await whisper.transcribe(clip)
    assert word_errors("Set a timer for ten minutes.", transcript.text)[0] == 0, transcript.text
    assert windows == [3000]  # 30 s of mel frames, 100 per second


async def test_the_fitted_window_option_encodes_ten_seconds_and_keeps_the_full_one_for_doubt(
    whisper: WhisperSTT, say_piper: SpeechMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``voice.stt.fitted_window``: a clear command is decoded on a 10 s window; noise, which
    faster-whisper finds to be no speech there, is decided on the full window."""
    import numpy as np

    monkeypatch.setattr(whisper, "_fitted_window", True)
    windows = _record_encoder_windows(whisper, monkeypatch)
    transcript = await whisper.transcribe(read_wav(say_piper("Set a timer for ten minutes.")))
    assert word_errors("Set a timer for ten minutes.", transcript.text)[0] == 0, transcript.text
    assert (windows, whisper.last_window_s) == ([1000], 10.0)
    windows.clear()
    noise = (np.random.default_rng(7).normal(0, 0.05, 32_000) * 32_767).astype(np.int16)
    assert (await whisper.transcribe(AudioClip(pcm=noise.tobytes()))).text == ""
    assert (windows[0], windows[-1], whisper.last_window_s) == (1000, 3000, 30.0)


@pytest.mark.timeout(600)
async def test_long_speech_is_decoded_in_full_thirty_second_windows(
    whisper: WhisperSTT, say_piper: SpeechMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    phrases = COMMANDS[:12]
    clip = read_wav(say_piper(*phrases, pause_s=0.6))
    assert clip.duration_s > 25
    windows = _record_encoder_windows(whisper, monkeypatch)
    transcript = await whisper.transcribe(clip)
    assert windows
    assert set(windows) == {3000}
    errors, words = word_errors(" ".join(phrases), transcript.text)
    assert errors / words < 0.15, transcript.text


async def test_silence_and_noise_give_an_empty_transcript(whisper: WhisperSTT) -> None:
    import numpy as np

    noise = (np.random.default_rng(7).normal(0, 0.05, 32_000) * 32_767).astype(np.int16)
    for pcm in (silence(1.0), silence(4.0), noise.tobytes()):
        assert (await whisper.transcribe(AudioClip(pcm=pcm))).text == ""


async def test_vad_tells_speech_from_silence(say_piper: SpeechMaker) -> None:
    vad = SileroVAD()
    await vad.load()
    clip = read_wav(say_piper("Please tell me a story about dragons.", lead_s=0.0))
    pcm = clip.pcm
    speech = [
        await vad.speech_probability(pcm[i : i + 2560]) for i in range(0, len(pcm) - 2560, 2560)
    ]
    vad.reset()
    quiet = [await vad.speech_probability(silence(0.08)) for _ in range(20)]
    assert max(quiet) < 0.2
    assert sum(p > 0.5 for p in speech) >= len(speech) // 2


def test_bad_inputs_are_clear_errors(tmp_path: object) -> None:
    with pytest.raises(VoiceModelError, match=r"ships tiny\.en"):
        whisper_model_path("large-v3")
    with pytest.raises(
        AudioFormatError, match="The audio file is not a WAV file; ARIA reads only WAV files"
    ):
        decode_wav(b"RIFF....not a wav at all")
    with pytest.raises(VoiceModelError):
        asyncio.run(WhisperSTT("/nonexistent/model").load())


def test_empty_wav_is_refused(tmp_path: object) -> None:
    import io

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
    with pytest.raises(AudioFormatError, match="no audio"):
        decode_wav(buffer.getvalue())


def test_a_wake_phrase_is_written_as_whisper_writes_it() -> None:
    assert decoding_prefix("hey jarvis") == "Hey Jarvis,"
    assert decoding_prefix("hey_mycroft") == "Hey Mycroft,"
    assert decoding_prefix("alexa") == "Alexa,"
    assert decoding_prefix("") == ""


async def test_audio_known_to_start_with_the_wake_phrase_is_decoded_from_it(
    whisper: WhisperSTT, say_piper: SpeechMaker
) -> None:
    clip = read_wav(say_piper("Hey Jarvis, set a timer for ten minutes.", steady=True))
    transcript = await whisper.transcribe(clip, starts_with="hey jarvis")
    assert transcript.text.startswith("Hey Jarvis,"), transcript.text
    rest = transcript.text.removeprefix("Hey Jarvis,")
    assert word_errors("Set a timer for ten minutes.", rest)[0] == 0, transcript.text


def test_a_segment_that_starts_after_the_audio_ended_is_not_part_of_the_transcript() -> None:
    from types import SimpleNamespace

    from aria_desktop.adapters.voice.whisper import _text

    def segment(start: float, text: str) -> SimpleNamespace:
        return SimpleNamespace(start=start, text=text, no_speech_prob=0.1)

    said = [segment(0.0, " Take a screenshot of this window."), segment(27.3, " Until next time.")]
    assert _text(said, 27.32) == "Take a screenshot of this window."
    assert _text(said, 40.0) == "Take a screenshot of this window. Until next time."
