"""Endpointing: when a spoken command starts and ends, decided from per-frame speech flags.

Pure and clock-free (no I/O, no time source): the capture loop feeds each frame's duration and
whether the voice activity detector called it speech, and acts on what comes back. Keeping the
rules here, apart from the audio I/O, lets them be tested with plain lists of booleans (see
``aria_desktop/ARCHITECTURE.md``, "One voice turn").

Also here: the pre-roll ring buffer (audio kept from before the wake word) and the loudness of a
frame for the level meter.
"""

from __future__ import annotations

import array
import enum
import math
import sys
from collections import deque
from dataclasses import dataclass, field

from aria_desktop.domain.audio import PIPELINE_RATE_HZ

__all__ = ["CommandRecording", "PreRoll", "SegmentEvent", "SpeechSegmenter", "rms_dbfs"]


class SegmentEvent(enum.Enum):
    """What a frame did to the command being recorded.

    The values of the three endings are the ``reason`` of the ``stt-vad-end`` event.
    """

    SPEECH_STARTED = "speech_started"
    """The first speech frame of the command (``stt-vad-start``)."""
    SILENCE = "silence"
    """Speech was followed by ``silence_s`` of silence: the command is complete."""
    MAX_LENGTH = "max_length"
    """The command reached ``max_s`` (also while push-to-talk is held)."""
    NO_SPEECH = "no_speech"
    """No speech began within ``no_speech_timeout_s``: nothing was said."""
    PAUSED = "paused"
    """Speech was followed by ``early_s`` of silence: the command may be over (it is not an
    ending: speech-to-text may start on what was said, ``core/voice/early_stt.py``)."""


@dataclass(kw_only=True)
class SpeechSegmenter:
    """Finds the end of one command from a stream of ``(frame_duration_s, is_speech)``.

    One instance per command (a new listening starts a new segmenter, so nothing carries
    over). Rules, checked after each frame in this order:

    1. the recording reached ``max_s``: ``MAX_LENGTH`` (always, even while held);
    2. ``hold`` (push-to-talk held down): nothing else ends it, the release does;
    3. speech began and the silence since the last speech frame reached ``silence_s``:
       ``SILENCE`` (any speech frame resets the silence);
    4. no speech yet and ``no_speech_timeout_s`` has been recorded: ``NO_SPEECH``;
    5. otherwise, once per pause, when the silence reached ``early_s`` (0 < ``early_s`` <
       ``silence_s``): ``PAUSED``.

    A single speech frame starts the command (the detector's threshold already decides what
    counts as speech). Durations are summed frame by frame, as recorded.

    Attributes:
        silence_s: silence after speech that ends the command, in seconds.
        max_s: longest command, in seconds.
        no_speech_timeout_s: how long to wait for speech to begin, in seconds.
        hold: push-to-talk is held: only ``max_s`` ends the command here.
        early_s: silence after speech that reports ``PAUSED``, in seconds (0: never).
        speech_started: whether a speech frame has been seen.
        heard_s: audio recorded for the command so far, in seconds.
        trailing_silence_s: silence since the last speech frame (0 before speech), seconds.
        ended: how the command ended (None while it goes on).
    """

    silence_s: float
    max_s: float
    no_speech_timeout_s: float
    hold: bool = False
    early_s: float = 0.0
    speech_started: bool = field(default=False, init=False)
    heard_s: float = field(default=0.0, init=False)
    trailing_silence_s: float = field(default=0.0, init=False)
    ended: SegmentEvent | None = field(default=None, init=False)
    _paused: bool = field(default=False, init=False)

    def process(self, frame_duration_s: float, is_speech: bool) -> tuple[SegmentEvent, ...]:
        """Account for one frame; returns what happened (empty: nothing).

        At most two events: ``SPEECH_STARTED`` and, in the same frame, an ending. Frames
        after an ending are ignored (the caller has stopped recording).
        """
        if self.ended is not None:
            return ()
        events: list[SegmentEvent] = []
        self.heard_s += frame_duration_s
        if is_speech:
            if not self.speech_started:
                self.speech_started = True
                events.append(SegmentEvent.SPEECH_STARTED)
            self.trailing_silence_s = 0.0
            self._paused = False
        elif self.speech_started:
            self.trailing_silence_s += frame_duration_s
        ending = self._ending()
        if ending is not None:
            self.ended = ending
            events.append(ending)
        elif self._pausing():
            self._paused = True
            events.append(SegmentEvent.PAUSED)
        return tuple(events)

    def _pausing(self) -> bool:
        return (
            not self._paused
            and not self.hold
            and 0 < self.early_s < self.silence_s
            and self.speech_started
            and self.trailing_silence_s >= self.early_s
        )

    def _ending(self) -> SegmentEvent | None:
        if self.heard_s >= self.max_s:
            return SegmentEvent.MAX_LENGTH
        if self.hold:
            return None
        if self.speech_started and self.trailing_silence_s >= self.silence_s:
            return SegmentEvent.SILENCE
        if not self.speech_started and self.heard_s >= self.no_speech_timeout_s:
            return SegmentEvent.NO_SPEECH
        return None


class PreRoll:
    """The last seconds of audio heard while waiting for the wake word.

    A command spoken right after the wake word (or as push-to-talk is pressed) starts with
    these frames, so its first syllable is not clipped. One ring serves both: it keeps the
    longer of the two lengths, and each trigger takes as much as it needs (``take``).

    Args:
        preroll_s: how much audio to keep, in seconds (at least one frame is kept).
        frame_s: duration of one frame, in seconds.
    """

    def __init__(self, *, preroll_s: float, frame_s: float) -> None:
        self._frame_s = frame_s
        self._frames: deque[bytes] = deque(maxlen=self._count(preroll_s))

    def _count(self, seconds: float) -> int:
        return max(1, round(seconds / self._frame_s))

    @property
    def capacity(self) -> int:
        """How many frames are kept."""
        return self._frames.maxlen or 1

    def append(self, frame: bytes) -> None:
        """Keep ``frame``, dropping the oldest one when full."""
        self._frames.append(frame)

    def take(self, seconds: float | None = None) -> list[bytes]:
        """The newest ``seconds`` of kept frames (all by default), oldest first; then empty."""
        frames = list(self._frames)
        self._frames.clear()
        if seconds is None:
            return frames
        return frames[-self._count(seconds) :]

    def clear(self) -> None:
        """Forget the kept frames."""
        self._frames.clear()


@dataclass
class CommandRecording:
    """The command being recorded: what started it, its frames, where it ends."""

    trigger: str
    segmenter: SpeechSegmenter
    frames: list[bytes] = field(default_factory=list)
    starts_with: str = ""
    """The wake phrase the audio begins with ("hey jarvis"), told to the transcription."""
    cut: int = 0
    """Frames up to the last ``PAUSED`` (0: none): a command that ends in that pause is
    transcribed from these, so a transcription begun there is the one it needs."""

    @property
    def audio_ms(self) -> float:
        """Length of the audio recorded for the command (16 kHz mono int16), milliseconds."""
        return sum(len(frame) for frame in self.frames) / 2 / PIPELINE_RATE_HZ * 1000

    def audio(self, reason: str) -> bytes:
        """The audio speech-to-text gets for a command that ended for ``reason``.

        Ended by silence after a pause was reported: the frames up to that pause (the silence
        after it adds nothing to say). Any other ending: every frame.
        """
        frames = self.frames[: self.cut] if reason == SegmentEvent.SILENCE.value else self.frames
        return b"".join(frames or self.frames)


def rms_dbfs(frame: bytes) -> float:
    """Loudness of 16-bit little-endian PCM in dB relative to full scale (-100 for silence)."""
    samples = array.array("h")
    samples.frombytes(frame[: len(frame) - len(frame) % 2])
    if sys.byteorder == "big":  # pragma: no cover - PCM is little-endian
        samples.byteswap()
    if not samples:
        return -100.0
    mean_square = math.fsum(s * s for s in samples) / len(samples)
    if mean_square <= 0:
        return -100.0
    return max(-100.0, 10 * math.log10(mean_square / (32768.0 * 32768.0)))
