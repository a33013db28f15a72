"""The wake word's false accepts and misses (part of ``aria bench voice --accuracy``).

Look-alikes — "Hey" and another two-syllable name, the name alone, similar phrases — are
said in three voices and must never wake ARIA; "Hey Jarvis" in 10 dB pink noise (Piper, five
speeds, two noise draws) must wake it at least 9 times in 10 (espeak-ng's robotic "Jarvis" is
reported beside it). Each clip runs through the detector
exactly as the pipeline feeds it (80 ms frames, silence around the phrase), three ways: the
bare model at openWakeWord's usual 0.5, at ARIA's measured threshold, and with the wake
phrase check on a quick tiny.en transcription (what ARIA does).
"""

from __future__ import annotations

import time
from typing import Any

from aria_desktop.bench.voice_corpus import Voice, synthesize

__all__ = [
    "LOOK_ALIKES",
    "LOOK_ALIKE_VOICES",
    "NEAR_HOMOPHONES",
    "PIPER_IN_NOISE",
    "detections",
    "run_wake_accuracy",
]

LOOK_ALIKES: tuple[str, ...] = (
    "Hey Travis",
    "Hey Marvin",
    "Hey Harvey",
    "Hey Janice",
    "Hey Darwin",
    "Hey Charlie",
    "Hey Carlos",
    "Hey Mavis",
    "Hey Davis",
    "Hey Garvey",
    "Hey Jealous",
    "Jarvis",
    "Hey service",
    "Hey, harvest is here",
)
"""Must never wake ARIA."""
NEAR_HOMOPHONES: tuple[str, ...] = ("Hey Jervis", "Hey Jarvi")
"""Said almost exactly like the wake phrase: reported, not counted as look-alikes."""
LOOK_ALIKE_VOICES = (
    Voice("espeak en-us", "espeak", "en-us", 160),
    Voice("espeak en-gb+f3", "espeak", "en-gb+f3", 150),
    Voice("piper joe", "piper", speed=1.0),
)
PIPER_IN_NOISE = tuple(
    Voice(f"piper {scale}", "piper", speed=scale, snr_db=10.0)
    for scale in (0.8, 0.9, 1.0, 1.1, 1.2)
    for _seed in (0, 1)
)
"""'Hey Jarvis' as a person says it (Piper), five speeds, two noise draws each: the target."""
_ESPEAK_IN_NOISE = tuple(
    Voice(f"espeak {name}", "espeak", name, wpm, snr_db=10.0)
    for name, wpm in (("en-us", 150), ("en-gb", 170), ("en-us+f3", 140), ("en-029", 160))
)
"""espeak-ng's 'Jarvis' is far from a person's: reported beside the target, not in it."""


async def detections(detector: Any, pcm: bytes) -> int:
    """How often ``detector`` fires on ``pcm`` with a second of silence before and after."""
    from aria_desktop.adapters.voice.audio import FRAME_BYTES

    detector.reset()
    silence = b"\0" * 32_000
    audio = silence + pcm + silence
    fired = 0
    for index in range(0, len(audio) - FRAME_BYTES + 1, FRAME_BYTES):
        if await detector.process(audio[index : index + FRAME_BYTES]) is not None:
            fired += 1
            detector.reset()
    return fired


async def run_wake_accuracy(piper: dict[float, Any]) -> None:
    """Measure and print false accepts and misses of the three wake word set-ups."""
    from aria_desktop.adapters.voice.wake_check import WakePhraseCheck
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    stt = WhisperSTT("tiny.en")
    check = WakePhraseCheck(stt, ("hey jarvis",))
    setups = {
        "model at 0.5": OpenWakeWordDetector(("hey_jarvis",), threshold=0.5),
        "measured threshold": OpenWakeWordDetector(("hey_jarvis",)),
        "threshold + phrase check (ARIA)": OpenWakeWordDetector(("hey_jarvis",), confirm=check),
    }
    for detector in setups.values():
        await detector.load()
    look_alikes = {
        v.label: await synthesize(LOOK_ALIKES, v, piper=piper) for v in LOOK_ALIKE_VOICES
    }
    near = {v.label: await synthesize(NEAR_HOMOPHONES, v, piper=piper) for v in LOOK_ALIKE_VOICES}
    wake = [
        (await synthesize(["Hey Jarvis."], v, piper=piper, seed=40 + i))[0]
        for i, v in enumerate(PIPER_IN_NOISE)
    ]
    robotic = [
        (await synthesize(["Hey Jarvis."], v, piper=piper, seed=60 + i))[0]
        for i, v in enumerate(_ESPEAK_IN_NOISE)
    ]
    print(
        f"  wake word: {len(LOOK_ALIKES)} look-alikes x {len(look_alikes)} voices, "
        f"'Hey Jarvis' in 10 dB pink noise: Piper x {len(wake)}, espeak-ng x {len(robotic)}"
    )
    for label, detector in setups.items():
        false_accepts = [
            f"{phrase} ({voice})"
            for voice, pcms in look_alikes.items()
            for phrase, pcm in zip(LOOK_ALIKES, pcms, strict=True)
            if await detections(detector, pcm)
        ]
        near_hits = [bool(await detections(detector, p)) for ps in near.values() for p in ps]
        started = time.perf_counter()
        hits = [bool(await detections(detector, pcm)) for pcm in wake]
        per_clip_ms = (time.perf_counter() - started) * 1000 / len(wake)
        espeak_hits = [bool(await detections(detector, pcm)) for pcm in robotic]
        print(
            f"  {label:34} false wakes {len(false_accepts):2}/{len(LOOK_ALIKES) * len(look_alikes)}"
            f"   woke on 'Hey Jarvis' in noise {sum(hits):2}/{len(wake)}"
            f" (espeak-ng {sum(espeak_hits)}/{len(robotic)})"
            f"   (near-homophones {sum(near_hits)}/{len(NEAR_HOMOPHONES) * len(near)};"
            f" {per_clip_ms:.0f} ms per 3 s clip)"
        )
        if false_accepts:
            print(f"      woke on: {', '.join(false_accepts)}")
    print(f"  the phrase check's last transcript: {check.last_text!r}")
    await stt.aclose()
