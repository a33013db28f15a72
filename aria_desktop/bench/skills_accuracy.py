"""``aria bench skills --accuracy``: spoken commands matched to the right intent and slots.

Every sentence of ``bench/skills_corpus.py`` (commands with their intent and slots, and
sentences that only contain command words) is spoken by every voice there (espeak-ng accents
and speeds, Piper's joe at two speeds; German by espeak-ng ``de`` voices), padded as the voice
pipeline hands a push-to-talk command to speech-to-text, transcribed by the configured engine
built through ``compose/`` (Whisper tiny.en; base with ``voice.stt.language = "de"``), and
matched by the skill router of an ARIA built with no model: ``source="voice"`` (fuzzy matching
after the exact attempt) and, beside it, with fuzzy matching off.

Per half of the voices (the split is fixed in the corpus module; settings are tuned on the
tuning half only, its misheard commands are listed for that), the figures are:

- intent accuracy: commands matched to their intent;
- slot accuracy: commands matched to their intent with every expected slot right;
- wrong: commands matched to another intent or with a wrong slot (a wrong action);
- false captures: non-commands matched to any intent (a wrong answer instead of the model's).

A command the router does not answer when typed (its skill is not here, an app that is not
installed) is left out and listed. Generated speech and transcripts are cached under
``<cache_dir>/bench-skills`` (keyed by the voice, the text, the engine and its settings).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aria_desktop import paths
from aria_desktop.bench.skills_corpus import CHECKING, COMMANDS, NON_COMMANDS, TUNING, Said
from aria_desktop.bench.skills_corpus import voice_language as language_of
from aria_desktop.bench.voice_corpus import Voice, speak
from aria_desktop.core.voice.wer import normalize as said_words
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip, decode_wav, encode_wav
from aria_desktop.domain.intents import IntentMatch
from aria_desktop.domain.lists import canonical_list_name

__all__ = ["run_skills_accuracy"]

_MODELS = {"en": "tiny.en", "de": "base"}
_LEAD_S = 0.5
"""Silence before the words: push-to-talk's pre-roll (``voice.vad.preroll_s``)."""
_APPS = {
    "firefox": ("Firefox Web Browser", "Web Browser"),
    "org.gnome.Calculator": ("Calculator", "Calculator"),
    "org.gnome.TextEditor": ("Text Editor", "Text Editor"),
    "org.gnome.Terminal": ("Terminal", "Terminal"),
    "org.gnome.Nautilus": ("Files", "File Manager"),
}
"""Desktop entries the run installs in its own ``XDG_DATA_HOME`` ("open Firefox" needs one)."""


@dataclass
class _Score:
    """Counts for one half (or one voice) and one setting (fuzzy on or off)."""

    commands: int = 0
    intent_ok: int = 0
    slots_ok: int = 0
    wrong: int = 0
    others: int = 0
    captured: int = 0

    def line(self) -> str:
        def share(part: int, whole: int) -> str:
            return f"{part / whole:6.1%}" if whole else "     -"

        return (
            f"intent {share(self.intent_ok, self.commands)}  slots "
            f"{share(self.slots_ok, self.commands)}  wrong {share(self.wrong, self.commands)}"
            f"  false captures {share(self.captured, self.others)}"
            f" ({self.captured}/{self.others})"
        )


@dataclass
class _Half:
    """One half's scores (fuzzy on / off), per voice, and its clips that went wrong."""

    total: dict[bool, _Score] = field(default_factory=lambda: {True: _Score(), False: _Score()})
    voices: dict[str, dict[bool, _Score]] = field(default_factory=dict)
    families: dict[str, dict[bool, _Score]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


async def run_skills_accuracy(*, stt_uri: str = "") -> None:
    """Speak, transcribe and match the corpus in every voice; print both halves.

    ``stt_uri``: a Wyoming speech-to-text server hears the commands instead of this computer
    (no fallback: its misses count).
    """
    cache = paths.cache_dir() / "bench-skills"
    halves = {"tuning": _Half(), "checking": _Half()}
    left_out: dict[str, set[str]] = defaultdict(set)
    with tempfile.TemporaryDirectory(prefix="aria-bench-skills-accuracy-") as tmp:
        _install_apps(Path(tmp) / "xdg")
        for language in ("en", "de"):
            app, stt = await _build(Path(tmp) / language, language, stt_uri)
            try:
                router = app.skills.router
                sentences = _answered_when_typed(router, language, left_out[language])
                for name, voices in (("tuning", TUNING), ("checking", CHECKING)):
                    for voice in voices:
                        if language_of(voice) == language:
                            await _score_voice(
                                halves[name], router, stt, voice, sentences, cache, name
                            )
            finally:
                await stt.aclose()
                await app.aclose()
    _print(halves, left_out, stt_uri)


def _install_apps(folder: Path) -> None:
    """A private ``XDG_DATA_HOME`` with the corpus's applications (and no system ones)."""
    apps = folder / "applications"
    apps.mkdir(parents=True)
    for file, (name, generic) in _APPS.items():
        (apps / f"{file}.desktop").write_text(
            f"[Desktop Entry]\nType=Application\nName={name}\nGenericName={generic}\nExec=true\n",
            encoding="utf-8",
        )
    os.environ["XDG_DATA_HOME"] = str(folder)
    os.environ["XDG_DATA_DIRS"] = str(folder / "none")


async def _build(folder: Path, language: str, stt_uri: str = "") -> tuple[Any, Any]:
    """ARIA with no model, and its speech-to-text for ``language``, both through compose/."""
    from aria_desktop.bench.skills import use_dirs
    from aria_desktop.compose.app import build_app
    from aria_desktop.compose.voice import build_stt
    from aria_desktop.settings import load_settings

    settings_file = use_dirs(folder)
    env = {
        "ARIA_LLM__OLLAMA__URL": "http://127.0.0.1:9",
        "ARIA_MEMORY__EMBEDDER": "none",
        "ARIA_MEMORY__AUTO_EXTRACT": "false",
        "ARIA_VOICE__STT__MODEL": _MODELS[language],
    }
    if language != "en":
        env["ARIA_VOICE__STT__LANGUAGE"] = language
    if stt_uri:
        env.update(
            ARIA_VOICE__STT__ENGINE="wyoming",
            ARIA_VOICE__STT__WYOMING_URI=stt_uri,
            ARIA_VOICE__STT__FALLBACK="false",
        )
    settings = load_settings(settings_file, env=env)
    app = await build_app(settings)
    stt = build_stt(settings)
    await stt.load()
    return app, stt


def _answered_when_typed(router: Any, language: str, left_out: set[str]) -> list[Said]:
    """The corpus sentences in ``language`` that count: commands the router answers typed."""
    kept: list[Said] = []
    for said in (*COMMANDS, *NON_COMMANDS):
        if said.language != language:
            continue
        if said.intent is not None and not _right(said, router.match(said.text, "text"))[1]:
            left_out.add(said.text)
            continue
        kept.append(said)
    return kept


async def _score_voice(
    half: _Half,
    router: Any,
    stt: Any,
    voice: Voice,
    sentences: Sequence[Said],
    cache: Path,
    name: str,
) -> None:
    scores = half.voices.setdefault(voice.label, {True: _Score(), False: _Score()})
    piper: dict[float, Any] = {}
    for said in sentences:
        pcm = await _speech(cache, voice, said.text, piper)
        heard = await _heard(cache, stt, pcm, said.language)
        for fuzzy in (True, False):
            found = router.match(heard, "voice" if fuzzy else "text")
            family = half.families.setdefault(
                f"{said.family} ({said.language})", {True: _Score(), False: _Score()}
            )
            for score in (scores[fuzzy], half.total[fuzzy], family[fuzzy]):
                _count(score, said, found)
            if fuzzy and name == "tuning" and not _right(said, found)[1]:
                got = f"{found.intent} {dict(found.slots)}" if found else "nothing"
                half.errors.append(f"{voice.label}: {said.text!r} heard {heard!r} -> {got}")


def _count(score: _Score, said: Said, found: IntentMatch | None) -> None:
    if said.intent is None:
        score.others += 1
        score.captured += found is not None
        return
    score.commands += 1
    intent_ok, slots_ok = _right(said, found)
    score.intent_ok += intent_ok
    score.slots_ok += slots_ok
    score.wrong += found is not None and not slots_ok


def _right(said: Said, found: IntentMatch | None) -> tuple[bool, bool]:
    """Whether ``found`` has the intent ``said`` states, and also every expected slot."""
    if said.intent is None:
        return found is None, found is None
    if found is None or found.intent != said.intent:
        return False, False
    return True, all(_same(key, value, found.slots.get(key)) for key, value in said.slots.items())


def _same(key: str, expected: object, got: object) -> bool:
    """A slot as said: numbers by value, list names by the list, words as a listener hears them."""
    if got is None:
        return False
    if isinstance(expected, (int, float)):
        try:
            return float(str(got)) == float(expected)
        except ValueError:
            return False
    if key == "name":
        return canonical_list_name(str(got)) == canonical_list_name(str(expected))
    return said_words(str(got)) == said_words(str(expected))


# --- speech and transcripts, cached ---------------------------------------------------------


def _key(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


async def _speech(cache: Path, voice: Voice, text: str, piper: dict[float, Any]) -> bytes:
    """``text`` in ``voice``, padded as push-to-talk records it; from the cache when there."""
    path = cache / "speech" / f"{_key(voice, text)}.wav"
    if path.exists():
        words = decode_wav(path.read_bytes()).pcm
    else:
        words = await speak(text, voice, piper=piper)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_bytes(encode_wav(words, PIPELINE_RATE_HZ))
        temporary.replace(path)
    return _silence(_LEAD_S) + words + _silence(_tail_s())


def _tail_s() -> float:
    """Silence after the words: what the pipeline hands to speech-to-text after the speech."""
    from aria_desktop.core.voice.parts import VoiceConfig

    config = VoiceConfig()
    return config.early_stt_s or config.silence_s


def _silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * PIPELINE_RATE_HZ) * 2)


async def _heard(cache: Path, stt: Any, pcm: bytes, language: str) -> str:
    """What ``stt`` writes for ``pcm`` (cached by the audio, the engine and its settings)."""
    import faster_whisper

    engine = (stt.name, getattr(stt, "_beam_size", ""), faster_whisper.__version__, language)
    path = cache / "transcripts" / f"{_key(hashlib.sha256(pcm).hexdigest(), *engine)}.json"
    if path.exists():
        text: str = json.loads(path.read_text(encoding="utf-8"))["text"]
        return text
    transcript = await stt.transcribe(AudioClip(pcm=pcm), language=language)
    path.parent.mkdir(parents=True, exist_ok=True)
    heard = str(transcript.text)
    path.write_text(json.dumps({"text": heard}), encoding="utf-8")
    return heard


# --- the report -----------------------------------------------------------------------------


def _print(halves: dict[str, _Half], left_out: dict[str, set[str]], stt_uri: str = "") -> None:
    heard_by = f"the Wyoming server {stt_uri}" if stt_uri else "this computer's Whisper"
    print(f"aria bench skills --accuracy — spoken commands heard by {heard_by}, then the router")
    print(
        f"  voices: tuning {', '.join(v.label for v in TUNING)}; checking "
        f"{', '.join(v.label for v in CHECKING)}"
    )
    for name in ("checking", "tuning"):
        half = halves[name]
        print(f"  {name} half:")
        for fuzzy in (True, False):
            print(f"    fuzzy {'on ' if fuzzy else 'off'}  {half.total[fuzzy].line()}")
        if name == "checking":
            for label, scores in (*half.voices.items(), *sorted(half.families.items())):
                print(f"      {label:<34} fuzzy on  {scores[True].line()}")
    tuning = halves["tuning"]
    if tuning.errors:
        print(f"  tuning half, what went wrong with fuzzy on ({len(tuning.errors)}):")
        for line in tuning.errors:
            print(f"    {line}")
    for language, texts in sorted(left_out.items()):
        if texts:
            print(f"  left out ({language}: not answered here when typed): {sorted(texts)}")
