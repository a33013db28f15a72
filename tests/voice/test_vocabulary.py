"""Names the user uses bias recognition, and a suggested name never appears unheard.

The pure parts (which names, the check against invented names, the wake phrase match, the
number-aware WER) run in the fast loop; the Whisper tests are marked slow.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.vocabulary import MAX_HOTWORDS_CHARS, hotwords_text, supported_by
from aria_desktop.adapters.voice.wake_check import (
    MAX_PHRASE_COST,
    WakePhraseCheck,
    phrase_heard,
    written_forms,
)
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.core.bus import EventBus
from aria_desktop.core.voice.stt_vocabulary import MAX_TERMS, SttVocabulary, names_in_memories
from aria_desktop.core.voice.wer import normalize, word_errors
from aria_desktop.domain.memory import Memory, MemoryDraft
from aria_desktop.domain.memory_events import MemoryChanged
from aria_desktop.settings import (
    MemorySettings,
    Settings,
    StorageSettings,
    SttSettings,
    VoiceSettings,
)
from tests.fakes.ports import InMemoryMemoryStore

NAMES = (
    "Priya Raman",
    "Anneliese",
    "Dmitri",
    "Nakamura",
    "Margarethe",
    "Wojciech",
    "Kowalski",
    "Inkscape",
)


class _Target:
    """Records what the engine was told (the port is one method)."""

    def __init__(self) -> None:
        self.terms: list[str] = []
        self.changed = asyncio.Event()

    def set_vocabulary(self, terms: object) -> None:
        self.terms = list(terms)  # type: ignore[call-overload]
        self.changed.set()


def test_names_come_from_subjects_and_capitalised_words_inside_sentences() -> None:
    memories = [
        Memory(id="mem_1", content="My sister Priya Raman lives in Reykjavik.", importance=0.9),
        Memory(id="mem_2", content="Dmitri prefers tea.", subject="Dmitri", importance=0.5),
        Memory(id="mem_3", content="I like jazz on Mondays. The Friday meeting is at noon."),
    ]
    assert names_in_memories(memories) == ["Priya Raman", "Reykjavik", "Dmitri"]


def test_the_vocabulary_is_capped() -> None:
    memories = [Memory(id=f"mem_{i}", content=f"Met Person{i} today.") for i in range(40)]
    assert len(names_in_memories(memories)) == MAX_TERMS
    hint = hotwords_text([f"Name{i} Surname{i}" for i in range(40)])
    assert 0 < len(hint) <= MAX_HOTWORDS_CHARS
    assert hint.endswith(tuple(f"Surname{i}" for i in range(40)))  # whole names only


async def test_settings_names_first_then_memory_refreshed_when_memory_changes() -> None:
    store = InMemoryMemoryStore()
    await store.add(MemoryDraft(content="Dentist appointments are with Dr Okafor."))
    bus = EventBus()
    target = _Target()
    vocabulary = SttVocabulary(target=target, fixed=["Inkscape", " "], store=store)
    task = asyncio.create_task(vocabulary.follow(bus.subscribe()))
    await asyncio.wait_for(target.changed.wait(), 5)
    assert target.terms == ["Inkscape", "Dr Okafor"]
    target.changed.clear()
    memory, _action = await store.add(MemoryDraft(content="My colleague Dmitri sits next to me."))
    bus.publish(MemoryChanged(memory_id=memory.id, action="added", content=memory.content))
    await asyncio.wait_for(target.changed.wait(), 5)
    assert target.terms[0] == "Inkscape"
    assert sorted(target.terms[1:]) == ["Dmitri", "Dr Okafor"]
    bus.close()
    await asyncio.wait_for(task, 5)


@pytest.mark.parametrize(
    ("biased", "plain", "kept"),
    [
        ("Text Dmitri that I am on my way.", "Text the metri that I am on my way.", True),
        ("Email Anneliese on March 3rd.", "Email analysts on March 3rd.", True),
        ("Call Nakamura at 4 o'clock.", "Call the computer at 4 o'clock.", True),
        ("Open Inkscape and create a drawing.", "Open in Escape and create a drawing.", True),
        ("Kowalski, Wojciech,", "Call Priya Raman tomorrow at 7.30pm", False),  # the list
        ("Wojciech 15 times 12", "What is 15 times 12", False),  # for function words alone
        ("Email Anneliese on Margarethe.", "Email analysts on March 3rd.", False),  # a number
        ("Read my mail, Nakamura.", "Read my mail.", False),  # a name where nothing was heard
    ],
)
def test_a_suggested_name_must_stand_in_place_of_words_that_were_heard(
    biased: str, plain: str, kept: bool
) -> None:
    """The word alignment's part of the check; whether the name sounds like those words is
    the model's call (tests/voice/test_stt_accuracy.py)."""
    assert supported_by(biased, plain, NAMES) is kept


@pytest.mark.parametrize(
    ("text", "heard"),
    [
        ("Hey, Jarvis!", True),
        ("hi jarvis", True),
        ("Hey Janice.", False),
        ("Jarvis.", False),
        ("Hey Travis", False),
        ("Hey, Charlie.", False),
        ("They are missing.", False),
    ],
)
def test_the_wake_phrase_check_wants_both_words(text: str, heard: bool) -> None:
    assert phrase_heard(text, "hey jarvis") is heard


def test_numbers_are_compared_as_said_and_a_mangled_time_is_an_error() -> None:
    said = "Set an alarm for seven thirty p.m. on March third"
    assert word_errors(said, "Set an alarm for 7:30 PM on March 3rd.") == (0, 10)
    assert word_errors(said, "Set an alarm for 730pm on March 3.") == (0, 10)
    assert word_errors(said, "Set an alarm for 0 730 pm on March 3rd")[0] > 0
    assert normalize("the 21st, 100%") == ["the", "twenty", "one", "one", "hundred", "percent"]


async def test_the_owner_keeps_whisper_biased_toward_names_added_to_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The composition root wires memory -> vocabulary -> Whisper (no model is loaded)."""
    from aria_desktop.adapters.voice.audio import WavSink
    from aria_desktop.compose.app import build_app
    from aria_desktop.compose.voice import build_voice, follow_memory_names
    from aria_desktop.domain.memory import NewMemory

    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(tmp_path / name.lower()))
    settings = Settings(
        storage=StorageSettings(database=str(tmp_path / "aria.db")),
        memory=MemorySettings(embedder="none", auto_extract=False),
        voice=dataclasses.replace(VoiceSettings(), stt=SttSettings(vocabulary=("Inkscape",))),
    )
    app = await build_app(settings)
    try:
        pipeline = build_voice(
            settings, app.orchestrator, sink=WavSink(tmp_path / "out.wav"), use_microphone=False
        )
        stt = pipeline.speech.stt
        assert isinstance(stt, WhisperSTT)
        follow_memory_names(app, pipeline)
        assert app.memory is not None
        await app.memory.add_memory(NewMemory(content="My colleague Dmitri sits next to me."))
        async with asyncio.timeout(10):
            while stt.vocabulary != ("Inkscape", "Dmitri"):
                await asyncio.sleep(0.01)
    finally:
        await app.aclose()


class _Judge:
    """A quick transcriber that writes ``text`` and finds the phrase ``cost`` nats less likely."""

    def __init__(self, text: str, cost: float) -> None:
        self.text, self.cost = text, cost
        self.scored: list[tuple[str, tuple[str, ...]]] = []

    async def transcribe_quick(self, pcm: bytes) -> str:
        return self.text

    async def phrase_cost(self, pcm: bytes, heard: str, phrases: Sequence[str]) -> float:
        self.scored.append((heard, tuple(phrases)))
        return self.cost


def test_the_wake_phrase_is_scored_as_whisper_writes_it() -> None:
    assert written_forms("hey jarvis") == (
        "Hey Jarvis.",
        "Hey Jarvis!",
        "Hey, Jarvis.",
        "Hey, Jarvis!",
    )
    assert written_forms("alexa") == ("Alexa.", "Alexa!")


async def test_a_garbled_transcript_wakes_aria_only_when_the_model_finds_the_phrase_as_likely() -> (
    None
):
    said = _Judge("Hey, John, I missed you.", MAX_PHRASE_COST - 0.5)
    assert await WakePhraseCheck(said, ("hey jarvis",))(b"\0" * 64)
    assert said.scored == [("Hey, John, I missed you.", written_forms("hey jarvis"))]
    look_alike = _Judge("Hey Johnny.", MAX_PHRASE_COST + 1.4)
    assert not await WakePhraseCheck(look_alike, ("hey jarvis",))(b"\0" * 64)


async def test_a_transcript_holding_the_phrase_wakes_aria_without_scoring() -> None:
    judge = _Judge("Hey, Jarvis!", 99.0)
    assert await WakePhraseCheck(judge, ("hey jarvis",))(b"\0" * 64)
    assert judge.scored == []
