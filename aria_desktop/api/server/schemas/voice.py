"""Bodies of voice: speaking, transcripts, listening and push-to-talk."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from aria_desktop.api.server.schemas.common import FromDomain, StrictTypes

__all__ = [
    "ListenOut",
    "PushToTalkIn",
    "PushToTalkOut",
    "SpeakIn",
    "TranscriptOut",
]


class SpeakIn(StrictTypes):
    """Text to say; ``play`` also plays it on ARIA's speaker (the WAV is returned either way)."""

    text: str = Field(min_length=1, max_length=5000, pattern=r"\w")
    play: bool = False


class TranscriptOut(FromDomain):
    """What speech-to-text heard (``audio_s`` seconds of audio, ``latency_ms`` to recognise)."""

    text: str
    language: str = ""
    audio_s: float = 0.0
    latency_ms: float = 0.0
    engine: str = ""


class ListenOut(BaseModel):
    """A listen turn was started: what to watch on ``GET /events``."""

    status: Literal["listening"] = "listening"
    events: list[str] = Field(
        default_factory=lambda: [
            "stt-vad-start",
            "stt-vad-end",
            "stt-start",
            "stt-end",
            "run-start",
            "llm-delta",
            "run-end",
            "tts-start",
            "tts-end",
            "error",
        ]
    )


class PushToTalkIn(StrictTypes):
    """A push-to-talk key event from a remote button or script.

    ``press`` starts listening and ``release`` ends the command (hold-to-talk: a command that
    is never released still ends at ``voice.vad.max_s``); ``toggle`` starts or ends it;
    ``listen`` starts listening and ends at the next pause (like ``POST /listen``).
    ``purpose`` ``dictate`` types the words into the focused window instead of asking ARIA
    (``dictation-end`` says what was typed).
    """

    action: Literal["press", "release", "toggle", "listen"]
    purpose: Literal["ask", "dictate"] = "ask"


class PushToTalkOut(BaseModel):
    """The key event was taken: what to watch on ``GET /events``."""

    action: Literal["press", "release", "toggle", "listen"]
    events: list[str] = Field(default_factory=lambda: ListenOut().events)
