"""The wake word's generated voices: halves kept apart for good, and the per-family figures."""

from __future__ import annotations

import shutil

import pytest

from aria_desktop.bench.voice_wake_voices import measure_wake_voices, sample_voices
from aria_desktop.bench.wake_corpus import (
    LOOK_ALIKE_KINDS,
    espeak_accents,
    espeak_variants,
    look_alikes,
    wake_clip,
    wake_voices,
)

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")


@needs_espeak
def test_every_voice_has_one_half_for_good_and_each_half_has_both_families() -> None:
    everyone = wake_voices()
    keys = [voice.key for voice in everyone]
    assert len(keys) == len(set(keys))
    tune = {voice.key for voice in wake_voices(half="tune")}
    check = {voice.key for voice in wake_voices(half="check")}
    assert tune.isdisjoint(check)
    assert tune | check == set(keys)
    assert wake_voices() == everyone  # speeds and pitches are seeded, not drawn per run
    for half in ("tune", "check"):
        families = {voice.family for voice in wake_voices(half=half)}
        assert families == {"espeak", "piper"}
    espeak = [voice for voice in everyone if voice.family == "espeak"]
    assert len(espeak) == len(espeak_accents()) * len(espeak_variants())
    assert {"en-us", "en-gb", "en-gb-scotland"} <= set(espeak_accents())
    assert {"f3", "m3", "klatt"} <= set(espeak_variants())


def test_look_alikes_cover_other_names_the_name_alone_and_other_assistants() -> None:
    kinds = {kind for kind, _ in look_alikes()}
    assert kinds == set(LOOK_ALIKE_KINDS) == {"other name", "name in a sentence", "other assistant"}
    assert ("name in a sentence", "Jarvis") in look_alikes()


@needs_espeak
async def test_the_detector_alone_hears_a_check_half_piper_voice_and_the_figures_add_up() -> None:
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector

    [voice] = sample_voices("piper", 1)
    assert voice.half == "check"
    assert len(wake_clip("Hey Jarvis.", voice)) > 2 * 32_000  # a second of silence each side
    detector = OpenWakeWordDetector(("hey_jarvis",))
    await detector.load()
    figures = await measure_wake_voices({"detector": detector}, sample={"piper": 1})
    piper = figures["piper"]
    assert (piper.clean_n, piper.noisy_n, piper.looks_n) == (1, 1, 3)
    assert piper.clean["detector"] == 1
    assert 0 <= piper.false["detector"] <= 3
    assert sum(piper.false_by_kind.values()) == piper.false["detector"]
