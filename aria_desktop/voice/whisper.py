"""Speech-to-text with faster-whisper, and Silero voice activity detection.

Silero VAD ships inside faster-whisper as ``assets/silero_vad_v6.onnx``.

The only module that imports faster_whisper (lazily: it pulls in CTranslate2 and
onnxruntime). Models are always loaded from local paths — a model *name* would make
faster-whisper try to download it. Inference runs in worker threads, one at a time per model.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aria_desktop.domain.audio import AudioClip, Transcript
from aria_desktop.domain.errors import SpeechRecognitionError, VoiceModelError
from aria_desktop.voice.audio import pcm_to_float32, to_pipeline_pcm
from aria_desktop.voice.vocabulary import hotwords_text, mentioned, supported_by
from aria_desktop.voice.whisper_models import (
    is_english_only,
    transcription_language,
    whisper_model_path,
)

__all__ = ["SileroVAD", "WhisperSTT", "whisper_model_path"]

_LOGGER = logging.getLogger(__name__)
_VAD_CHUNK = 512
_VAD_CONTEXT = 64
_INSTALL_HINT = "Reinstall the voice extra: pip install 'aria-desktop[voice]'."
_RATE_HZ = 16_000
_QUICK_BEAM = 1
"""The wake phrase check only needs the two words of a short segment: greedy is enough."""
_NO_SPEECH = 0.8
"""A segment Whisper itself finds this likely to be no speech is dropped: on silence it says
"You" with probability 0.95 of no speech yet a log-probability faster-whisper still keeps."""


def _threads_within_omp_limit(wanted: int) -> int:
    """``wanted`` threads, lowered to ``OMP_THREAD_LIMIT`` when that is set lower.

    CTranslate2 asked for more OpenMP threads than the process limit allows returns garbage
    transcripts ("!!!!"), so never ask for more than the limit.
    """
    raw = os.environ.get("OMP_THREAD_LIMIT", "")
    try:
        limit = int(raw)
    except ValueError:
        return wanted
    if 0 < limit < wanted:
        _LOGGER.warning("OMP_THREAD_LIMIT=%d: Whisper runs on %d thread(s)", limit, limit)
        return limit
    return wanted


class WhisperSTT:
    """faster-whisper on the CPU (int8), in a worker thread: beam search over the full window.

    Accuracy comes first (ARCHITECTURE.md, "Voice accuracy"): faster-whisper's own decoding
    with beam search, its temperature fallback on a low-confidence or looping result, and the
    full 30 s encoder window. A window cut to the speech took a third less time but changed
    transcripts on the accuracy set (``aria bench voice --accuracy``), so it is not used.
    Names the user uses (``set_vocabulary``) go to the decoder as ``hotwords``; a name that
    shows up only because it was suggested is caught by ``vocabulary.supported_by``.

    Args:
        model: "tiny.en" (packaged, English), "base" (packaged, multilingual) or a local
            CTranslate2 model directory (see ``whisper_models``).
        cpu_threads: inference threads (2 keeps the desktop responsive).
        language: default language ("" = English for ``.en`` models, else auto-detect).
        beam_size: beams searched (5, faster-whisper's default; 1 = greedy, faster).
        cache_dir: where "base" is joined from its two packages (``paths.model_cache_dir()``).
        vocabulary: names and words to bias recognition toward (``set_vocabulary``).
    """

    def __init__(
        self,
        model: str = "tiny.en",
        *,
        cpu_threads: int = 2,
        language: str = "",
        beam_size: int = 5,
        cache_dir: Path | None = None,
        vocabulary: Sequence[str] = (),
    ) -> None:
        self._model_spec = model
        self._cache_dir = cache_dir
        self._cpu_threads = cpu_threads
        self._language = language
        self._beam_size = beam_size
        self._vocabulary: tuple[str, ...] = tuple(vocabulary)
        self._model: Any = None
        self._load_lock = asyncio.Lock()
        self._run_lock = threading.Lock()

    @property
    def name(self) -> str:
        """Engine and model."""
        return f"faster-whisper {Path(self._model_spec).name or 'tiny.en'}"

    @property
    def english_only(self) -> bool:
        """Whether the model only knows English (``*.en``)."""
        return is_english_only(self._model_spec)

    async def load(self) -> None:
        """Load the model (once; seconds)."""
        async with self._load_lock:
            if self._model is None:
                self._model = await asyncio.to_thread(self._load)

    def _load(self) -> Any:
        transcription_language(self._model_spec, self._language)  # refuse de on tiny.en now
        path = whisper_model_path(self._model_spec, cache_dir=self._cache_dir)
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise VoiceModelError(
                f"faster-whisper is missing: {exc}.", hint=_INSTALL_HINT
            ) from None
        started = time.monotonic()
        threads = _threads_within_omp_limit(self._cpu_threads)
        try:
            model = WhisperModel(
                str(path),
                device="cpu",
                compute_type="int8",
                cpu_threads=threads,
                local_files_only=True,
            )
        except Exception as exc:
            raise VoiceModelError(
                f"Cannot load the Whisper model in {path}: {exc}.", hint=_INSTALL_HINT
            ) from None
        _LOGGER.info("Whisper model %s loaded in %.2f s", path, time.monotonic() - started)
        return model

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The names recognition is biased toward now."""
        return self._vocabulary

    def set_vocabulary(self, terms: Sequence[str]) -> None:
        """Bias recognition toward these names (replaces the previous list)."""
        self._vocabulary = tuple(t.strip() for t in terms if t.strip())

    async def transcribe(self, clip: AudioClip, *, language: str | None = None) -> Transcript:
        """Transcribe audio of any rate (converted to 16 kHz mono)."""
        lang = transcription_language(self._model_spec, language or self._language)
        await self.load()
        pcm = await asyncio.to_thread(to_pipeline_pcm, clip)
        return await asyncio.to_thread(self._transcribe, pcm, lang)

    async def transcribe_quick(self, pcm: bytes) -> str:
        """Greedy, unbiased text of a short 16 kHz mono segment (the wake phrase check)."""
        await self.load()
        lang = transcription_language(self._model_spec, self._language)
        return await asyncio.to_thread(self._quick, pcm, lang)

    def _quick(self, pcm: bytes, language: str | None) -> str:
        with self._run_lock:
            try:
                return self._decode(pcm_to_float32(pcm), language, "", _QUICK_BEAM)[0]
            except Exception as exc:
                raise SpeechRecognitionError(
                    f"Transcription failed: {exc}.", hint="See the log file for details."
                ) from None

    def _transcribe(self, pcm: bytes, language: str | None) -> Transcript:
        audio = pcm_to_float32(pcm)
        started = time.monotonic()
        vocabulary = self._vocabulary
        with self._run_lock:
            try:
                text, detected = self._decode(
                    audio, language, hotwords_text(vocabulary), self._beam_size
                )
                if vocabulary and mentioned(text, vocabulary):
                    plain, detected = self._decode(audio, language, "", self._beam_size)
                    if not supported_by(text, plain, vocabulary):
                        _LOGGER.debug("a suggested name was not heard: %r -> %r", text, plain)
                        text = plain
            except Exception as exc:
                raise SpeechRecognitionError(
                    f"Transcription failed: {exc}.", hint="See the log file for details."
                ) from None
        return Transcript(
            text=text,
            language=detected or language or "",
            audio_s=len(audio) / _RATE_HZ,
            latency_ms=(time.monotonic() - started) * 1000,
            engine=self.name,
        )

    def _decode(
        self, audio: Any, language: str | None, hotwords: str, beam_size: int
    ) -> tuple[str, str]:
        """faster-whisper's own decoding: full windows, beam search, temperature fallback.

        ``hotwords`` (names, comma-separated) are placed before the decoding as context.
        Timestamp tokens stay on as in faster-whisper's defaults: decoding without them
        measured worse on several voices with base (``aria bench voice --accuracy``). No
        conditioning on earlier windows: a long dictation does not drift into repeating itself.
        """
        segments, info = self._model.transcribe(
            audio,
            language=language,
            beam_size=beam_size,
            vad_filter=False,
            condition_on_previous_text=False,
            hotwords=hotwords or None,
        )
        text = " ".join(
            segment.text.strip() for segment in segments if segment.no_speech_prob < _NO_SPEECH
        ).strip()
        if not any(char.isalnum() for char in text):
            text = ""  # silence or noise ("." is not a command)
        return text, str(info.language or "")

    async def aclose(self) -> None:
        """Drop the model."""
        self._model = None


class SileroVAD:
    """Silero VAD v6 (from faster-whisper's assets), streaming with its recurrent state.

    Frames of any length are cut into the 512-sample chunks the model takes (each with the 64
    samples before it as context); the frame's probability is the highest of its chunks.
    """

    def __init__(self) -> None:
        self._session: Any = None
        self._state: Any = None
        self._context: Any = None
        self._pending: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The model."""
        return "silero-vad v6"

    async def load(self) -> None:
        """Load the model (once)."""
        if self._session is None:
            self._session = await asyncio.to_thread(self._load)
            self.reset()

    @staticmethod
    def _load() -> Any:
        try:
            from faster_whisper.vad import get_vad_model
        except ImportError as exc:
            raise VoiceModelError(
                f"faster-whisper is missing: {exc}.", hint=_INSTALL_HINT
            ) from None
        try:
            return get_vad_model().session
        except Exception as exc:
            raise VoiceModelError(f"Cannot load Silero VAD: {exc}.", hint=_INSTALL_HINT) from None

    def reset(self) -> None:
        """Forget the audio heard so far."""
        import numpy as np

        with self._lock:
            self._state = (
                np.zeros((1, 1, 128), dtype=np.float32),
                np.zeros((1, 1, 128), dtype=np.float32),
            )
            self._context = np.zeros(_VAD_CONTEXT, dtype=np.float32)
            self._pending = np.zeros(0, dtype=np.float32)

    async def speech_probability(self, frame: bytes) -> float:
        """Probability (0..1) that the frame is speech."""
        if self._session is None:
            await self.load()
        return await asyncio.to_thread(self._process, frame)

    def _process(self, frame: bytes) -> float:
        import numpy as np

        with self._lock:
            samples = np.concatenate([self._pending, pcm_to_float32(frame)])
            best = 0.0
            h, c = self._state
            offset = 0
            while offset + _VAD_CHUNK <= len(samples):
                chunk = samples[offset : offset + _VAD_CHUNK]
                batch = np.concatenate([self._context, chunk])[None, :].astype(np.float32)
                out, h, c = self._session.run(None, {"input": batch, "h": h, "c": c})
                best = max(best, float(np.asarray(out).ravel()[-1]))
                self._context = chunk[-_VAD_CONTEXT:]
                offset += _VAD_CHUNK
            self._state = (h, c)
            self._pending = samples[offset:]
            return best
