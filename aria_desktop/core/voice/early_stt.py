"""Transcribing a command during the pause that may end it, before the endpoint is sure.

A command ends after ``silence_s`` (0.7 s) of silence, and Whisper then needs about as long
again for a short command on these machines (its encoder always runs on a 30 s window), so the
user waited for both in turn. At ``early_s`` of that silence (``SegmentEvent.PAUSED``) the
words said so far are handed to speech-to-text at once; when the command does end in that
pause, the transcript is ready or nearly so when the endpoint comes. Speech-to-text gets the
same audio either way — a command that ends by silence is transcribed up to the pause
(``CommandRecording.audio``) — so the early result is exactly the one it would have waited
for. When the speaker goes on instead, the early result is dropped and the next pause starts
another (``aria bench skills``: end of speech -> first reply audio).
"""

from __future__ import annotations

import asyncio
import contextlib

from aria_desktop.core.voice.endpointing import CommandRecording
from aria_desktop.core.voice.models import VoiceModels
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip, Transcript

__all__ = ["EarlyTranscription"]


class EarlyTranscription:
    """At most one transcription begun at a pause, and the audio it was given."""

    def __init__(self) -> None:
        self._task: asyncio.Task[Transcript] | None = None
        self._audio = b""
        self._starts_with = ""

    def start(
        self,
        recording: CommandRecording,
        speech: SpeechService,
        models: VoiceModels,
        language: str | None,
    ) -> None:
        """Mark the pause in ``recording`` and transcribe what was said before it.

        Nothing starts while the speech-to-text model is still loading (the command then
        waits for it after the endpoint, as before).
        """
        recording.cut = len(recording.frames)
        self.cancel()
        stt = speech.stt
        if stt is None or not models.ready("stt"):
            return
        self._audio = recording.audio("silence")
        self._starts_with = recording.starts_with
        clip = AudioClip(pcm=self._audio, sample_rate_hz=PIPELINE_RATE_HZ)
        self._task = asyncio.create_task(
            stt.transcribe(clip, language=language, starts_with=recording.starts_with),
            name="aria-voice-early-stt",
        )
        self._task.add_done_callback(_retrieve)

    def take(self, audio: bytes, starts_with: str) -> asyncio.Task[Transcript] | None:
        """The transcription of exactly ``audio`` if one was begun (it is handed over once)."""
        task, same = self._task, self._audio == audio and self._starts_with == starts_with
        self._task, self._audio = None, b""
        if task is not None and same:
            return task
        if task is not None:
            task.cancel()
        return None

    def cancel(self) -> None:
        """Drop a transcription begun earlier (the speaker went on, or listening stopped)."""
        if self._task is not None:
            self._task.cancel()
        self._task, self._audio = None, b""


def _retrieve(task: asyncio.Task[Transcript]) -> None:
    """Collect a dropped transcription's failure (the one handed over raises it again)."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.exception()
