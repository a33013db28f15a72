"""Wake word detection with openWakeWord (ONNX models shipped in the package).

The only module that imports openwakeword. Version 0.5.1 is used with
``inference_framework="onnx"``: its default tflite mode crashes with numpy 2 and tflite has no
wheels past Python 3.11. A second model instance scans ARIA's own synthesized speech, so the
pipeline can ignore the wake word when ARIA itself says it (self-trigger gate).

Look-alikes ("Hey Janice", "Jarvis" alone) score as high as the wake word itself, so no
threshold rejects them: a detection is only reported once ``confirm`` (the wake phrase in a
quick transcription of the last seconds of audio, ``wake_check.py``) agrees. See
ARCHITECTURE.md, "Voice accuracy".
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from aria_desktop.adapters.voice.audio import FRAME_BYTES, pcm_to_int16, resample_pcm
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ, SpeechAudio, WakeDetection
from aria_desktop.domain.errors import VoiceModelError

__all__ = ["OpenWakeWordDetector", "packaged_wake_models", "resolve_wake_model"]

_LOGGER = logging.getLogger(__name__)
_INSTALL_HINT = "Reinstall the voice extra: pip install 'aria-desktop[voice]'."
_NOT_WAKE_WORDS = ("melspectrogram", "embedding_model", "silero_vad")
TUNED_THRESHOLDS = {"hey_jarvis": 0.7}
"""Thresholds measured with ``aria bench voice --accuracy`` (hey_jarvis: the wake phrase in
10 dB pink noise scored >= 0.97 in every voice, look-alikes that a threshold can reject
<= 0.48); other models use openWakeWord's recommended 0.5."""
DEFAULT_THRESHOLD = 0.5
_SEGMENT_FRAMES = 25
"""Audio kept for the wake phrase check: 2 s (25 frames of 80 ms) up to the detection."""

WakeConfirm = Callable[[bytes], Awaitable[bool]]
"""Whether a segment of 16 kHz mono PCM that woke the detector really holds the wake phrase."""


def _model_name(spec: str) -> str:
    """The model's name: "hey_jarvis" for "hey jarvis" or ".../hey_jarvis_v0.1.onnx"."""
    return Path(spec).stem.rsplit("_v", 1)[0].replace(" ", "_").replace("-", "_")


def model_threshold(name: str, threshold: float = 0.0) -> float:
    """``threshold``, or (when 0) the measured threshold for the model named ``name``."""
    if threshold > 0:
        return threshold
    return TUNED_THRESHOLDS.get(name, DEFAULT_THRESHOLD)


def _models_dir() -> Path | None:
    spec = importlib.util.find_spec("openwakeword")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "models"


def packaged_wake_models() -> dict[str, Path]:
    """Wake word models shipped with openWakeWord, by name ("hey_jarvis": path)."""
    folder = _models_dir()
    if folder is None or not folder.is_dir():
        return {}
    models = {}
    for path in sorted(folder.glob("*.onnx")):
        name = path.stem.rsplit("_v", 1)[0]
        if name not in _NOT_WAKE_WORDS:
            models[name] = path
    return models


def resolve_wake_model(spec: str) -> Path:
    """The ONNX file for a packaged name ("hey_jarvis", "hey jarvis") or a path to a file."""
    candidate = Path(spec).expanduser()
    if candidate.suffix == ".onnx":
        if candidate.is_file():
            return candidate
        raise VoiceModelError(
            f"The wake word model {candidate} does not exist.",
            hint="Point voice.wake.model (or custom_models) at an openWakeWord .onnx file.",
        )
    packaged = packaged_wake_models()
    key = spec.strip().lower().replace(" ", "_").replace("-", "_")
    if key in packaged:
        return packaged[key]
    if not packaged:
        raise VoiceModelError("openWakeWord is not installed.", hint=_INSTALL_HINT)
    raise VoiceModelError(
        f"There is no packaged wake word {spec!r}.",
        hint=f"Use one of {', '.join(sorted(packaged))} or a path to a custom .onnx model.",
    )


class OpenWakeWordDetector:
    """openWakeWord on 80 ms frames, in a worker thread.

    Args:
        models: packaged names or .onnx paths (the first is the main wake word; all fire).
        threshold: score (0..1) at which a frame counts as a detection (0: each model's
            measured threshold, ``model_threshold``).
        confirm: the second check a detection must pass (None: every detection counts).
    """

    def __init__(
        self,
        models: Sequence[str] = ("hey_jarvis",),
        *,
        threshold: float = 0.0,
        confirm: WakeConfirm | None = None,
    ) -> None:
        if not models:
            raise VoiceModelError("No wake word model is configured.", hint="Set voice.wake.model.")
        self._specs = tuple(models)
        names = [_model_name(m) for m in self._specs]
        self.threshold = model_threshold(names[0], threshold)
        self._thresholds = {name: model_threshold(name, threshold) for name in names}
        self._confirm = confirm
        self._recent: deque[bytes] = deque(maxlen=_SEGMENT_FRAMES)
        self._rejected = False
        self.rejections = 0
        self._paths: list[Path] = []
        self._model: Any = None
        self._scanner: Any = None
        self._lock = threading.Lock()
        self._scan_lock = threading.Lock()
        self._load_lock = asyncio.Lock()

    @property
    def name(self) -> str:
        """The main wake word."""
        return self._specs[0].replace(" ", "_")

    @property
    def phrases(self) -> tuple[str, ...]:
        """The wake phrases as words ("hey jarvis"), for removing them from transcripts."""
        return tuple(Path(s).stem.rsplit("_v", 1)[0].replace("_", " ") for s in self._specs)

    async def load(self) -> None:
        """Load the models (once)."""
        async with self._load_lock:
            if self._model is None:
                self._paths = [resolve_wake_model(spec) for spec in self._specs]
                self._model = await asyncio.to_thread(self._new_model)

    def _new_model(self) -> Any:
        try:
            from openwakeword.model import Model
        except ImportError as exc:
            raise VoiceModelError(f"openWakeWord is missing: {exc}.", hint=_INSTALL_HINT) from None
        try:
            return Model(wakeword_models=[str(p) for p in self._paths], inference_framework="onnx")
        except Exception as exc:
            raise VoiceModelError(
                f"Cannot load the wake word model: {exc}.",
                hint="Check that voice.wake.model names an openWakeWord ONNX model.",
            ) from None

    async def process(self, frame: bytes) -> WakeDetection | None:
        """Score one frame: a detection when a model's score reaches its threshold.

        With a ``confirm`` check, the detection must also pass it (once per rise of the score).
        """
        if self._model is None:
            await self.load()
        detection = await asyncio.to_thread(self.process_sync, frame)
        if self._confirm is None:
            return detection
        self._recent.append(frame)
        if detection is None:
            self._rejected = False  # the score fell: the next detection is checked afresh
            return None
        if self._rejected:
            return None  # the same look-alike, still scoring high
        if await self._confirm(b"".join(self._recent)):
            return detection
        self._rejected = True
        self.rejections += 1
        _LOGGER.info(
            "Wake word %s (%.2f) not confirmed: a look-alike", detection.name, detection.score
        )
        return None

    def process_sync(self, frame: bytes) -> WakeDetection | None:
        """The score of one frame on the calling thread, without the wake phrase check."""
        with self._lock:
            scores = self._model.predict(pcm_to_int16(frame))
        for raw_name, score in sorted(scores.items(), key=lambda item: -item[1]):
            name = raw_name.rsplit("_v", 1)[0]
            if score >= self._thresholds.get(name, self.threshold):
                return WakeDetection(name=name, score=float(score))
        return None

    def reset(self) -> None:
        """Clear the score history (after a detection or when re-armed)."""
        self._recent.clear()
        self._rejected = False
        if self._model is not None:
            with self._lock:
                self._model.reset()

    async def scan_speech(self, audio: SpeechAudio) -> list[float] | None:
        """Seconds into ``audio`` at which the wake word would fire (ARIA's own voice)."""
        if self._model is None:
            return None
        return await asyncio.to_thread(self._scan, audio)

    def _scan(self, audio: SpeechAudio) -> list[float]:
        pcm = resample_pcm(audio.pcm, audio.sample_rate_hz, PIPELINE_RATE_HZ)
        hits: list[float] = []
        with self._scan_lock:
            if self._scanner is None:
                self._scanner = self._new_model()
            for index in range(0, len(pcm), FRAME_BYTES):
                frame = pcm[index : index + FRAME_BYTES]
                if len(frame) < FRAME_BYTES:
                    frame += b"\0" * (FRAME_BYTES - len(frame))
                scores = self._scanner.predict(pcm_to_int16(frame))
                if max(scores.values(), default=0.0) >= self.threshold:
                    hits.append((index // 2 + FRAME_SAMPLES) / PIPELINE_RATE_HZ)
        return hits

    async def aclose(self) -> None:
        """Drop the models."""
        self._model = None
        self._scanner = None
