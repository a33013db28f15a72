"""Whisper as ARIA runs it: full-window beam search, names from memory, no invented names,
and a wake word that rejects look-alikes (real tiny.en, Piper, espeak-ng, openWakeWord)."""

from __future__ import annotations

import pytest

from aria_desktop.adapters.voice.audio import pcm_to_float32
from aria_desktop.adapters.voice.piper_tts import PiperTTS
from aria_desktop.adapters.voice.wake_check import MAX_PHRASE_COST, WakePhraseCheck, written_forms
from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.bench.voice_corpus import Voice, synthesize
from aria_desktop.bench.voice_wake import LOOK_ALIKE_VOICES, LOOK_ALIKES, PIPER_IN_NOISE, detections
from aria_desktop.core.voice.stt_vocabulary import SttVocabulary
from aria_desktop.domain.audio import AudioClip
from aria_desktop.domain.memory import MemoryDraft
from tests.fakes.ports import InMemoryMemoryStore

pytestmark = pytest.mark.slow

_ESPEAK = Voice("espeak en-us", "espeak", "en-us", 160)
_PIPER = Voice("piper joe", "piper")
_UNSPOKEN = (
    "Kowalski",
    "Oluwaseun",
    "Wojciech",
    "Ljubljana",
    "Krita",
    "Siobhan",
    "Margarethe",
    "Nakamura",
)


async def test_a_name_in_memory_is_heard_where_plain_decoding_mishears_it(
    whisper: WhisperSTT, steady_piper: PiperTTS
) -> None:
    (pcm,) = await synthesize(["Call Nakamura at four o'clock."], _PIPER, piper={1.0: steady_piper})
    plain = await whisper.transcribe(AudioClip(pcm=pcm))
    assert "nakamura" not in plain.text.lower()  # the premise: tiny.en alone mishears the name
    store = InMemoryMemoryStore()
    for fact in (
        "My colleague Dmitri sits next to me.",
        "Mr Nakamura is the landlord.",
        "My aunt Margarethe lives in Vienna.",
    ):
        await store.add(MemoryDraft(content=fact))
    try:
        await SttVocabulary(target=whisper, fixed=(), store=store).refresh()
        assert "Nakamura" in whisper.vocabulary
        biased = await whisper.transcribe(AudioClip(pcm=pcm))
    finally:
        whisper.set_vocabulary(())
    assert "nakamura" in biased.text.lower(), biased.text


async def test_a_name_in_memory_is_heard_in_a_command_said_after_the_wake_word(
    whisper: WhisperSTT, steady_piper: PiperTTS
) -> None:
    # The wake phrase is the decoding's prefix there, and faster-whisper ignores ``hotwords``
    # whenever a prefix is given: the names must still reach the decoder.
    said = "Hey Jarvis, call Nakamura at four o'clock."
    (pcm,) = await synthesize([said], _PIPER, piper={1.0: steady_piper})
    clip = AudioClip(pcm=pcm)
    # tiny.en alone usually mishears the name here, though not in every run: its
    # decoding falls back to sampling on a doubtful segment, so that premise is not asserted;
    # the name must be heard with the names given, every time.
    whisper.set_vocabulary(("Dmitri", "Nakamura", "Margarethe"))
    try:
        biased = await whisper.transcribe(clip, starts_with="hey jarvis")
    finally:
        whisper.set_vocabulary(())
    assert biased.text.startswith("Hey Jarvis,"), biased.text
    assert "nakamura" in biased.text.lower(), biased.text


@pytest.mark.timeout(600)
async def test_a_suggested_name_that_is_not_said_never_appears(
    whisper: WhisperSTT, steady_piper: PiperTTS
) -> None:
    commands = [
        "What is fifteen times twelve?",  # plain hotwords gave "Wojciech 15 times 12"
        "Call Priya Raman tomorrow at seven thirty p.m.",  # ... and "Kowalski, Oluwaseun,"
        "How long does it take to drive to Eindhoven?",  # ... and "At Ljubljana, it takes"
        "Turn off the lights in the living room.",
    ]
    clips = await synthesize(commands, _ESPEAK, piper={}) + await synthesize(
        commands, _PIPER, piper={1.0: steady_piper}
    )
    whisper.set_vocabulary(_UNSPOKEN)
    try:
        texts = [(await whisper.transcribe(AudioClip(pcm=pcm))).text for pcm in clips]
    finally:
        whisper.set_vocabulary(())
    invented = [t for t in texts if any(name.lower() in t.lower() for name in _UNSPOKEN)]
    assert not invented


@pytest.mark.parametrize(
    ("biased", "plain", "said"),
    [
        # what CI's tiny.en heard with the unspoken names suggested, on another CPU
        ("Kowalski, Rijareman, tomorrow at 730 pm", "call rear ramen tomorrow at 730 p.m.", False),
        ("Kowalski, Riya Raman, tomorrow at 730pm", "call rear ramen tomorrow at 730 p.m.", False),
        ("Call Priya Raman tomorrow at 7.30pm.", "call rear ramen tomorrow at 730 p.m.", True),
    ],
)
async def test_the_model_judges_whether_a_suggested_name_was_said(
    whisper: WhisperSTT, biased: str, plain: str, said: bool
) -> None:
    """Each name's place is fine by the word alignment ("Kowalski" for "call"); only the
    unbiased model's probability of the whole transcript tells a mishearing fixed from a name
    made up, whatever the CPU's rounding made of the transcripts."""
    (pcm,) = await synthesize(["Call Priya Raman tomorrow at seven thirty p.m."], _ESPEAK, piper={})
    whisper.set_vocabulary(("Priya Raman", *_UNSPOKEN))
    try:
        assert await whisper.names_heard(AudioClip(pcm=pcm), biased, plain) is said
    finally:
        whisper.set_vocabulary(())


async def test_a_command_is_encoded_once_however_many_decodings_it_takes(
    whisper: WhisperSTT, steady_piper: PiperTTS, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With names suggested a command may be decoded with and without them and both
    transcripts scored: the encoder (most of a short command's time) runs once."""
    (pcm,) = await synthesize(["Call Nakamura at four o'clock."], _PIPER, piper={1.0: steady_piper})
    encoder = whisper._encoder
    assert encoder is not None
    windows: list[object] = []
    encode = encoder._encode

    def counted(features: object) -> object:
        windows.append(features)
        return encode(features)

    monkeypatch.setattr(encoder, "_encode", counted)
    monkeypatch.setattr(encoder, "_last", None)
    whisper.set_vocabulary(("Nakamura", "Kowalski"))
    try:
        first = await whisper.transcribe(AudioClip(pcm=pcm))
        again = await whisper.transcribe(AudioClip(pcm=pcm))
    finally:
        whisper.set_vocabulary(())
    assert len(windows) == 1
    assert first.text == again.text


async def test_the_full_window_is_used_exactly_as_faster_whisper_decodes_it(
    whisper: WhisperSTT, steady_piper: PiperTTS
) -> None:
    """Without names to suggest, ARIA's transcript of a command is faster-whisper's default
    decoding: beam 5 over the padded 30 s window (a speech-fitted window, even with the full
    window for what it doubts, changed about half the transcripts on the accuracy set, so it
    is an opt-in setting, not the default)."""
    from faster_whisper import WhisperModel

    from aria_desktop.adapters.voice.whisper_models import whisper_model_path

    model = WhisperModel(
        str(whisper_model_path("tiny.en")), device="cpu", compute_type="int8", cpu_threads=2
    )
    commands = ["Set an alarm for six forty five a.m.", "Remind me on December twelfth."]
    for pcm in await synthesize(commands, _PIPER, piper={1.0: steady_piper}):
        segments, _info = model.transcribe(pcm_to_float32(pcm))  # its defaults
        expected = " ".join(s.text.strip() for s in segments).strip()
        assert (await whisper.transcribe(AudioClip(pcm=pcm))).text == expected
        assert whisper.last_window_s == 30.0  # the path ARIA uses by default: the full window


@pytest.mark.timeout(600)
async def test_look_alikes_never_wake_aria_and_the_wake_phrase_in_noise_does(
    whisper: WhisperSTT, piper: PiperTTS
) -> None:
    detector = OpenWakeWordDetector(
        ("hey_jarvis",), confirm=WakePhraseCheck(whisper, ("hey jarvis",))
    )
    await detector.load()
    engines = {1.0: piper}
    false_wakes = [
        f"{phrase} ({voice.label})"
        for voice in LOOK_ALIKE_VOICES
        for phrase, pcm in zip(
            LOOK_ALIKES, await synthesize(LOOK_ALIKES, voice, piper=engines), strict=True
        )
        if await detections(detector, pcm)
    ]
    assert len(LOOK_ALIKES) >= 10
    assert not false_wakes
    woke = 0
    for index, voice in enumerate(PIPER_IN_NOISE):
        (pcm,) = await synthesize(["Hey Jarvis."], voice, piper=engines, seed=40 + index)
        woke += bool(await detections(detector, pcm))
    assert woke >= 9, f"woke on {woke} of {len(PIPER_IN_NOISE)}"


async def test_a_wake_phrase_the_quick_transcript_garbles_is_judged_said_a_look_alike_not(
    whisper: WhisperSTT,
) -> None:
    """The model's judgement, teacher-forced on fixed transcripts (a greedy decoding of these
    clips may differ between CPUs): the greedy transcripts these clips got when measured."""
    forms = written_forms("hey jarvis")
    silence = b"\0" * 32_000
    accent = Voice("espeak en-us+m4 in noise", "espeak", "en-us+m4", 180, snr_db=10.0)
    (said,) = await synthesize(["Hey Jarvis."], accent, piper={}, seed=22)
    said_cost = await whisper.phrase_cost((silence + said)[-64_000:], "Hey Jardobista!", forms)
    assert said_cost <= MAX_PHRASE_COST, said_cost
    other = Voice("espeak en-029", "espeak", "en-029", 160)
    (look_alike,) = await synthesize(["Hey Janice"], other, piper={})
    other_cost = await whisper.phrase_cost(
        (silence + look_alike)[-64_000:], "Here, jammies.", forms
    )
    assert other_cost > MAX_PHRASE_COST, other_cost
