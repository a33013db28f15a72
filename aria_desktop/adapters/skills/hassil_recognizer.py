"""Sentences to intents with Home Assistant's own parser and templates.

``hassil`` matches a sentence against the templates of ``home-assistant-intents`` (the intents
ARIA answers: timers, the time and date, lists, media, volume, never mind) merged with ARIA's
own templates in the same format (``resources/skills/intents/<lang>.yaml``: reminders, alarms,
applications, memory). A template must state the whole sentence, so "which timer app is best
for cooking?" is not a timer command (ARCHITECTURE.md: everyday skills).

Templates compile once per language, on first use; a voice turn may also be matched after
near-miss words are replaced by the templates' own words (:mod:`.fuzzy_words`).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from hassil import Intents, RecognizeResult, TextSlotList, recognize_all
from hassil.models import MatchEntity
from hassil.util import merge_dict
from home_assistant_intents import get_intents, get_languages

from aria_desktop.adapters.skills.fuzzy_words import WordCorrector
from aria_desktop.domain.intents import IntentMatch, SlotValue

__all__ = ["HA_INTENTS", "HassilRecognizer", "templates_dir"]

_LOGGER = logging.getLogger(__name__)

HA_INTENTS = frozenset(
    {
        "HassStartTimer",
        "HassCancelTimer",
        "HassCancelAllTimers",
        "HassIncreaseTimer",
        "HassDecreaseTimer",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassTimerStatus",
        "HassGetCurrentTime",
        "HassGetCurrentDate",
        "HassShoppingListAddItem",
        "HassShoppingListCompleteItem",
        "HassListAddItem",
        "HassListCompleteItem",
        "HassListRemoveItem",
        "HassMediaPause",
        "HassMediaUnpause",
        "HassMediaNext",
        "HassMediaPrevious",
        "HassMediaPlayerMute",
        "HassMediaPlayerUnmute",
        "HassSetVolume",
        "HassSetVolumeRelative",
        "HassNevermind",
    }
)
"""The Home Assistant intents ARIA answers on the desktop (the rest are HA's own devices)."""

_CONTEXT = {"area": "desktop"}
"""Intents that need an area ("pause" means the media here) get this machine's."""

_DELAYED_COMMANDS = "command"
"""Slot combinations holding another command ("in 5 minutes turn off…") are not ARIA's."""

_PM = re.compile(r"\b([ap])\.\s?m\.?(?=\s|$|[,!?])", re.IGNORECASE)
_SAME_CHARACTERS = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-", "\u00a0": " "}
)
"""Typographic apostrophes and hyphens (Whisper and phones write them) as typed ones."""
_EDGES = ' .!?"\u201c\u201d\u201e'
"""Stripped from both ends: end punctuation and the quotes Whisper sometimes puts around."""
_FILLERS = {
    "en": re.compile(r"^(?:(?:u+m+|u+h+|e+r+m+|h+m+|oh|okay|ok|so|well|alright)\s*,\s*)+", re.I),
    "de": re.compile(r"^(?:(?:ä+h+m*|ö+h*m+|h+m+|also|okay|ok|na|ja)\s*,\s*)+", re.I),
}
"""A hesitation or "okay," before the command (only with its comma: "well water" stays)."""
_UNITS = {
    "en": (
        (re.compile(r"(\d)\s*(?:mins?)\b\.?", re.I), r"\1 minutes"),
        (re.compile(r"(\d)\s*(?:secs?)\b\.?", re.I), r"\1 seconds"),
        (re.compile(r"(\d)\s*(?:hrs?)\b\.?", re.I), r"\1 hours"),
        (re.compile(r"\bper\s+cent\b", re.I), "percent"),
    ),
    "de": (
        (re.compile(r"(\d)\s*min\b\.?", re.I), r"\1 Minuten"),
        (re.compile(r"(\d)\s*sek\b\.?", re.I), r"\1 Sekunden"),
        (re.compile(r"(\d)\s*std\b\.?", re.I), r"\1 Stunden"),
    ),
}
"""Abbreviated units after a number ("5 mins", "5 Min.") as the templates spell them."""
_CLOCK_DOT = re.compile(r"\b(\d{1,2})\.([0-5]\d) ?([ap]m)\b", re.I)
_CLOCK_RUN = re.compile(r"\b(1[0-2]|0?[1-9])([0-5]\d) ?([ap]m)\b", re.I)
"""English clock times as Whisper writes them: "7.30 pm", "730pm" (both "7:30 pm")."""


def templates_dir() -> Path:
    """Where ARIA's own templates live (``resources/skills/intents``)."""
    return Path(__file__).resolve().parents[3] / "resources" / "skills" / "intents"


def normalize(text: str, language: str = "en") -> str:
    """What speech-to-text and typing vary in, made one form ("4 p.m." -> "4 pm").

    Typographic apostrophes and hyphens, quotes and end punctuation around the sentence, a
    leading "okay," or "um,", abbreviated units after a number ("5 mins"), and in English
    clock times ("7.30 p.m.", "730pm" -> "7:30 pm"). Numbers said as words stay words:
    the templates read both. Table: tests/skills/test_normalize.py.
    """
    text = text.translate(_SAME_CHARACTERS)
    text = _PM.sub(lambda m: m.group(1).lower() + "m", text)
    text = re.sub(r"(\d)(am|pm)\b", r"\1 \2", text, flags=re.IGNORECASE)
    for pattern, replacement in _UNITS.get(language, ()):
        text = pattern.sub(replacement, text)
    if language == "en":
        text = _CLOCK_DOT.sub(r"\1:\2 \3", text)
        text = _CLOCK_RUN.sub(r"\1:\2 \3", text)
    text = " ".join(text.split()).strip(_EDGES)
    filler = _FILLERS.get(language)
    return filler.sub("", text).strip(_EDGES) if filler is not None else text


def _value(entity: MatchEntity, said: str) -> SlotValue:
    """A slot's value; a free-text slot keeps the words as said (commas included)."""
    if isinstance(entity.value, (int, float)):
        return entity.value
    value = str(entity.value).strip()
    if entity.is_wildcard and entity.text_span is not None:
        start, end = entity.text_span
        kept = said[start:end].strip(" ,.!?")
        # hassil's span is into the sentence after its skip words ("can you") are cut: when it
        # does not hold the same words, its own value is the one to trust.
        if _words(kept) == _words(value):
            return kept
    return value


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _to_match(
    result: RecognizeResult, language: str, text: str, said: str, fuzzy: bool
) -> IntentMatch:
    slots = {
        name: _value(entity, said)
        for name, entity in result.entities.items()
        if name not in _CONTEXT and name != "domain"
    }
    return IntentMatch(
        intent=result.intent.name, slots=slots, language=language, text=text, fuzzy=fuzzy
    )


def _ha_data(language: str) -> dict[str, Any]:
    """HA's templates for ``language``, only the intents ARIA answers."""
    data = get_intents(language) or {}
    kept: dict[str, Any] = {}
    for name, intent in (data.get("intents") or {}).items():
        if name not in HA_INTENTS:
            continue
        blocks = [
            block
            for block in intent.get("data", [])
            if _DELAYED_COMMANDS not in str((block.get("metadata") or {}).get("slot_combination"))
        ]
        if blocks:
            kept[name] = {**intent, "data": blocks}
    return {**data, "intents": kept}


class _Language:
    """One language's compiled templates and the words they are made of."""

    def __init__(self, intents: Intents, corrector: WordCorrector) -> None:
        self.intents = intents
        self.corrector = corrector


class HassilRecognizer:
    """The recogniser port over hassil (``core/skills/ports.py``)."""

    def __init__(
        self,
        *,
        own_templates: Path | None = None,
        list_names: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        """Use ARIA's templates from ``own_templates``; ``list_names`` gives the user's lists."""
        self._own = own_templates or templates_dir()
        self._list_names = list_names
        self._compiled: dict[str, _Language | None] = {}
        self._lock = threading.Lock()
        self._languages = tuple(sorted(set(get_languages()) | self._own_languages()))

    def languages(self) -> tuple[str, ...]:
        """Every language HA ships templates for, and those ARIA adds."""
        return self._languages

    def recognize(
        self,
        text: str,
        language: str,
        *,
        fuzzy: bool = False,
        accept: Callable[[IntentMatch], bool] | None = None,
    ) -> IntentMatch | None:
        """The first match of the whole of ``text`` that ``accept`` takes (see the port)."""
        compiled = self._language(language)
        if compiled is None:
            return None
        said = normalize(text, language)
        # Fuzzy: only other readings (the exact attempt, on ``said`` itself, already failed).
        readings = compiled.corrector.readings(said) if fuzzy else [said]
        slot_lists = self._slot_lists() if readings else {}
        for reading in readings:
            for result in recognize_all(
                reading,
                compiled.intents,
                slot_lists=slot_lists,
                intent_context=_CONTEXT,
                language=language,
            ):
                found = _to_match(result, language, text, reading, fuzzy)
                if accept is None or accept(found):
                    return found
        return None

    def warm(self, languages: Sequence[str]) -> None:
        """Compile ``languages`` now (start-up), so the first command waits for nothing."""
        for language in languages:
            self._language(language)

    def _slot_lists(self) -> dict[str, Any]:
        names = [name for name in self._list_names() if name]
        todo = TextSlotList.from_tuples(
            [(name, name, {"domain": "todo"}) for name in names], allow_template=False
        )
        empty = TextSlotList.from_strings([], allow_template=False)
        return {"name": todo, "area": empty, "floor": empty}

    def _own_languages(self) -> set[str]:
        if not self._own.is_dir():
            return set()
        return {path.stem for path in self._own.glob("*.yaml")}

    def _language(self, language: str) -> _Language | None:
        with self._lock:
            if language not in self._compiled:
                self._compiled[language] = self._compile(language)
            return self._compiled[language]

    def _compile(self, language: str) -> _Language | None:
        data = _ha_data(language) if language in get_languages() else {}
        own = self._own / f"{language}.yaml"
        if own.is_file():
            merge_dict(data, yaml.safe_load(own.read_text(encoding="utf-8")) or {})
        if not data.get("intents"):
            return None
        data.setdefault("language", language)
        intents = Intents.from_dict(data)
        _LOGGER.debug("Compiled %d intents for %s", len(intents.intents), language)
        corrector = WordCorrector.from_templates(_template_words(data), language)
        return _Language(intents, corrector)


def _template_words(data: Mapping[str, Any]) -> set[str]:
    """The literal words of every template, list value and expansion rule of a language."""
    texts: list[str] = []
    for intent in (data.get("intents") or {}).values():
        for block in intent.get("data", []):
            texts.extend(block.get("sentences", []))
    texts.extend((data.get("expansion_rules") or {}).values())
    for slot_list in (data.get("lists") or {}).values():
        for value in slot_list.get("values", []) if isinstance(slot_list, dict) else []:
            texts.append(value.get("in", "") if isinstance(value, dict) else str(value))
    words: set[str] = set()
    for text in texts:
        cleaned = re.sub(r"\{[^}]*\}|<[^>]*>", " ", str(text))
        cleaned += " " + re.sub(r"(\w)\[(\w{1,2})\]", r"\1\2", cleaned)  # minute[s] -> minutes
        words.update(w for w in re.split(r"[^\w']+", cleaned.lower()) if w)
    return words
