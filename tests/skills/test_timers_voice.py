"""Saying "stop" to a ringing timer, without the wake word, through the real voice pipeline.

The owner as ``aria daemon`` runs it (``start_owner``: voice with real Silero VAD, Whisper,
openWakeWord and Piper; no model). The microphone is a live stand-in fed with Piper speech,
the speaker a WAV file, and the ring a stand-in for the sound device that rings until stopped.
While the timer rings, the pipeline listens without the wake word: "stop" silences the ring;
anything else heard meanwhile is dropped and never becomes a turn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import WavSink
from aria_desktop.compose.owner import Owner, start_owner
from aria_desktop.core.skills.announcing import DesktopAnnouncer
from aria_desktop.domain.events import RunStart
from aria_desktop.domain.skill_events import TimerFinished
from aria_desktop.domain.voice_events import SttEnd, SttStart
from aria_desktop.settings import (
    ApiSettings,
    LLMSettings,
    MemorySettings,
    OllamaSettings,
    Settings,
    StorageSettings,
    VoiceSettings,
)
from tests.skills.test_timers_ring import HeldRing
from tests.voice.conftest import SpeechMaker, piper, say_piper, speech_dir, steady_piper
from tests.voice.test_pipeline import LiveSource

__all__ = ["piper", "say_piper", "speech_dir", "steady_piper"]  # fixtures shared with tests/voice

pytestmark = pytest.mark.slow


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        llm=LLMSettings(
            ollama=OllamaSettings(url="http://127.0.0.1:9"), chains={"chat": ("ollama",)}
        ),
        storage=StorageSettings(database=str(tmp_path / "aria.db")),
        memory=MemorySettings(embedder="none", auto_extract=False),
        voice=VoiceSettings(enabled=True, follow_up_s=0.0),  # the wake word is on ("hey jarvis")
        api=ApiSettings(port=0),
    )


async def _voice_ready(owner: Owner) -> None:
    async with asyncio.timeout(120):  # the voice models load in the background
        while True:
            voice = next(c for c in owner.app.orchestrator.capabilities() if c.name == "voice")
            if voice.available and voice.enabled:
                return
            await asyncio.sleep(0.1)


async def _until(check: object, timeout_s: float) -> None:
    async with asyncio.timeout(timeout_s):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def _heard(events: object, timeout_s: float = 60) -> SttEnd:
    """The next transcript of a hands-free utterance (no turn may start meanwhile)."""
    hands_free = False
    async with asyncio.timeout(timeout_s):
        async for event in events:  # type: ignore[attr-defined]
            assert not isinstance(event, RunStart), "something heard became a turn"
            if isinstance(event, SttStart):
                hands_free = event.trigger == "hands-free"
            elif isinstance(event, SttEnd) and hands_free and event.text:
                return event
    raise AssertionError("the bus closed")


async def test_stop_said_without_the_wake_word_silences_a_ringing_timer(
    tmp_path: Path, say_piper: SpeechMaker
) -> None:
    source = LiveSource()
    sink = WavSink(tmp_path / "spoken.wav")
    owner = await start_owner(
        _settings(tmp_path), voice_source_factory=lambda: source, voice_sink=sink
    )
    try:
        await _voice_ready(owner)
        skills = owner.app.skills
        assert skills is not None
        assert skills.timers is not None
        announcer: DesktopAnnouncer | None = skills.announcer
        assert announcer is not None
        ring = HeldRing()
        announcer.ring = ring
        async with owner.app.orchestrator.bus.subscribe() as events:
            await skills.timers.start_timer(1, name="tea")
            async with asyncio.timeout(10):
                async for event in events:
                    if isinstance(event, TimerFinished):
                        break
            await _until(lambda: announcer.ringing and ring.playing.is_set(), 10)

            source.inject(say_piper("What a lovely evening it is."))  # not for the ring
            other = await _heard(events)
            assert "evening" in other.text.lower()
            await source.consumed()
            assert announcer.ringing  # dropped: it was not "stop"

            source.inject(say_piper("Stop."))  # no wake word
            heard = await _heard(events)
            assert heard.text.lower().strip(" .!") == "stop"
            await _until(lambda: not announcer.ringing, 10)
    finally:
        await asyncio.wait_for(owner.stop(), timeout=30)
        await sink.aclose()
