"""ARIA's own speech, scanned for the wake word before it plays (the self-trigger gate).

Each piece of speech queued for playback is handed to the wake detector's ``scan_speech``
while the detector is armed; the :class:`~aria_desktop.core.voice.wake_gate.WakeGate` then
ignores microphone detections where ARIA itself says the wake word. A detector that cannot
scan makes the gate ignore the whole piece instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aria_desktop.core.ports import WakeWordDetector
from aria_desktop.core.voice.wake_gate import SelfSpeechScanner, WakeGate
from aria_desktop.domain.audio import SpeechAudio

__all__ = ["SelfSpeechScans"]

Spawn = Callable[..., Any]
"""``Orchestrator.spawn``: runs a named background task owned by the orchestrator."""


class SelfSpeechScans:
    """Scans ARIA's queued speech, one piece at a time in playback order."""

    def __init__(self, *, gate: WakeGate, spawn: Spawn) -> None:
        self._gate = gate
        self._spawn = spawn
        self._lock = asyncio.Lock()

    def speech_queued(
        self, wake: WakeWordDetector | None, audio: SpeechAudio, play_at: float
    ) -> None:
        """Scan ``audio`` (to play at ``play_at``) for the wake word before it plays."""
        if wake is None or not self._gate.armed:
            return
        if not callable(getattr(wake, "scan_speech", None)):
            self._gate.ignore_playback(play_at=play_at, duration_s=audio.duration_s)
            return
        scanner: SelfSpeechScanner = wake  # type: ignore[assignment]
        self._spawn(self._scan(scanner, audio, play_at), name="aria-voice-self-scan")

    async def _scan(self, scanner: SelfSpeechScanner, audio: SpeechAudio, play_at: float) -> None:
        scan = self._gate.scan_started(play_at=play_at, duration_s=audio.duration_s)
        try:
            # One scan at a time, in playback order: the detector's frames share its worker
            # threads, and the piece playing first must be checked first.
            async with self._lock:
                offsets = await scanner.scan_speech(audio)
        finally:
            self._gate.scan_finished(scan)
        if offsets is None:
            self._gate.ignore_playback(play_at=play_at, duration_s=audio.duration_s)
        else:
            self._gate.ignore_own_wake_words(play_at=play_at, offsets_s=offsets)
