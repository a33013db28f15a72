"""Makes ``resources/skills/sounds/chime.wav``: the ring of a timer or an alarm.

Two soft bell strikes (A5 then E5, a falling fourth: "ding-dong"), each a few harmonics with
an exponential decay and a 6 ms attack so it neither clicks nor shrills; mono 16-bit at
22,050 Hz (Piper's rate, so the speaker plays it unresampled), 1.3 s, about 57 KB. Run once
(`.venv/bin/python packaging/make_chime.py`); the WAV is committed. Deterministic: no noise.
"""

from __future__ import annotations

import sys
import wave
from pathlib import Path

import numpy as np

RATE_HZ = 22_050
LENGTH_S = 1.3
STRIKES = ((0.0, 880.0), (0.42, 659.25))
"""(start s, fundamental Hz) of each strike."""
PARTIALS = ((1.0, 1.0), (2.0, 0.32), (3.0, 0.12), (4.2, 0.05))
"""(frequency ratio, level) of a strike's harmonics (the last slightly bell-like, inharmonic)."""
DECAY_S = 0.32
ATTACK_S = 0.006
PEAK = 0.5
"""Of full scale: loud enough to hear across a kitchen, well short of clipping."""


def chime() -> np.ndarray:
    """The chime as int16 samples."""
    t = np.arange(int(RATE_HZ * LENGTH_S)) / RATE_HZ
    out = np.zeros_like(t)
    for start, f0 in STRIKES:
        local = t - start
        on = local >= 0
        envelope = np.where(on, np.exp(-np.clip(local, 0, None) / DECAY_S), 0.0)
        envelope *= np.clip(local / ATTACK_S, 0.0, 1.0)
        for ratio, level in PARTIALS:
            out += level * envelope * np.sin(2 * np.pi * f0 * ratio * local)
    fade = np.clip((LENGTH_S - t) / 0.08, 0.0, 1.0)  # the tail ends at silence, no click
    out *= fade
    out *= PEAK / np.max(np.abs(out))
    return (out * 32767).astype("<i2")


def main(target: Path) -> None:
    samples = chime()
    with wave.open(str(target), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE_HZ)
        wav.writeframes(samples.tobytes())
    print(f"{target}: {target.stat().st_size} bytes, {len(samples) / RATE_HZ:.2f} s")


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[1] / "resources" / "skills" / "sounds" / "chime.wav"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
