"""Spoken commands end to end: espeak-ng speaks, Whisper tiny.en transcribes, a skill is matched.

The speech-to-text engine is the one ARIA builds from its settings (``compose/voice.build_stt``)
and the router the one a voice turn asks (``source="voice"``), in an ARIA with no model. The
audio is padded as push-to-talk hands it over: pre-roll before the words, and after them the
silence up to the pause where the transcription begins (``voice`` early transcription). The
whole corpus in many voices is ``aria bench skills --accuracy``.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator

import pytest

from aria_desktop.bench.voice_corpus import Voice, speak
from aria_desktop.compose.app import App
from aria_desktop.compose.voice import build_stt
from aria_desktop.core.ports import SpeechToText
from aria_desktop.core.voice.parts import VoiceConfig
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng"),
]

_VOICE = Voice("espeak en-gb 150 wpm", "espeak", "en-gb", 150)


@pytest.fixture
async def stt(app: App) -> AsyncIterator[SpeechToText]:
    engine = build_stt(app.settings)
    await engine.load()
    yield engine
    await engine.aclose()


async def _heard(stt: SpeechToText, text: str) -> str:
    config = VoiceConfig()
    pad = b"\0" * (int(config.preroll_s * PIPELINE_RATE_HZ) * 2)
    tail = b"\0" * (int(config.early_stt_s * PIPELINE_RATE_HZ) * 2)
    words = await speak(text, _VOICE, piper={})
    return (await stt.transcribe(AudioClip(pcm=pad + words + tail))).text


@pytest.mark.parametrize(
    ("said", "intent", "slots"),
    [
        ("What time is it?", "HassGetCurrentTime", {}),
        ("Set a timer for ten minutes.", "HassStartTimer", {"minutes": 10}),
        ("Add milk to my shopping list.", "HassListAddItem", {"item": "milk"}),
        ("What's on my shopping list?", "AriaListRead", {}),
    ],
)
async def test_a_spoken_command_is_matched_to_its_intent_and_slots(
    app: App, stt: SpeechToText, said: str, intent: str, slots: dict[str, object]
) -> None:
    assert app.skills is not None
    heard = await _heard(stt, said)
    found = app.skills.router.match(heard, "voice")
    assert found is not None, heard
    assert found.intent == intent, heard
    for name, value in slots.items():
        assert found.slots[name] == value, heard


async def test_a_spoken_question_with_a_command_word_goes_to_the_model(
    app: App, stt: SpeechToText
) -> None:
    assert app.skills is not None
    heard = await _heard(stt, "Which timer app is best for cooking?")
    assert "timer" in heard.lower()
    assert app.skills.router.match(heard, "voice") is None
