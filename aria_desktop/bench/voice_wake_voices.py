"""The wake word per voice family, on voices kept out of tuning (``aria bench voice --accuracy``).

A seeded sample of the *check* half of ``wake_corpus.py`` (espeak-ng accents x variants, each at
its own speed and pitch; Piper with its speed and noise scales varied) says "Hey Jarvis,
<command>" clean and in 5-20 dB pink noise, and look-alikes of three kinds. Each clip runs
through the detector as the pipeline feeds it, two ways: the detector alone at ARIA's
threshold, and ARIA (threshold and the wake phrase check). The gap between the two is what the
check costs; the detector's own misses are the model's.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aria_desktop.bench.voice_wake import detections
from aria_desktop.bench.wake_corpus import (
    WakeVoice,
    command_for,
    look_alikes,
    noise_for,
    wake_clip,
    wake_voices,
)

__all__ = ["FamilyFigures", "measure_wake_voices", "run_wake_voices"]

_SAMPLE = {"espeak": 40, "piper": 20}
"""Check-half voices per family in one run (seeded: the same voices every run)."""
_LOOKS_PER_VOICE = 3


@dataclass
class FamilyFigures:
    """Wakes and false wakes of one voice family, per set-up ("detector", "ARIA")."""

    clean: Counter[str] = field(default_factory=Counter)
    noisy: Counter[str] = field(default_factory=Counter)
    false: Counter[str] = field(default_factory=Counter)
    false_by_kind: Counter[tuple[str, str]] = field(default_factory=Counter)
    clean_n: int = 0
    noisy_n: int = 0
    looks_n: int = 0


def sample_voices(family: str, count: int, *, half: str = "check") -> list[WakeVoice]:
    """``count`` voices of ``family`` from ``half``, the same ones every run."""
    voices = [voice for voice in wake_voices(half=half) if voice.family == family]
    random.Random(f"{family} {half}").shuffle(voices)
    return voices[:count]


async def measure_wake_voices(
    setups: dict[str, Any], *, sample: dict[str, int] = _SAMPLE, half: str = "check"
) -> dict[str, FamilyFigures]:
    """Figures per family for each detector in ``setups`` (label -> loaded detector)."""
    figures: dict[str, FamilyFigures] = {}
    kinds = look_alikes()
    for family, count in sample.items():
        tally = figures.setdefault(family, FamilyFigures())
        for number, voice in enumerate(sample_voices(family, count, half=half)):
            clean = wake_clip(f"Hey Jarvis, {command_for(voice)}.", voice)
            noisy = wake_clip(
                f"Hey Jarvis, {command_for(voice, 1)}.",
                voice,
                snr_db=noise_for(voice),
                seed=number,
            )
            looks = random.Random(voice.key).sample(kinds, _LOOKS_PER_VOICE)
            look_clips = [(kind, wake_clip(phrase, voice)) for kind, phrase in looks]
            tally.clean_n += 1
            tally.noisy_n += 1
            tally.looks_n += len(look_clips)
            for label, detector in setups.items():
                tally.clean[label] += bool(await detections(detector, clean))
                tally.noisy[label] += bool(await detections(detector, noisy))
                for kind, pcm in look_clips:
                    if await detections(detector, pcm):
                        tally.false[label] += 1
                        tally.false_by_kind[label, kind] += 1
    return figures


async def run_wake_voices() -> None:
    """Print wake detection and false wakes per voice family (check half)."""
    from aria_desktop.adapters.voice.wake_check import WakePhraseCheck
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    stt = WhisperSTT("tiny.en")
    check = WakePhraseCheck(stt, ("hey jarvis",))
    setups = {
        "detector": OpenWakeWordDetector(("hey_jarvis",)),
        "ARIA": OpenWakeWordDetector(("hey_jarvis",), confirm=check),
    }
    for detector in setups.values():
        await detector.load()
    started = time.perf_counter()
    figures = await measure_wake_voices(setups)
    seconds = time.perf_counter() - started
    print(
        "  wake word per voice family (check half of the generated voices: "
        + ", ".join(f"{count} {family}" for family, count in _SAMPLE.items())
        + "; 'Hey Jarvis, <command>' clean and in 5-20 dB pink noise, "
        + f"{_LOOKS_PER_VOICE} look-alikes per voice)"
    )
    for family, tally in figures.items():
        for label in setups:
            kinds = ", ".join(
                f"{kind} {n}"
                for (who, kind), n in sorted(tally.false_by_kind.items())
                if who == label
            )
            print(
                f"  {family:7} {label:9} woke clean {tally.clean[label]:2}/{tally.clean_n}"
                f"  in noise {tally.noisy[label]:2}/{tally.noisy_n}"
                f"  false wakes {tally.false[label]:2}/{tally.looks_n}"
                + (f" ({kinds})" if kinds else "")
            )
    clips = sum(t.clean_n + t.noisy_n + t.looks_n for t in figures.values()) * len(setups)
    print(f"  ({seconds / max(1, clips) * 1000:.0f} ms per clip and set-up)")
    await stt.aclose()
