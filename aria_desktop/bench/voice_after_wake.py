"""Commands said right after the wake word, as the pipeline hears them (``--accuracy``).

How users talk to ARIA: "Hey Jarvis, set a timer for twenty five minutes." in one breath. The
accuracy table scores commands said alone; here each benchmark voice says the wake phrase and
the command together, 80 ms frames go through the real wake word detector (a continuous
stream: silence before each clip), and from its detection the command is cut the way
``VoicePipeline`` cuts it — the pre-roll ring (``PreRoll``, ``VoiceConfig``'s lengths), then
the rest — and transcribed by ``WhisperSTT`` (tiny.en, the default) with the wake phrase as
the start it is told (``starts_with``), then stripped of it (``strip_wake_phrase``). Beside
it, the same clips cut as before the change: 0.5 s of pre-roll, no start told — its tail was
heard as words ("service, set a timer …"; ARCHITECTURE.md, "Voice accuracy").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aria_desktop.bench.voice_corpus import VOICES, synthesize
from aria_desktop.core.voice.endpointing import PreRoll
from aria_desktop.core.voice.parts import VoiceConfig
from aria_desktop.core.voice.speech_text import strip_wake_phrase
from aria_desktop.core.voice.wer import word_errors
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ, AudioClip

__all__ = ["run_after_wake_accuracy"]

_PHRASE = "hey jarvis"
_STREAM_BEFORE_S = 2.0
"""Silence the detector hears before each clip: a live stream, not a fresh model."""
_TAIL_ONLY_S = 0.5
"""The pre-roll before the whole wake phrase was kept (its tail only)."""
_FRAME_S = FRAME_SAMPLES / PIPELINE_RATE_HZ
_FRAME_BYTES = FRAME_SAMPLES * 2


def _said_after_wake(command: str) -> str:
    return f"Hey Jarvis, {command[:1].lower()}{command[1:]}"


async def _command_audio(detector: Any, pcm: bytes) -> tuple[bytes, bytes] | None:
    """(audio with the whole wake phrase, audio with its 0.5 s tail), or None if not woken."""
    config = VoiceConfig()
    preroll = PreRoll(preroll_s=config.longest_preroll_s, frame_s=_FRAME_S)
    audio = b"\0" * int(_STREAM_BEFORE_S * PIPELINE_RATE_HZ) * 2 + pcm
    step = _FRAME_BYTES
    frames = [audio[i : i + step] for i in range(0, len(audio) - step + 1, step)]
    for index, frame in enumerate(frames):
        detected = await detector.process(frame)
        preroll.append(frame)
        if detected is not None:
            kept = preroll.take()
            rest = b"".join(frames[index + 1 :])
            whole = b"".join(kept[-round(config.wake_preroll_s / _FRAME_S) :]) + rest
            tail = b"".join(kept[-round(_TAIL_ONLY_S / _FRAME_S) :]) + rest
            return whole, tail
    return None


async def run_after_wake_accuracy(references: Sequence[str], piper: dict[float, Any]) -> None:
    """Measure and print WER of commands said after the wake word, now and as before."""
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    stt = WhisperSTT("tiny.en")
    detector = OpenWakeWordDetector(("hey_jarvis",))
    await detector.load()
    said = [_said_after_wake(command) for command in references]
    print(
        f"  commands said after the wake word ('{_said_after_wake('...')}', one breath),"
        " tiny.en, through the detector:"
    )
    print(f"  {'WER per voice':32} {'ARIA':>8} {'tail only (before)':>20} {'not woken':>10}")
    totals = {"ARIA": [0, 0], "tail": [0, 0]}
    for voice in VOICES:
        counts = {"ARIA": [0, 0], "tail": [0, 0]}
        missed = 0
        clips = await synthesize(said, voice, piper=piper, seed=11)
        for reference, pcm in zip(references, clips, strict=True):
            cut = await _command_audio(detector, pcm)
            if cut is None:
                missed += 1
                continue
            for key, audio, start in (("ARIA", cut[0], _PHRASE), ("tail", cut[1], "")):
                heard = await stt.transcribe(AudioClip(pcm=audio), starts_with=start)
                errors, words = word_errors(reference, strip_wake_phrase(heard.text, (_PHRASE,)))
                counts[key][0] += errors
                counts[key][1] += words
                if "pink" not in voice.label:
                    totals[key][0] += errors
                    totals[key][1] += words
        aria, tail = (counts[k][0] / max(1, counts[k][1]) for k in ("ARIA", "tail"))
        print(f"  {voice.label:32} {aria:8.3f} {tail:20.3f} {missed:7}/{len(references)}")
    aria, tail = (totals[k][0] / max(1, totals[k][1]) for k in ("ARIA", "tail"))
    print(f"  {'all clean voices':32} {aria:8.3f} {tail:20.3f}")
    await stt.aclose()
