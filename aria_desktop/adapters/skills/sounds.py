"""The sounds ARIA ships (``resources/skills/sounds/``): the chime a timer or an alarm rings."""

from __future__ import annotations

from pathlib import Path

from aria_desktop.domain.audio import SpeechAudio, decode_wav

__all__ = ["load_chime"]


def load_chime(path: Path) -> SpeechAudio:
    """The ring sound as mono 16-bit PCM (``AudioFormatError`` when the file is not a WAV)."""
    clip = decode_wav(path.read_bytes(), name=str(path))
    return SpeechAudio(pcm=clip.pcm, sample_rate_hz=clip.sample_rate_hz, text="(chime)")
