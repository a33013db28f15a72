"""The ``[assist]`` settings section: the everyday skills answered on this computer.

Kept in its own module so the section's fields, defaults and limits sit together (the shared
``schema.py`` only names it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aria_desktop.settings.rules import rules

__all__ = ["AssistSettings"]


def _check_shopping_list(value: object) -> str | None:
    text = str(value).strip()
    if text == "aria" or re.fullmatch(r"todo\.[a-z0-9_]{1,255}", text):
        return None
    return f"{value!r} is neither aria nor a Home Assistant to-do entity (todo.shopping_list)"


def _check_languages(value: object) -> str | None:
    if not isinstance(value, tuple):
        return None
    for entry in value:
        text = str(entry).strip()
        if not (2 <= len(text) <= 7) or not text.replace("-", "").isalpha():
            return f"{entry!r} is not a language code (write en, de, fr, pt-BR…)"
    return None


@dataclass(frozen=True)
class AssistSettings:
    """Everyday commands answered locally (timers, reminders, lists, time, media, volume).

    Attributes:
        prefer_local: answer the commands ARIA's templates recognise here, before any model;
            off sends every sentence to the model (the skills stay its tools).
        languages: the languages sentences are recognised in, tried in order; empty means the
            speech-to-text language (``voice.stt.language``) and English.
        fuzzy_voice: on voice turns, also match a transcript a few letters away from a
            template (small speech-to-text errors).
        shopping_list: where the shopping list lives: ``aria`` (ARIA's database) or a Home
            Assistant to-do entity (``todo.shopping_list``), used while Home Assistant is set
            up (``homeassistant.url``). Items said while it cannot be reached wait in ARIA and
            move there when it answers, as do items already on ARIA's shopping list.
    """

    prefer_local: bool = True
    languages: tuple[str, ...] = field(default=(), metadata=rules(check=_check_languages))
    fuzzy_voice: bool = True
    shopping_list: str = field(default="aria", metadata=rules(check=_check_shopping_list))
