"""Whether a wake word detection counts: armed, past the refractory time, not ARIA's own voice.

Pure bookkeeping (no I/O, no clock of its own): the pipeline passes the audio time of the frame
and the monotonic time of the moment, so the rules can be tested with plain numbers.

ARIA's own voice must not wake it: before each piece of speech is played, the wake detector
scans the synthesized audio; microphone detections around the moments where ARIA itself says
the wake word are ignored. While a piece plays whose scan has not finished, or that the
detector cannot scan, every detection is ignored. A scan still pending for a piece that plays
later does not gate the piece playing now: a long reply is queued sentence by sentence ahead
of playback, and the user must be able to interrupt its first sentence while the later ones
are still being scanned. See ``aria_desktop/ARCHITECTURE.md``, "One voice turn".
"""

from __future__ import annotations

import logging
from typing import Protocol

from aria_desktop.domain.audio import SpeechAudio

__all__ = ["GATE_AFTER_S", "GATE_BEFORE_S", "SelfSpeechScanner", "WakeGate"]

_LOGGER = logging.getLogger(__name__)

GATE_BEFORE_S = 0.6
GATE_AFTER_S = 1.2
"""Around a moment where ARIA's own voice says the wake word, mic detections are ignored
from this long before to this long after (covers room echo and detector latency)."""
_KEEP_S = 5.0
"""Ignore windows that ended longer ago than this are forgotten."""


class WakeGate:
    """Decides which wake detections wake ARIA.

    ``armed`` is separate from the pipeline's state: the detector is armed while waiting for
    the wake word and while a reply is thought through and spoken (so the wake word
    interrupts it), but only while the microphone is open.

    Args:
        refractory_s: audio seconds after an accepted detection during which the wake word
            is ignored (one spoken wake word fires the detector on several frames).
    """

    def __init__(self, *, refractory_s: float) -> None:
        self.refractory_s = refractory_s
        self._armed = False
        self._last_accepted_audio_s = -1e9
        self._windows: list[tuple[float, float]] = []
        self._pending: dict[int, tuple[float, float]] = {}
        self._scans = 0

    @property
    def armed(self) -> bool:
        """Whether a detection can wake ARIA now."""
        return self._armed

    def arm(self) -> bool:
        """Let detections count; True if it was not armed (``wake-start`` is due)."""
        was = self._armed
        self._armed = True
        return not was

    def disarm(self) -> bool:
        """Stop detections counting; True if it was armed (``wake-end`` is due)."""
        was = self._armed
        self._armed = False
        return was

    def accept(self, *, audio_s: float, now: float, speaking: bool) -> bool:
        """Whether a detection at ``audio_s`` wakes ARIA; an accepted one disarms the gate.

        Args:
            audio_s: audio time of the frame the wake word ended in, in seconds.
            now: monotonic time of the detection, in seconds (same clock as playback times).
            speaking: whether ARIA's speech is being synthesized or played now.
        """
        if not self._armed:
            return False
        if audio_s - self._last_accepted_audio_s < self.refractory_s:
            return False
        if speaking and self._own_voice(now):
            _LOGGER.debug("Wake word ignored: it was ARIA's own voice")
            return False
        self._last_accepted_audio_s = audio_s
        self._armed = False
        return True

    def scan_started(self, *, play_at: float, duration_s: float) -> int:
        """A piece of speech is being scanned: ignore detections while it plays, until done.

        Args:
            play_at: monotonic time at which the piece starts playing, in seconds.
            duration_s: its length, in seconds.

        Returns:
            The scan's number, for :meth:`scan_finished`.
        """
        self._scans += 1
        self._pending[self._scans] = (play_at, play_at + duration_s + GATE_AFTER_S)
        return self._scans

    def scan_finished(self, scan: int) -> None:
        """Scan number ``scan`` has finished (with or without a result)."""
        self._pending.pop(scan, None)

    def ignore_playback(self, *, play_at: float, duration_s: float) -> None:
        """Ignore detections while a piece of speech that could not be scanned plays.

        Args:
            play_at: monotonic time at which the piece starts playing, in seconds.
            duration_s: its length, in seconds.
        """
        self._windows.append((play_at, play_at + duration_s + GATE_AFTER_S))

    def ignore_own_wake_words(self, *, play_at: float, offsets_s: list[float]) -> None:
        """Ignore detections around the moments where ARIA's speech says the wake word.

        Args:
            play_at: monotonic time at which the piece starts playing, in seconds.
            offsets_s: where the scan found the wake word, seconds into the piece.
        """
        for offset in offsets_s:
            at = play_at + offset
            self._windows.append((at - GATE_BEFORE_S, at + GATE_AFTER_S))

    def _own_voice(self, now: float) -> bool:
        if any(a <= now <= b for a, b in self._pending.values()):
            return True  # ARIA's speech is playing and not yet checked
        self._windows = [(a, b) for a, b in self._windows if b >= now - _KEEP_S]
        return any(a <= now <= b for a, b in self._windows)


class SelfSpeechScanner(Protocol):
    """Finds where synthesized speech would fire the wake word (seconds into the audio)."""

    async def scan_speech(self, audio: SpeechAudio) -> list[float] | None: ...
