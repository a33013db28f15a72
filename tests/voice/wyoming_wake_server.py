"""A real Wyoming wake word server for tests: the documented protocol (``wyoming`` library)
around the real openWakeWord models (ONNX, shipped in the package), in its own process.

Why not the real ``wyoming-openwakeword`` from PyPI: its last release (1.8.2) pins
``wyoming==1.2.0`` (ARIA's Wyoming servers need >= 1.10.2) and runs its models with
``tflite-runtime-nightly``, which needs numpy < 2. In a separate virtualenv with numpy 1.26 it
installs and detects "hey jarvis"; this server behaves like it did there, so ARIA's client is
tested against that behaviour:

- ``describe`` -> ``info`` listing the wake word models;
- ``detect`` (names like "hey_jarvis" or "hey jarvis") selects models; an unknown name ends
  the connection (1.8.2 raises and drops the client; this server first says why in an
  ``error`` event, as newer servers do);
- ``audio-start`` resets, ``audio-chunk`` (any size, converted to 16 kHz mono) is scored per
  80 ms, and EVERY frame scoring over the threshold sends a ``detection`` named after the
  model file with its version ("hey_jarvis_v0.1") — several in a row for one utterance;
- ``audio-stop`` -> ``not-detected`` if nothing was detected, then the connection ends.

Run: ``python -m tests.voice.wyoming_wake_server --uri tcp://127.0.0.1:10400``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Attribution, Describe, Info, WakeModel, WakeProgram
from wyoming.server import AsyncEventHandler, AsyncServer
from wyoming.wake import Detect, Detection, NotDetected

_LOGGER = logging.getLogger("wyoming_wake_server")
_FRAME_SAMPLES = 1280
_ATTRIBUTION = Attribution(name="dscripka", url="https://github.com/dscripka/openWakeWord")


def packaged_models() -> dict[str, Path]:
    """openWakeWord's shipped wake word models by name ("hey_jarvis": .../hey_jarvis_v0.1.onnx)."""
    import openwakeword

    folder = Path(openwakeword.__file__).parent / "resources" / "models"
    return {p.stem.rsplit("_v", 1)[0]: p for p in sorted(folder.glob("*_v*.onnx"))}


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


class WakeHandler(AsyncEventHandler):
    """One client: its own model instance (openWakeWord keeps per-stream history)."""

    def __init__(self, models: dict[str, Path], threshold: float, *args: Any) -> None:
        super().__init__(*args)
        self.models = models
        self.threshold = threshold
        self.model: Any = None
        self.converter = AudioChunkConverter(rate=16000, width=2, channels=1)
        self.pending = b""
        self.detected = False

    def _load(self, names: list[str]) -> None:
        from openwakeword.model import Model

        paths = []
        for name in names or [next(iter(self.models))]:
            path = self.models.get(_key(name).rsplit("_v", 1)[0])
            if path is None:
                raise ValueError(f"Wake word model not found: {name}")
            paths.append(path)
        self.model = Model(wakeword_models=[str(p) for p in paths], inference_framework="onnx")

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self._info().event())
            return True
        if Detect.is_type(event.type):
            try:
                await asyncio.to_thread(self._load, Detect.from_event(event).names or [])
            except ValueError as exc:
                await self.write_event(Error(text=str(exc), code="model-not-found").event())
                return False
            return True
        if AudioStart.is_type(event.type):
            if self.model is None:
                await asyncio.to_thread(self._load, [])
            self.model.reset()
            self.pending = b""
            self.detected = False
            return True
        if AudioChunk.is_type(event.type):
            chunk = self.converter.convert(AudioChunk.from_event(event))
            self.pending += chunk.audio
            while len(self.pending) >= _FRAME_SAMPLES * 2:
                frame = np.frombuffer(self.pending[: _FRAME_SAMPLES * 2], dtype="<i2")
                self.pending = self.pending[_FRAME_SAMPLES * 2 :]
                scores = self.model.predict(frame)
                for name, score in scores.items():  # named after the file: "hey_jarvis_v0.1"
                    if score >= self.threshold:
                        self.detected = True
                        _LOGGER.info("detected %s (%.2f)", name, score)
                        await self.write_event(
                            Detection(name=name, timestamp=chunk.timestamp).event()
                        )
            return True
        if AudioStop.is_type(event.type):
            if not self.detected:
                await self.write_event(NotDetected().event())
            return False
        return True

    def _info(self) -> Info:
        return Info(
            wake=[
                WakeProgram(
                    name="openwakeword",
                    attribution=_ATTRIBUTION,
                    installed=True,
                    description="openWakeWord (ONNX) test server",
                    version="0.5.1",
                    models=[
                        WakeModel(
                            name=path.stem,
                            attribution=_ATTRIBUTION,
                            installed=True,
                            description=name.replace("_", " "),
                            version=None,
                            languages=["en"],
                            phrase=name.replace("_", " "),
                        )
                        for name, path in self.models.items()
                    ],
                )
            ]
        )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True)
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    models = packaged_models()
    server = AsyncServer.from_uri(args.uri)
    _LOGGER.info("serving %s on %s", ", ".join(models), args.uri)
    await server.run(partial(WakeHandler, models, args.threshold))


if __name__ == "__main__":
    asyncio.run(main())
