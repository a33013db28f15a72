"""Spoken test commands made at run time: espeak-ng voices and Piper, clean and in noise.

The accuracy benchmark (``bench/voice_accuracy.py``) and the wake word look-alike check need
speech in voices ARIA's own tests never use, so nothing is tuned to one voice. espeak-ng
(Debian ``espeak-ng``) gives several accents and speeds; Piper's packaged joe voice gives a
natural one, also fast. Noise is pink (1/f, like a room or a fan) mixed at a chosen SNR
against the speech, seeded so a run is repeatable.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aria_desktop.domain.audio import PIPELINE_RATE_HZ, decode_wav
from aria_desktop.domain.errors import AriaError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "COMMANDS",
    "VOICES",
    "Voice",
    "add_pink_noise",
    "speak",
    "synthesize",
]

COMMANDS: tuple[str, ...] = (
    "Call Priya Raman tomorrow at seven thirty p.m.",
    "Set an alarm for six forty five a.m.",
    "Remind me to email Anneliese on March third.",
    "What's the weather in Reykjavik this weekend?",
    "Open Thunderbird and show my unread messages.",
    "Set a timer for twenty five minutes.",
    "Schedule a meeting with Zoltan on the twenty first of June at two p.m.",
    "Turn the volume down to thirty percent.",
    "Text Dmitri that I am on my way.",
    "Open Inkscape and create a new drawing.",
    "How long does it take to drive to Eindhoven?",
    "Add milk, eggs and three apples to my shopping list.",
    "What is fifteen times twelve?",
    "Move my dentist appointment to Friday at nine fifteen.",
    "Play some jazz on Spotify.",
    "Call Nakamura at four o'clock.",
    "Remind me on December twelfth to renew my passport.",
    "Lock the screen in five minutes.",
    "Read my last email from Margarethe.",
    "Turn off the lights in the living room at eleven thirty p.m.",
)
"""What the voices say: names of people, places and apps, numbers, times and dates."""

USER_NAMES: tuple[str, ...] = (
    "Priya Raman",
    "Anneliese",
    "Zoltan",
    "Dmitri",
    "Nakamura",
    "Margarethe",
    "Reykjavik",
    "Eindhoven",
    "Inkscape",
    "Thunderbird",
    "Spotify",
)
"""The names a user of these commands would have in memory (the vocabulary column)."""


@dataclass(frozen=True)
class Voice:
    """One way of speaking a command.

    Attributes:
        label: the row name in the benchmark.
        engine: "espeak" or "piper".
        name: espeak-ng voice ("en-us+f3"); unused for Piper.
        speed: espeak-ng words per minute, or Piper's length scale (< 1 faster).
        snr_db: pink noise mixed in at this SNR; None for clean speech.
    """

    label: str
    engine: str
    name: str = ""
    speed: float = 1.0
    snr_db: float | None = None


VOICES: tuple[Voice, ...] = (
    Voice("espeak en-us 160 wpm", "espeak", "en-us", 160),
    Voice("espeak en-us+f3 135 wpm", "espeak", "en-us+f3", 135),
    Voice("espeak en-gb-scotland 175 wpm", "espeak", "en-gb-scotland", 175),
    Voice("espeak en-029+m3 190 wpm", "espeak", "en-029+m3", 190),
    Voice("piper joe", "piper", speed=1.0),
    Voice("piper joe fast (0.75)", "piper", speed=0.75),
    Voice("espeak en-us 160 + pink 10 dB", "espeak", "en-us", 160, snr_db=10.0),
    Voice("piper joe + pink 10 dB", "piper", speed=1.0, snr_db=10.0),
)
"""The benchmark's voices: four espeak-ng accents/speeds, Piper at two speeds, two in noise."""

_LEAD_S = 0.25
_TAIL_S = 0.4


def _espeak(text: str, voice: Voice) -> bytes:
    """16 kHz mono PCM from espeak-ng (22,050 Hz WAV on stdout, resampled)."""
    from aria_desktop.adapters.voice.audio import resample_pcm

    if shutil.which("espeak-ng") is None:
        raise AriaError(
            "espeak-ng is not installed; the voice benchmark speaks its commands with it.",
            hint="sudo apt-get install espeak-ng",
        )
    done = subprocess.run(
        ["espeak-ng", "-v", voice.name, "-s", str(int(voice.speed)), "--stdout", text],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        raise AriaError(
            f"espeak-ng could not speak with voice {voice.name!r}: "
            f"{done.stderr.decode(errors='replace').strip()}.",
            hint="List the voices with: espeak-ng --voices=en",
        )
    clip = decode_wav(done.stdout, name="espeak-ng's output")
    return resample_pcm(clip.pcm, clip.sample_rate_hz, PIPELINE_RATE_HZ, clip.channels)


async def _piper(text: str, voice: Voice, engines: dict[float, Any]) -> bytes:
    from aria_desktop.adapters.voice.audio import resample_pcm
    from aria_desktop.adapters.voice.piper_tts import PiperTTS

    tts = engines.setdefault(voice.speed, PiperTTS(length_scale=voice.speed))
    pieces = [piece async for piece in tts.synthesize(text)]
    return b"".join(resample_pcm(p.pcm, p.sample_rate_hz, PIPELINE_RATE_HZ) for p in pieces)


def pink_noise(samples: int, seed: int) -> npt.NDArray[np.float32]:
    """Pink (1/f power) noise with unit RMS: white noise shaped in the frequency domain."""
    import numpy as np

    rng = np.random.default_rng(seed)
    spectrum = np.fft.rfft(rng.standard_normal(samples))
    freqs = np.arange(len(spectrum), dtype=np.float64)
    freqs[0] = 1.0
    noise = np.fft.irfft(spectrum / np.sqrt(freqs), n=samples)
    return (noise / max(1e-12, float(np.sqrt(np.mean(noise**2))))).astype(np.float32)


def add_pink_noise(pcm: bytes, snr_db: float, *, seed: int) -> bytes:
    """``pcm`` with pink noise at ``snr_db`` below the speech's RMS (silence excluded)."""
    import numpy as np

    from aria_desktop.adapters.voice.audio import float32_to_pcm, pcm_to_float32

    audio = pcm_to_float32(pcm)
    loud = audio[np.abs(audio) > 0.01]
    speech_rms = float(np.sqrt(np.mean(loud**2))) if len(loud) else 0.1
    noise = pink_noise(len(audio), seed) * speech_rms / (10 ** (snr_db / 20))
    return float32_to_pcm(np.clip(audio + noise, -1.0, 1.0))


async def speak(text: str, voice: Voice, *, piper: dict[float, Any]) -> bytes:
    """``text`` spoken by ``voice`` (16 kHz mono PCM, no silence added, no noise)."""
    if voice.engine == "piper":
        return await _piper(text, voice, piper)
    return await asyncio.to_thread(_espeak, text, voice)


async def synthesize(
    texts: Sequence[str], voice: Voice, *, piper: dict[float, Any], seed: int = 0
) -> list[bytes]:
    """Each text spoken by ``voice`` (16 kHz mono PCM with a little silence around it).

    Args:
        texts: what to say.
        voice: how.
        piper: loaded Piper engines by length scale, shared between calls.
        seed: noise seed of the first clip (the n-th uses ``seed + n``).
    """
    clips = []
    for index, text in enumerate(texts):
        pcm = _silence(_LEAD_S) + await speak(text, voice, piper=piper) + _silence(_TAIL_S)
        if voice.snr_db is not None:
            pcm = add_pink_noise(pcm, voice.snr_db, seed=seed + index)
        clips.append(pcm)
    return clips


def _silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * PIPELINE_RATE_HZ) * 2)
