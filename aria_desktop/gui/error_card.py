"""An error as a transcript card: the table's sentence, its actions as links, the detail folded.

Qt-free, so chat, quick ask and tests share it; the words come from the one table
(``domain/error_text.py``), the links are what the controllers answer (``aria-action:…``).
"""

from __future__ import annotations

from dataclasses import dataclass

from aria_desktop.domain.error_text import ACTION_LABELS, Action, PlainError, plain_error

__all__ = ["ACTION_SCHEME", "ErrorCard", "action_of", "error_card"]

ACTION_SCHEME = "aria-action"


@dataclass(frozen=True)
class ErrorCard:
    """What ``TranscriptView.append_error`` draws: sentence, (label, link) buttons, detail."""

    message: str
    actions: tuple[tuple[str, str], ...]
    detail: str


def error_card(
    code: str, message: str, *, exclude: tuple[Action, ...] = (), backend: str = ""
) -> ErrorCard:
    """The card for ``code``/``message`` (``exclude``: actions this window cannot offer)."""
    plain: PlainError = plain_error(code, message, backend=backend)
    links = tuple(
        (ACTION_LABELS[action], f"{ACTION_SCHEME}:{action}")
        for action in plain.actions
        if action not in exclude
    )
    return ErrorCard(plain.message, links, plain.detail)


def action_of(link: str) -> Action | None:
    """The action a clicked card link asks for (None: not a card's button)."""
    scheme, _, name = link.partition(":")
    if scheme != ACTION_SCHEME:
        return None
    for action in ACTION_LABELS:
        if action == name:
            return action
    return None
