"""A broad set of generated voices for the wake word, split into a tuning and a checking half.

Every English espeak-ng voice (accent) the machine has, with every voice variant it has, each at
its own speed and pitch; and Piper's packaged voice with its speed and its two noise scales
varied. A voice belongs to one half for good (by a hash of its name), so the thresholds chosen
on the *tune* half are judged on voices they never saw (the developers' guide: never tune to
the data you judge on). What is said: "Hey Jarvis, <command>" and look-alikes of three kinds —
"Hey" and another name, the name alone or inside a sentence, other assistants' wake words.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from aria_desktop.bench.voice_corpus import add_pink_noise
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, decode_wav
from aria_desktop.domain.errors import AriaError

__all__ = [
    "LOOK_ALIKE_KINDS",
    "WAKE_COMMANDS",
    "WakeVoice",
    "espeak_accents",
    "espeak_variants",
    "look_alikes",
    "say",
    "wake_clip",
    "wake_voices",
]

WAKE_COMMANDS: tuple[str, ...] = (
    "set a timer for ten minutes",
    "what time is it",
    "add milk to my shopping list",
    "turn up the volume",
    "remind me to call mum at six",
    "play some music",
    "what's the weather like",
    "open the calculator",
    "stop the alarm",
    "pause",
    "how long is left on my timer",
    "wake me up at seven tomorrow",
)
"""What follows "Hey Jarvis, " (the everyday skills' commands)."""

LOOK_ALIKE_KINDS: dict[str, tuple[str, ...]] = {
    "other name": (
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
        "Hey Jasper",
        "Hey Jessie",
        "Hey Marcus",
        "Hey Barney",
        "Hey Parvis",
        "Hey Jealous",
        "Hey service",
        "Hey, harvest is here",
    ),
    "name in a sentence": (
        "Jarvis",
        "I watched Jarvis in the film",
        "Jarvis is a name from a film",
        "My neighbour Jarvis has a dog",
    ),
    "other assistant": (
        "Hey Siri",
        "Alexa",
        "OK Google",
        "Hey Google",
        "Hey Mycroft",
        "Hey Cortana",
    ),
}
"""What must never wake ARIA, by kind."""

_SPEEDS_WPM = (130, 145, 160, 175, 190)
_PITCHES = (30, 40, 50, 60, 70)
_PIPER_VOICES = 80
_NOISE_SNR_DB = (5.0, 10.0, 15.0, 20.0)


@dataclass(frozen=True, kw_only=True)
class WakeVoice:
    """One generated speaker.

    Attributes:
        family: "espeak" or "piper".
        key: its name, which decides its half.
        accent: espeak-ng voice ("en-gb-scotland"); empty for Piper.
        variant: espeak-ng variant ("f3", "klatt"); empty for Piper.
        wpm: espeak-ng words per minute.
        pitch: espeak-ng pitch (0-99).
        length_scale: Piper's length scale (< 1 faster).
        noise_scale: Piper's noise scale (variation of the voice).
        noise_w: Piper's noise width (variation of the timing).
    """

    family: str
    key: str
    accent: str = ""
    variant: str = ""
    wpm: int = 160
    pitch: int = 50
    length_scale: float = 1.0
    noise_scale: float = 0.667
    noise_w: float = 0.8

    @property
    def half(self) -> str:
        """Its half, "tune" or "check", for good (a hash of the name, not a draw)."""
        return "tune" if hashlib.sha1(self.key.encode()).digest()[0] % 2 == 0 else "check"


def _espeak_list(kind: str) -> list[str]:
    if shutil.which("espeak-ng") is None:
        raise AriaError(
            "espeak-ng is not installed; the wake word benchmark speaks with it.",
            hint="sudo apt-get install espeak-ng",
        )
    done = subprocess.run(
        ["espeak-ng", f"--voices={kind}"], capture_output=True, text=True, check=False, timeout=30
    )
    return done.stdout.splitlines()[1:]


@cache
def espeak_accents() -> tuple[str, ...]:
    """The English espeak-ng voices of this machine (mbrola ones need mbrola: left out)."""
    found = []
    for line in _espeak_list("en"):
        fields = line.split()
        if len(fields) >= 5 and fields[4].startswith("gmw/"):
            found.append(fields[1])
    return tuple(dict.fromkeys(found))


@cache
def espeak_variants() -> tuple[str, ...]:
    """The espeak-ng voice variants of this machine ("m3", "f2", "klatt", "Andy", ...)."""
    found = [line.split()[4].split("/")[-1] for line in _espeak_list("variant") if line.split()]
    return tuple(dict.fromkeys(found))


def wake_voices(*, half: str = "") -> list[WakeVoice]:
    """Every voice (of ``half`` when given), in a stable order; speeds and pitches seeded."""
    voices = []
    for accent in espeak_accents():
        for variant in espeak_variants():
            key = f"espeak {accent}+{variant}"
            rng = random.Random(key)
            voices.append(
                WakeVoice(
                    family="espeak",
                    key=key,
                    accent=accent,
                    variant=variant,
                    wpm=rng.choice(_SPEEDS_WPM),
                    pitch=rng.choice(_PITCHES),
                )
            )
    for number in range(_PIPER_VOICES):
        key = f"piper joe #{number}"
        rng = random.Random(key)
        voices.append(
            WakeVoice(
                family="piper",
                key=key,
                length_scale=round(rng.uniform(0.75, 1.3), 2),
                noise_scale=round(rng.uniform(0.3, 1.0), 2),
                noise_w=round(rng.uniform(0.3, 1.2), 2),
            )
        )
    return [voice for voice in voices if not half or voice.half == half]


def look_alikes() -> list[tuple[str, str]]:
    """(kind, phrase) of every look-alike."""
    return [(kind, phrase) for kind, phrases in LOOK_ALIKE_KINDS.items() for phrase in phrases]


def _espeak(text: str, voice: WakeVoice) -> bytes:
    from aria_desktop.adapters.voice.audio import resample_pcm

    speaker = f"{voice.accent}+{voice.variant}"
    how = ("-s", str(voice.wpm), "-p", str(voice.pitch))
    done = subprocess.run(
        ["espeak-ng", "-v", speaker, *how, "--stdout", text],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        raise AriaError(f"espeak-ng could not speak as {voice.key}.")
    clip = decode_wav(done.stdout, name="espeak-ng's output")
    return resample_pcm(clip.pcm, clip.sample_rate_hz, PIPELINE_RATE_HZ, clip.channels)


@cache
def _piper_voice() -> Any:
    from aria_desktop.adapters.voice.piper_tts import PiperTTS

    return PiperTTS()._load()


def _piper(text: str, voice: WakeVoice) -> bytes:
    from piper import SynthesisConfig

    from aria_desktop.adapters.voice.audio import resample_pcm

    piper = _piper_voice()
    config = SynthesisConfig(
        length_scale=voice.length_scale, noise_scale=voice.noise_scale, noise_w_scale=voice.noise_w
    )
    pcm = b"".join(chunk.audio_int16_bytes for chunk in piper.synthesize(text, syn_config=config))
    return resample_pcm(pcm, piper.config.sample_rate, PIPELINE_RATE_HZ, 1)


def say(text: str, voice: WakeVoice) -> bytes:
    """``text`` in ``voice`` (16 kHz mono PCM, no silence added)."""
    return _piper(text, voice) if voice.family == "piper" else _espeak(text, voice)


def wake_clip(text: str, voice: WakeVoice, *, snr_db: float | None = None, seed: int = 0) -> bytes:
    """``text`` in ``voice`` with a second of silence before and after, noise when asked."""
    silence = b"\0" * (PIPELINE_RATE_HZ * 2)
    pcm = silence + say(text, voice) + silence
    return pcm if snr_db is None else add_pink_noise(pcm, snr_db, seed=seed)


def noise_for(voice: WakeVoice) -> float:
    """The noise level this voice is also heard in (5-20 dB, seeded by the voice)."""
    return random.Random(voice.key + " noise").choice(_NOISE_SNR_DB)


def command_for(voice: WakeVoice, index: int = 0) -> str:
    """A command this voice says after the wake word (seeded by the voice)."""
    commands: Sequence[str] = WAKE_COMMANDS
    return random.Random(f"{voice.key} {index}").choice(commands)
