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
import zlib
from pathlib import Path
from typing import Any

from aria_desktop.domain.audio import AudioClip, Transcript
from aria_desktop.domain.errors import SpeechRecognitionError, VoiceModelError
from aria_desktop.voice.audio import pcm_to_float32, to_pipeline_pcm
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
# Speech-fitted encoder windows (see WhisperSTT._decode_fitted); 100 frames = 1 s.
_FITTED_MAX_S = 25.0
_FULL_WINDOW_FRAMES = 3000
_MIN_WINDOW_FRAMES = 1000
_WINDOW_MARGIN_FRAMES = 100
_MAX_TOKENS = 440
_TOKENS_PER_S = 12
# faster-whisper's own thresholds for a decoding it does not trust.
_MAX_COMPRESSION_RATIO = 2.4
_MIN_AVG_LOGPROB = -1.0
_NO_SPEECH_PROB = 0.6


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


def _compression_ratio(text: str) -> float:
    """Bytes per compressed byte: high for looping output ("lights lights lights...")."""
    raw = text.encode("utf-8")
    return len(raw) / max(1, len(zlib.compress(raw)))


def _repeats_a_phrase(text: str) -> bool:
    """Whether three words come twice in a row, or any four words come twice.

    Whisper's typical failure on a short window is to say the command again ("Turn off the
    lights. Turn off the lights."): too short for the compression ratio to notice, and people
    hardly ever repeat a phrase like that in one command.
    """
    words = [w.strip(".,!?;:\"'").lower() for w in text.split()]
    seen: set[tuple[str, ...]] = set()
    for start in range(len(words)):
        if words[start : start + 3] == words[start + 3 : start + 6] and start + 6 <= len(words):
            return True
        four = tuple(words[start : start + 4])
        if len(four) == 4:
            if four in seen:
                return True
            seen.add(four)
    return False


class WhisperSTT:
    """faster-whisper on the CPU (int8), in a worker thread.

    Args:
        model: "tiny.en" (packaged, English), "base" (packaged, multilingual) or a local
            CTranslate2 model directory (see ``whisper_models``).
        cpu_threads: inference threads (2 keeps the desktop responsive).
        language: default language ("" = English for ``.en`` models, else auto-detect).
        beam_size: 1 (greedy) is fastest; larger is slightly more accurate.
        cache_dir: where "base" is joined from its two packages (``paths.model_cache_dir()``).
    """

    def __init__(
        self,
        model: str = "tiny.en",
        *,
        cpu_threads: int = 2,
        language: str = "",
        beam_size: int = 1,
        cache_dir: Path | None = None,
    ) -> None:
        self._model_spec = model
        self._cache_dir = cache_dir
        self._cpu_threads = cpu_threads
        self._language = language
        self._beam_size = beam_size
        self._model: Any = None
        self._tokenizers: dict[str | None, Any] = {}
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

    async def transcribe(self, clip: AudioClip, *, language: str | None = None) -> Transcript:
        """Transcribe audio of any rate (converted to 16 kHz mono)."""
        lang = transcription_language(self._model_spec, language or self._language)
        await self.load()
        pcm = await asyncio.to_thread(to_pipeline_pcm, clip)
        return await asyncio.to_thread(self._transcribe, pcm, lang)

    def _transcribe(self, pcm: bytes, language: str | None) -> Transcript:
        audio = pcm_to_float32(pcm)
        started = time.monotonic()
        with self._run_lock:
            try:
                decoded = None
                if len(audio) <= _FITTED_MAX_S * _RATE_HZ:
                    decoded = self._decode_fitted(audio, language)
                if decoded is None:
                    decoded = self._decode_full(audio, language)
            except Exception as exc:
                raise SpeechRecognitionError(
                    f"Transcription failed: {exc}.", hint="See the log file for details."
                ) from None
        text, detected = decoded
        return Transcript(
            text=text,
            language=detected or language or "",
            audio_s=len(audio) / _RATE_HZ,
            latency_ms=(time.monotonic() - started) * 1000,
            engine=self.name,
        )

    def _decode_full(self, audio: Any, language: str | None) -> tuple[str, str]:
        """faster-whisper's own long-form decoding (30 s windows, temperature fallback)."""
        segments, info = self._model.transcribe(
            audio,
            language=language,
            beam_size=self._beam_size,
            vad_filter=False,
            condition_on_previous_text=False,
            without_timestamps=True,
        )
        text = " ".join(segment.text.strip() for segment in segments).strip()
        return text, str(info.language or "")

    def _decode_fitted(self, audio: Any, language: str | None) -> tuple[str, str] | None:
        """One greedy pass over an encoder window cut to the speech, or None to fall back.

        Whisper is trained on 30 s windows and faster-whisper always pads to one, so a 2 s
        command pays for 28 s of silence: the encoder is most of the cost (~150 ms of ~200 ms
        here). CTranslate2 accepts shorter inputs, and with a margin after the speech (at
        least a 10 s window) the transcripts are as good on spoken commands (tiny.en: WER on
        the test commands 4.7 % vs 8.9 % with the full window; base: 3.1 % vs 3.9 %, and more
        foreign keywords right) at 3-6x less time. A result that looks like a
        known failure of greedy decoding — no end token, repeated text, low confidence — is
        thrown away and the audio decoded the standard way instead.
        """
        from faster_whisper.audio import pad_or_trim

        model = self._model
        features = model.feature_extractor(audio)
        frames = int(features.shape[-1])
        window = min(
            _FULL_WINDOW_FRAMES,
            max(_MIN_WINDOW_FRAMES, -(-(frames + _WINDOW_MARGIN_FRAMES) // 100) * 100),
        )
        encoded = model.encode(pad_or_trim(features, window))
        if language is None and model.model.is_multilingual:
            token, _probability = model.model.detect_language(encoded)[0][0]
            language = str(token)[2:-2]
        tokenizer = self._tokenizer(language)
        prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        max_tokens = min(_MAX_TOKENS, 16 + int(len(audio) / _RATE_HZ * _TOKENS_PER_S))
        result = model.model.generate(
            encoded,
            [prompt],
            beam_size=self._beam_size,
            max_length=len(prompt) + max_tokens,
            suppress_blank=True,
            suppress_tokens=[-1],
            return_scores=True,
            return_no_speech_prob=True,
        )[0]
        tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot]
        text = str(tokenizer.decode(tokens)).strip()
        avg_logprob = float(result.scores[0]) * len(tokens) / (len(tokens) + 1)
        if not any(char.isalnum() for char in text) or (
            result.no_speech_prob > _NO_SPEECH_PROB and avg_logprob < _MIN_AVG_LOGPROB
        ):
            return "", language or ""  # silence or noise ("." is not a command)
        if (
            len(tokens) >= max_tokens - 1
            or _compression_ratio(text) > _MAX_COMPRESSION_RATIO
            or _repeats_a_phrase(text)
            or avg_logprob < _MIN_AVG_LOGPROB
        ):
            _LOGGER.debug("fitted-window decoding unsure; decoding the full window")
            return None
        return text, language or ""

    def _tokenizer(self, language: str | None) -> Any:
        tokenizer = self._tokenizers.get(language)
        if tokenizer is None:
            from faster_whisper.tokenizer import Tokenizer

            tokenizer = Tokenizer(
                self._model.hf_tokenizer,
                self._model.model.is_multilingual,
                task="transcribe",
                language=language or "en",
            )
            self._tokenizers[language] = tokenizer
        return tokenizer

    async def aclose(self) -> None:
        """Drop the model."""
        self._model = None
        self._tokenizers.clear()


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
