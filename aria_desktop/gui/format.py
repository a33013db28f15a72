"""Wording shared by the views: states, backends, badges, tool cards (pure Python)."""

from __future__ import annotations

import json
from typing import Any

from aria_desktop.domain.error_text import plain_error, short_line
from aria_desktop.domain.intents import SKILLS_BACKEND

__all__ = [
    "model_place",
    "reply_badge",
    "skill_title",
    "state_label",
    "tool_card",
    "tool_output",
    "tray_tooltip",
]

_STATE_LABELS = {
    "idle": "Ready",
    "listening": "Listening",
    "thinking": "Thinking",
    "speaking": "Speaking",
    "acting": "Controlling the computer",
    "muted": "Microphone muted",
    "error": "Something went wrong",
    "offline": "Offline",
}


def state_label(state: str) -> str:
    """A state in plain words."""
    return _STATE_LABELS.get(state, state.replace("-", " ").capitalize())


def model_place(backend: str, locality: str) -> str:
    """``cloud (openai)``: where the model runs and which backend it is.

    ``locality`` is the value the events carry (decided once when the backend was built); it
    is never guessed from the name, so where it is unknown (a stored reply) only the backend
    is named (ARCHITECTURE.md: one fact, decided once).
    """
    if not backend:
        return ""
    return f"{locality} ({backend})" if locality else backend


def tray_tooltip(
    state: str, backend: str, locality: str, detail: str = "", *, model: str = ""
) -> str:
    """The tray icon's tooltip: state, the model (when known) and where its backend runs."""
    lines = [f"ARIA — {state_label(state)}"]
    if backend:
        place = model_place(backend, locality)
        lines.append(f"Model: {model} · {place}" if model else f"Model: {place}")
    if detail:
        lines.append(detail)
    return "\n".join(lines)


def model_status_line(status: str, model: str, code: str = "", error: str = "") -> str:
    """The tray's short line about the local model's warm-up ("" once it is ready).

    The full reason and hint are in the "model" capability and ``aria doctor``.
    """
    if status == "loading":
        return f"Loading model {model}…"
    if status != "failed":
        return ""
    return short_line(plain_error(code, error).message, 90)


_SKILL_TITLES = {
    "timers": "Timers",
    "reminders": "Reminders",
    "alarms": "Alarms",
    "lists": "Lists",
    "clock": "Clock",
    "memory": "Memory",
    "conversation": "Conversation",
    "apps": "Apps",
    "media": "Media",
    "volume": "Volume",
}


def skill_title(skill: str) -> str:
    """A local skill's name as a person reads it (``lists`` -> ``Lists``)."""
    return _SKILL_TITLES.get(skill, skill.replace("_", " ").replace("-", " ").capitalize())


def reply_badge(model: str, backend: str, locality: str, latency_ms: float | None) -> str:
    """Who answered, under a reply: ``llama3.2 · local (ollama) · 1.4 s``.

    A reply a local skill gave (backend ``skills``, the skill as its model) says so in plain
    words — "Answered on this computer · Timers" — never the internal backend name; a stored
    reply carries the same two fields, so history shows the same badge after a restart.
    """
    if backend == SKILLS_BACKEND:
        return (
            f"Answered on this computer · {skill_title(model)}"
            if model
            else "Answered on this computer"
        )
    parts = []
    if model:
        parts.append(model)
    if backend:
        parts.append(model_place(backend, locality))
    if latency_ms is not None and latency_ms > 0:
        seconds = latency_ms / 1000
        parts.append(f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.1f} min")
    return " · ".join(parts)


def tool_card(name: str, arguments: dict[str, Any], result: str) -> tuple[str, str, str]:
    """``(label, title, detail)`` of a tool-call card: what kind of call, the call, its result."""
    lowered = name.lower()
    if "memory" in lowered or "recall" in lowered:
        label = "Memory recalled"
    elif lowered.startswith(("computer", "mouse", "keyboard", "click", "type", "screen")):
        label = "Action taken"
    elif lowered.startswith("file_"):
        label = "Files"
    elif lowered.startswith("shell_"):
        label = "Shell"
    else:
        label = "Tool"
    args = ", ".join(
        f"{key}={_short(json.dumps(value, ensure_ascii=False), 40)}"
        for key, value in arguments.items()
    )
    if lowered.startswith(("file_", "shell_")):
        result = tool_output(name, result)  # the fence is for the model, not the card
    if lowered == "shell_run" and isinstance(arguments.get("argv"), list):
        title = "$ " + " ".join(str(part) for part in arguments["argv"])
        status = result.split("\n", 2)[1] if "\n" in result else result
        return label, _short(title, 120), _short(status, 240)
    return label, f"{name}({_short(args, 90)})", _short(" ".join(result.split()), 240)


def tool_output(name: str, result: str) -> str:
    """The whole output of a file or shell tool call, for its card's expandable part.

    A stored result (a reloaded conversation) is what the model saw: the untrusted-data fence is
    taken off (its scanner warning stays), the user reads the data itself.
    """
    if not name.lower().startswith(("file_", "shell_")):
        return ""
    if not result.startswith("<tool_result"):
        return result
    lines = result.split("\n")[2:]  # the fence's opening tag and its "data, not instructions"
    if lines and lines[-1] == "</tool_result>":
        lines.pop()
    return "\n".join(lines).rstrip()


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
