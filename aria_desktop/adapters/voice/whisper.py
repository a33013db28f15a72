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

from aria_desktop.adapters.voice.audio import pcm_to_float32, to_pipeline_pcm
from aria_desktop.adapters.voice.vocabulary import hotwords_text, mentioned, supported_by
from aria_desktop.adapters.voice.whisper_models import (
    is_english_only,
    transcription_language,
    whisper_model_path,
)
from aria_desktop.domain.audio import AudioClip, Transcript
from aria_desktop.domain.errors import SpeechRecognitionError, VoiceModelError

__all__ = ["SileroVAD", "WhisperSTT", "decoding_prefix", "whisper_model_path"]

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
# The speech-fitted encoder window (WhisperSTT._decode_fitted); 100 mel frames = 1 s.
_FULL_WINDOW_FRAMES = 3000
_FITTED_MIN_FRAMES = 1000
_FITTED_MARGIN_FRAMES = 100
_SAMPLES_PER_FRAME = 160
# faster-whisper's own thresholds for a decoding it does not trust.
_MAX_COMPRESSION_RATIO = 2.4
_MIN_AVG_LOGPROB = -1.0
_NO_SPEECH_THRESHOLD = 0.6
_MAX_NAME_COST = 10.0
"""How much less likely (in nats) the unbiased model may find a transcript with a suggested
name than its own one. Measured with tiny.en on 123 of the accuracy set's clips (five voices)
with three name lists: names really said cost -3.3 to 18.8 (46 cases, median 7.6: the model
was torn between the name and what it heard); names not said cost 13.2 to 101 (19 cases that
passed the word alignment, median 33; "Kowalski" for "Call": 40). At 10 no made-up name is
kept, and 28 of the 42 corrections with the benchmark's own names are. Above it the name is
dropped: a lost correction is a mishearing, an invented name a different command."""


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


class _WindowedEncoder:
    """Wraps ``WhisperModel.encode`` so a decoding can run on an encoder window cut short.

    faster-whisper pads every window to 30 s before encoding it; the encoder's cost grows with
    the window (~8x for 30 s against 10 s). While ``frames`` is set, each window is cut to that
    many mel frames: only padding is dropped, because the fitted window is used only for audio
    shorter than it (``WhisperSTT._decode``). Everything else — beam search, temperature
    fallback, no-speech handling, timestamps — stays faster-whisper's own. The last window's
    encoding is reused when the same window comes again (another decoding of the same command).
    """

    def __init__(self, encode: Any) -> None:
        self._encode = encode
        self.frames: int | None = None
        self._last: tuple[Any, Any] | None = None
        """The last window encoded and its encoding: the hinted decoding, the unbiased one
        and the name check's scoring of one command encode the same window (the encoder is
        ~90 % of a short command's time on the full window); the output is the same."""

    def __call__(self, features: Any) -> Any:
        import numpy as np

        if self.frames is not None and features.shape[-1] > self.frames:
            features = features[..., : self.frames]
        last = self._last
        if last is not None and np.array_equal(last[0], features):
            return last[1]
        encoded = self._encode(features)
        self._last = (np.array(features, copy=True), encoded)
        return encoded


def _fitted_frames(samples: int) -> int | None:
    """The fitted encoder window for audio of ``samples`` (16 kHz), or None for the full one.

    At least 10 s, and the speech plus 1 s of padding, in whole seconds.
    """
    needed = samples // _SAMPLES_PER_FRAME + 1 + _FITTED_MARGIN_FRAMES
    frames = max(_FITTED_MIN_FRAMES, -(-needed // 100) * 100)
    return frames if frames < _FULL_WINDOW_FRAMES else None


def _confident(segments: Sequence[Any]) -> bool:
    """Whether faster-whisper trusted its first try at T=0.

    No temperature fallback was needed and no segment is looping, unlikely or possibly not
    speech (faster-whisper's own thresholds). No segment at all (everything judged not speech)
    is not trusted either: the full window has the last word on whether anything was said.
    """
    return bool(segments) and all(
        segment.temperature == 0.0
        and segment.avg_logprob >= _MIN_AVG_LOGPROB
        and segment.compression_ratio <= _MAX_COMPRESSION_RATIO
        and segment.no_speech_prob <= _NO_SPEECH_THRESHOLD
        for segment in segments
    )


def decoding_prefix(phrase: str) -> str:
    """``phrase`` as Whisper writes a phrase said before a command ("Hey Jarvis,").

    Given as faster-whisper's ``prefix``, the decoder is told how the audio begins instead of
    guessing at the wake phrase's tail, which it otherwise wrote as words of the command
    ("service, remind me …"; ARCHITECTURE.md, "Voice accuracy").
    """
    words = phrase.replace("_", " ").split()
    return " ".join(w[:1].upper() + w[1:] for w in words) + "," if words else ""


_AFTER_THE_END_S = 0.25
"""A segment starting this close to the end of the audio, or after it, is not speech."""


def _text(segments: Sequence[Any], duration_s: float) -> str:
    """The words of the segments Whisper finds to be speech ("" for silence or noise).

    A segment that starts in the padding after the audio (``duration_s`` long) is left out:
    nothing was said there. Whisper writes such segments at the end of long speech — measured
    on a 27 s clip: "…of this window. We'll see you next time. Until next time." — and a
    dictation would type them.
    """
    last_start = duration_s - _AFTER_THE_END_S
    text = " ".join(
        segment.text.strip()
        for segment in segments
        if segment.no_speech_prob < _NO_SPEECH and segment.start < last_start
    ).strip()
    return text if any(char.isalnum() for char in text) else ""  # "." is not a command


class WhisperSTT:
    """faster-whisper on the CPU (int8), in a worker thread: beam search over the full window.

    Accuracy comes first (ARCHITECTURE.md, "Voice accuracy"): faster-whisper's own decoding
    with beam search, its temperature fallback on a low-confidence or looping result, and the
    full 30 s encoder window. ``fitted_window`` (off by default; ``voice.stt.fitted_window``)
    first decodes a command shorter than 29 s on an encoder window fitted to it (at least
    10 s; the 30 s window's encoder costs ~8x as much) and keeps the full window for what
    faster-whisper did not trust there. It is ~3x faster but not lossless: on the accuracy
    set (``aria bench voice --accuracy``) it changed about half the transcripts and raised
    the word error rate on most voices, at 10, 15 and 20 s windows alike (README, "Voice
    accuracy"), so it is a choice for a slow CPU, never the default.
    Names the user uses (``set_vocabulary``) go to the decoder as context before the
    transcript (faster-whisper's ``hotwords`` tokens, one pass at temperature 0); a name that
    shows up only because it was suggested is caught by the word alignment
    (``vocabulary.supported_by``) and the model's own probability (``_names_heard``).

    Args:
        model: "tiny.en" (packaged, English), "base" (packaged, multilingual) or a local
            CTranslate2 model directory (see ``whisper_models``).
        cpu_threads: inference threads (2 keeps the desktop responsive).
        language: default language ("" = English for ``.en`` models, else auto-detect).
        beam_size: beams searched (5, faster-whisper's default; 1 = greedy, faster).
        cache_dir: where "base" is joined from its two packages (``paths.model_cache_dir()``).
        vocabulary: names and words to bias recognition toward (``set_vocabulary``).
        fitted_window: decode short commands on a fitted encoder window first (faster,
            less accurate; see above).
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
        fitted_window: bool = False,
    ) -> None:
        self._model_spec = model
        self._cache_dir = cache_dir
        self._cpu_threads = cpu_threads
        self._language = language
        self._beam_size = beam_size
        self._vocabulary: tuple[str, ...] = tuple(vocabulary)
        self._fitted_window = fitted_window
        self._model: Any = None
        self._encoder: _WindowedEncoder | None = None
        self.last_window_s = 0.0
        """The encoder window (seconds) that decided the last transcription (30 = full)."""
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
                model = await asyncio.to_thread(self._load)
                self._encoder = _WindowedEncoder(model.encode)
                model.encode = self._encoder
                self._model = model

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

    async def transcribe(
        self,
        clip: AudioClip,
        *,
        language: str | None = None,
        starts_with: str = "",
        prompt: str = "",
    ) -> Transcript:
        """Transcribe audio of any rate (converted to 16 kHz mono).

        ``starts_with`` (the wake phrase the audio begins with) is the decoding's prefix: the
        transcript begins with it as Whisper writes it ("Hey Jarvis, …"). ``prompt`` goes
        before the decoding as context instead of the names (dictation's spoken marks).
        """
        lang = transcription_language(self._model_spec, language or self._language)
        await self.load()
        pcm = await asyncio.to_thread(to_pipeline_pcm, clip)
        prefix = decoding_prefix(starts_with)
        return await asyncio.to_thread(self._transcribe, pcm, lang, prefix, prompt)

    async def transcribe_quick(self, pcm: bytes) -> str:
        """Greedy, unbiased text of a short 16 kHz mono segment (the wake phrase check)."""
        await self.load()
        lang = transcription_language(self._model_spec, self._language)
        return await asyncio.to_thread(self._quick, pcm, lang)

    def _quick(self, pcm: bytes, language: str | None) -> str:
        with self._run_lock:
            try:
                return self._decode(pcm_to_float32(pcm), language, "", _QUICK_BEAM, "")[0]
            except Exception as exc:
                raise SpeechRecognitionError(
                    f"Transcription failed: {exc}.", hint="See the log file for details."
                ) from None

    def _transcribe(
        self, pcm: bytes, language: str | None, prefix: str, prompt: str = ""
    ) -> Transcript:
        audio = pcm_to_float32(pcm)
        started = time.monotonic()
        vocabulary = self._vocabulary
        if prompt or len(audio) > _FULL_WINDOW_FRAMES * _SAMPLES_PER_FRAME:
            vocabulary = ()  # the name check scores one window: longer audio is decoded plain
        with self._run_lock:
            try:
                hinted = (
                    self._decode_hinted(audio, language, vocabulary, prefix) if vocabulary else None
                )
                if hinted is not None and not mentioned(hinted[0], vocabulary):
                    text, detected = hinted
                else:
                    text, detected = self._decode(audio, language, prompt, self._beam_size, prefix)
                    if hinted is not None and hinted[0] != text:
                        if self._names_heard(
                            audio, hinted[0], text, vocabulary, detected or language
                        ):
                            text = hinted[0]
                        else:
                            _LOGGER.debug("suggested name not heard: %r -> %r", hinted[0], text)
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

    async def phrase_cost(self, pcm: bytes, heard: str, phrases: Sequence[str]) -> float:
        """How many nats likelier the model finds ``heard`` than the likeliest of ``phrases``.

        For a short 16 kHz mono segment (the wake phrase check): teacher-forced, unbiased, on
        one window. Negative when a phrase is likelier than what the greedy decoding wrote.
        """
        await self.load()
        lang = transcription_language(self._model_spec, self._language)

        def score() -> float:
            with self._run_lock:
                try:
                    first, *others = self._log_probabilities(
                        pcm_to_float32(pcm), (heard, *phrases), lang
                    )
                except Exception as exc:
                    raise SpeechRecognitionError(
                        f"Scoring the wake phrase failed: {exc}.",
                        hint="See the log file for details.",
                    ) from None
            return first - max(others)

        return await asyncio.to_thread(score)

    async def names_heard(self, clip: AudioClip, biased: str, plain: str) -> bool:
        """Whether the vocabulary's names in ``biased`` were said in ``clip`` (vs ``plain``).

        The check every transcript with a suggested name passes (exposed for tests and tools).
        """
        await self.load()
        pcm = await asyncio.to_thread(to_pipeline_pcm, clip)
        lang = transcription_language(self._model_spec, self._language)

        def judge() -> bool:
            with self._run_lock:
                return self._names_heard(pcm_to_float32(pcm), biased, plain, self._vocabulary, lang)

        return await asyncio.to_thread(judge)

    def _names_heard(
        self, audio: Any, biased: str, plain: str, terms: Sequence[str], language: str | None
    ) -> bool:
        """Whether the names suggested in ``biased`` were really said (vs ``plain``).

        First the word alignment (``vocabulary.supported_by``), then the model's own judgement:
        without the hint, how much less likely does it find ``biased`` than what it heard?
        """
        if not supported_by(biased, plain, terms):
            return False
        heard, suggested = self._log_probabilities(audio, (plain, biased), language)
        cost = heard - suggested
        _LOGGER.debug("suggested names cost %.1f nats: %r vs %r", cost, biased, plain)
        return cost <= _MAX_NAME_COST

    def _log_probabilities(
        self, audio: Any, texts: Sequence[str], language: str | None
    ) -> list[float]:
        """Log-probability of each of ``texts`` for ``audio`` (one window), without any hint.

        Teacher-forced through CTranslate2's ``align`` (its token probabilities), on the encoder
        output of the input faster-whisper itself builds for the first window (encoded once).
        """
        import numpy as np
        from faster_whisper.audio import pad_or_trim
        from faster_whisper.tokenizer import Tokenizer

        model = self._model
        features = model.feature_extractor(audio)
        frames = min(features.shape[-1] - 1, _FULL_WINDOW_FRAMES)
        encoded = model.encode(pad_or_trim(features[:, :frames]))
        tokenizer = Tokenizer(
            model.hf_tokenizer,
            model.model.is_multilingual,
            task="transcribe",
            language=language or "en",
        )
        scores = []
        for text in texts:
            tokens = tokenizer.encode(" " + text.strip())
            (result,) = model.model.align(encoded, tokenizer.sot_sequence, [tokens], frames)
            probabilities = np.maximum(np.asarray(result.text_token_probs, np.float64), 1e-12)
            scores.append(float(np.log(probabilities).sum()))
        return scores

    def _decode_hinted(
        self, audio: Any, language: str | None, terms: Sequence[str], prefix: str
    ) -> tuple[str, str] | None:
        """The transcript with ``terms`` as hotwords, or None where faster-whisper doubts it.

        One pass at temperature 0, no fallback: a hint that leaves the model unsure (a low
        log-probability, a loop) has misled it, and its sampled retries took up to 12 s for a
        2 s command on the 2-core machine, mostly for a made-up or garbled name. The unbiased
        decoding (with faster-whisper's fallback) is then the transcript.
        """
        segments, detected = self._segments(
            audio, language, hotwords_text(terms), self._beam_size, None, prefix, temperature=0.0
        )
        if not _confident(segments):
            _LOGGER.debug("the hinted decoding is unsure; decoding without the hint")
            return None
        self.last_window_s = _FULL_WINDOW_FRAMES / 100
        return _text(segments, len(audio) / _RATE_HZ), detected

    def _decode(
        self, audio: Any, language: str | None, hotwords: str, beam_size: int, prefix: str
    ) -> tuple[str, str]:
        """The fitted window's transcript when faster-whisper trusts it, else the full one's.

        Only a known language takes the fitted window: language detection stays on the full
        window it was trained for.
        """
        frames = _fitted_frames(len(audio)) if self._fitted_window and language else None
        if frames is not None:
            segments, detected = self._segments(
                audio, language, hotwords, beam_size, frames, prefix
            )
            if _confident(segments):
                self.last_window_s = frames / 100
                return _text(segments, len(audio) / _RATE_HZ), detected
            _LOGGER.debug("fitted window unsure; decoding the full window")
        segments, detected = self._segments(audio, language, hotwords, beam_size, None, prefix)
        self.last_window_s = _FULL_WINDOW_FRAMES / 100
        return _text(segments, len(audio) / _RATE_HZ), detected

    def _segments(
        self,
        audio: Any,
        language: str | None,
        hotwords: str,
        beam_size: int,
        frames: int | None,
        prefix: str,
        *,
        temperature: float | None = None,
    ) -> tuple[list[Any], str]:
        """faster-whisper's own decoding: beam search, temperature fallback, on ``frames``.

        ``temperature``: one pass at that temperature instead of faster-whisper's fallback.

        ``hotwords`` (names, comma-separated) are placed before the decoding as context;
        ``prefix`` ("Hey Jarvis,") is the text the decoding starts from (kept in the result).
        The names go in as the first window's ``initial_prompt``, not as ``hotwords``:
        faster-whisper drops ``hotwords`` whenever a ``prefix`` is given, and both put the
        same tokens in the same place of the prompt (names are only used on one window).
        Timestamp tokens stay on as in faster-whisper's defaults: decoding without them
        measured worse on several voices with base (``aria bench voice --accuracy``). No
        conditioning on earlier windows: a long dictation does not drift into repeating itself.
        """
        assert self._encoder is not None  # set by load() with the model
        self._encoder.frames = frames
        try:
            segments, info = self._model.transcribe(
                audio,
                language=language,
                beam_size=beam_size,
                vad_filter=False,
                condition_on_previous_text=False,
                initial_prompt=hotwords or None,
                prefix=prefix or None,
                **({} if temperature is None else {"temperature": temperature}),
            )
            return list(segments), str(info.language or "")
        finally:
            self._encoder.frames = None

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
