"""Small wording helpers the skills share: lists read aloud, names from the phrasebook."""

from __future__ import annotations

from collections.abc import Sequence

from aria_desktop.core.skills.ports import Phrasebook

__all__ = ["join_spoken", "names"]


def join_spoken(items: Sequence[str], phrases: Phrasebook, language: str) -> str:
    """``milk, eggs and bread``: items as a sentence says them."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {phrases.say('words.and', language)} {items[-1]}"


def names(key: str, phrases: Phrasebook, language: str) -> list[str]:
    """A comma-separated name table of the phrasebook (weekdays, months) as a list."""
    return [name.strip() for name in phrases.say(key, language).split(",")]
