"""What an error says to a person: one table from ``AriaError.code`` to plain words and actions.

A window gets an error as its stable ``code`` and its technical ``message`` (an ``error`` event,
an API body, a failed call). The CLI prints message and hint; a window shows one sentence of
what happened, the actions that help as buttons, and the technical text folded under
"Details". Every window asks this one table (as httpx maps every transport failure through
one table), so the same failure reads the same everywhere and no error code, settings key or
shell command reaches a window's text. Pure values: tested without Qt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ACTION_LABELS",
    "NO_MODEL_SET_UP",
    "WORKS_WITHOUT_MODEL",
    "Action",
    "BackendFailure",
    "PlainError",
    "backend_title",
    "for_people",
    "join_failures",
    "plain_error",
    "short_line",
    "split_failures",
    "with_hint",
]

Action = Literal["retry", "open_settings", "set_up_model"]
ACTION_LABELS: dict[Action, str] = {
    "retry": "Retry",
    "open_settings": "Open settings",
    "set_up_model": "Set up a model",
}

WORKS_WITHOUT_MODEL = (
    "Timers, reminders, lists, the time, opening apps, media and volume still work: "
    "they are answered on this computer."
)
"""What ARIA does without any model (the everyday skills), said wherever no model can answer."""

NO_MODEL_SET_UP = "No model is set up yet."
"""How a reason that no model is configured at all starts (it is said as written, then)."""

_RETRY: tuple[Action, ...] = ("retry",)
_SETTINGS: tuple[Action, ...] = ("open_settings",)
_MODEL: tuple[Action, ...] = ("set_up_model",)
_RETRY_MODEL: tuple[Action, ...] = ("retry", "set_up_model")
_NONE: tuple[Action, ...] = ()
_AS_WRITTEN = ""
"""A table entry whose error's own message is already written for people (the skills')."""


@dataclass(frozen=True)
class PlainError:
    """An error as a window shows it.

    Attributes:
        message: one sentence of what happened, in plain words.
        actions: what helps, as buttons (only those that apply).
        detail: the technical text (each backend's own message), for a folded "Details".
    """

    message: str
    actions: tuple[Action, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class BackendFailure:
    """Why one backend of the fallback chain did not answer."""

    backend: str
    code: str
    message: str


_TABLE: dict[str, tuple[str, tuple[Action, ...]]] = {
    # language models: {who} is the backend in words, {where} its host and port
    "backend_unreachable": ("Can't reach {who}{at}.", _RETRY_MODEL),
    "llm_timeout": ("{Who} took too long to answer.", _RETRY),
    "llm_rate_limited": ("{Who} is busy right now and asked ARIA to wait.", _RETRY),
    "llm_server_error": ("{Who} ran into a problem of its own.", _RETRY),
    "llm_auth_failed": ("{Who} did not accept ARIA's key.", _SETTINGS),
    "llm_bad_request": ("{Who} did not accept the question as ARIA sent it.", _RETRY),
    "llm_model_not_found": ("The model {model}is not installed on {who}.", _MODEL),
    "llm_context_overflow": (
        "This conversation is too long for the model: start a new one or shorten the message.",
        _NONE,
    ),
    "llm_capability_missing": (
        "The model can't do what this needs, such as using tools or reading images.",
        _MODEL,
    ),
    "cloud_budget": (
        "The cloud spending limit is reached, so the cloud model was not asked.",
        _SETTINGS,
    ),
    "llm_malformed_response": ("{Who} sent a reply ARIA could not read.", _RETRY),
    "llm_stream_interrupted": ("The reply broke off part-way; what arrived is kept.", _RETRY),
    "llm_circuit_open": (
        "{Who} failed several times in a row, so ARIA waits a little before asking it again.",
        _RETRY,
    ),
    "llm_invalid_tool_call": ("The model kept asking for a tool in a way ARIA can't use.", _RETRY),
    "llm_invalid_structured_output": ("The model's answer was not in the form asked for.", _RETRY),
    "llm_error": ("{Who} could not answer.", _RETRY),
    "no_backend": (NO_MODEL_SET_UP, _MODEL),
    "turn_deadline": ("The answer took too long and was stopped.", _RETRY),
    # reaching ARIA itself
    "owner_unreachable": ("Can't reach the running ARIA.", _RETRY),
    "api_unauthorized": ("The running ARIA did not let this window in; restart ARIA.", _NONE),
    "api_error": ("The running ARIA could not do this.", _RETRY),
    "gui_not_connected": ("ARIA is still starting.", _RETRY),
    "subscriber_lagged": ("This window fell behind ARIA's updates.", _RETRY),
    "api_bind_failed": ("ARIA could not open its local connection for other programs.", _NONE),
    "automation_invalid": ("That automation could not run.", _SETTINGS),
    # settings, secrets, storage
    "config_invalid": ("A setting has a value ARIA can't use.", _SETTINGS),
    "secret_store_unavailable": (
        "The system keyring is locked or missing, so the key can't be kept there.",
        _SETTINGS,
    ),
    "storage_error": ("ARIA could not read or write its conversations.", _RETRY),
    "schema_too_new": ("These conversations were saved by a newer ARIA.", _NONE),
    "database_owned": ("Another ARIA is already running on this computer.", _NONE),
    "not_found": ("That conversation or message no longer exists.", _NONE),
    # tools
    "tool_error": ("A tool ARIA used failed.", _RETRY),
    "tool_not_found": ("The model asked for a tool ARIA does not have.", _RETRY),
    "tool_arguments_invalid": ("The model used a tool the wrong way.", _RETRY),
    "tool_denied": ("That action was not allowed.", _NONE),
    "tool_failed": ("A tool ARIA used failed.", _RETRY),
    "web_fetch_failed": ("The web page could not be read.", _RETRY),
    "web_address_refused": ("ARIA may not open that address.", _NONE),
    "mcp_server_error": ("A connected tool server did not answer.", _RETRY),
    "mcp_tool_changed": ("A connected tool changed and waits for your review.", _SETTINGS),
    "path_refused": ("That file or folder is outside where ARIA may work.", _SETTINGS),
    "file_operation_failed": ("The file could not be changed as asked.", _NONE),
    "confirmation_invalid": ("That approval was no longer valid.", _NONE),
    "audit_log_invalid": ("ARIA's action log could not be written or checked.", _NONE),
    # memory and knowledge
    "memory_invalid": ("That memory can't be saved as it is.", _NONE),
    "memory_unavailable": ("Long-term memory is not set up.", _SETTINGS),
    "embedder_error": ("The search model could not run, so search matches words only.", _NONE),
    "knowledge_invalid": ("That can't be added to the knowledge base.", _NONE),
    "knowledge_unavailable": ("The knowledge base is not set up.", _SETTINGS),
    "document_invalid": ("A document could not be read.", _NONE),
    # everyday skills: their messages are written for people already
    "list_invalid": (_AS_WRITTEN, _NONE),
    "timer_invalid": (_AS_WRITTEN, _NONE),
    "reminder_invalid": (_AS_WRITTEN, _NONE),
    # voice
    "voice_error": ("Voice ran into a problem.", _RETRY),
    "audio_device_unavailable": ("No microphone or speaker could be used.", _SETTINGS),
    "audio_format_invalid": ("That file is not audio ARIA can read.", _NONE),
    "voice_model_unavailable": ("A voice model is missing or could not be loaded.", _SETTINGS),
    "stt_failed": ("The speech could not be turned into text.", _RETRY),
    "stt_language_unsupported": ("The speech model can't understand that language.", _SETTINGS),
    "tts_failed": ("The answer could not be spoken.", _RETRY),
    "wyoming_unavailable": ("Can't reach the voice service{at}.", _RETRY),
    "voice_unavailable": ("Voice is off, still loading, or the microphone is muted.", _NONE),
    # computer use
    "computer_error": ("Controlling the computer failed.", _RETRY),
    "display_unavailable": ("There is no screen ARIA can see.", _NONE),
    "ocr_unavailable": ("The screen can't be read: the text reader is missing.", _NONE),
    "input_unavailable": ("ARIA can't move the mouse or type here.", _NONE),
    "computer_control_off": ("Computer control is switched off.", _SETTINGS),
    "screen_protected": ("A protected window is on screen, so ARIA did not look.", _NONE),
    "target_not_found": ("What to act on is not on the screen.", _RETRY),
    "target_ambiguous": ("That appears in several places; ARIA does not guess which.", _NONE),
    "target_changed": ("The screen changed before ARIA acted, so nothing was done.", _RETRY),
    "action_aborted": ("The action was stopped.", _NONE),
    "computer_busy": ("ARIA is already controlling the computer.", _NONE),
    "monitor_not_found": ("That monitor does not exist.", _NONE),
    # Home Assistant
    "homeassistant_error": ("Home Assistant could not do this.", _RETRY),
    "homeassistant_auth_failed": ("Home Assistant did not accept ARIA's token.", _SETTINGS),
    "homeassistant_unreachable": ("Can't reach Home Assistant{at}.", _RETRY),
    "homeassistant_timeout": ("Home Assistant took too long to answer.", _RETRY),
    "homeassistant_entity_not_found": ("Home Assistant has no device by that name.", _NONE),
    "client_request_invalid": ("That request can't be carried out as sent.", _NONE),
}

_BACKEND_TITLES = {
    "ollama": "Ollama",
    "anthropic": "the Claude cloud model",
    "openai": "the model server",
    "skills": "this computer",
}
_FAILURE_START = re.compile(r"(?:^|; )([a-z][a-z0-9_-]*): ([a-z][a-z0-9_]*): ")
_NO_BACKEND_PREFIX = "no backend could answer — "
_URL = re.compile(r"https?://([^/\s:]+(?::\d+)?)")
_MODEL_NAME = re.compile(r"model ['\"]([^'\"]+)['\"]")


def backend_title(backend: str) -> str:
    """A backend as people name it ("Ollama", "the Claude cloud model")."""
    return _BACKEND_TITLES.get(backend, backend or "the model")


def join_failures(failures: Iterable[tuple[str, str, str]]) -> str:
    """``(backend, code, message)`` of every backend that failed, as one technical line.

    The router writes it into ``NoBackendError``'s message; :func:`split_failures` reads it
    back, so the format is decided here once.
    """
    return _NO_BACKEND_PREFIX + "; ".join(f"{b}: {c}: {m}" for b, c, m in failures)


def split_failures(message: str) -> list[BackendFailure]:
    """The per-backend failures inside a ``no_backend`` message ([] when it names none)."""
    if not message.startswith(_NO_BACKEND_PREFIX):
        return []
    body = message[len(_NO_BACKEND_PREFIX) :]
    starts = list(_FAILURE_START.finditer(body))
    failures = []
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(body)
        failures.append(BackendFailure(start[1], start[2], body[start.end() : end]))
    return failures


def plain_error(code: str, message: str, *, backend: str = "") -> PlainError:
    """``code`` and its technical ``message`` as a window shows them.

    Unknown codes fall back to their family's words (a model's, Home Assistant's, a voice
    part's), else to "Something went wrong"; the message always goes to ``detail``.
    """
    if code == "no_backend":
        return _no_backend(message)
    backend = backend or _backend_in(message)
    code = _effective(code, message)
    sentence = _sentence(code, message, backend)
    entry = _TABLE.get(code) or _TABLE.get(_family(code))
    actions = entry[1] if entry is not None else _RETRY
    return PlainError(sentence, actions, detail=_detail(message))


def _no_backend(message: str) -> PlainError:
    """Every backend failed (each says why), or none is set up at all."""
    failures = [f for f in split_failures(message) if f.code]
    if not failures:
        return PlainError(NO_MODEL_SET_UP, _MODEL, detail=_detail(message))
    reached = [f for f in failures if not _absent(f)]
    if not reached:
        return PlainError(NO_MODEL_SET_UP, _MODEL, detail=_failure_lines(failures))
    phrases = [_sentence(f.code, f.message, f.backend).rstrip(".") for f in reached]
    if len(reached) < len(failures):
        phrases.append("no other model is set up")
    text = _joined(phrases) + "."
    actions: list[Action] = []
    for failure in reached:
        entry = _TABLE.get(failure.code) or _TABLE.get(_family(failure.code))
        actions.extend(entry[1] if entry is not None else _RETRY)
    if "set_up_model" not in actions:
        actions.append("set_up_model")
    ordered = tuple(a for a in ACTION_LABELS if a in actions)
    return PlainError(text[0].upper() + text[1:], ordered, detail=_failure_lines(failures))


def _absent(failure: BackendFailure) -> bool:
    """A backend that is named in the chain but not set up (no key, no address)."""
    return failure.code == "no_backend"


def _joined(phrases: Sequence[str]) -> str:
    if len(phrases) == 1:
        return phrases[0]
    first = [
        p[0].lower() + p[1:] if p.split(" ", 1)[0] in _PLAIN_STARTS else p for p in phrases[1:]
    ]
    return ", ".join([phrases[0], *first[:-1]]) + ", and " + first[-1]


_PLAIN_STARTS = frozenset({"Can't", "The", "This", "No", "A"})
"""First words lowered inside a joined sentence (a backend's proper name stays as it is)."""


def _effective(code: str, message: str) -> str:
    """The entry that says best what happened (a connect timeout: nothing answers there)."""
    if code == "llm_timeout" and "connecting to" in message:
        return "backend_unreachable"
    return code


def _sentence(code: str, message: str, backend: str) -> str:
    code = _effective(code, message)
    entry = _TABLE.get(code) or _TABLE.get(_family(code))
    if entry is None:
        return "Something went wrong."
    if entry[0] == _AS_WRITTEN:
        return message.strip() or "That can't be done."
    who = backend_title(backend)
    where = _where(message)
    model = _MODEL_NAME.search(message)
    text = entry[0].format(
        who=who,
        Who=who[0].upper() + who[1:],
        at=f" at {where}" if where else "",
        model=f"{model[1]} " if model else "",
    )
    return text


_FAMILIES = (
    ("llm_", "llm_error"),
    ("homeassistant_", "homeassistant_error"),
    ("tool_", "tool_error"),
    ("stt_", "voice_error"),
    ("tts_", "voice_error"),
    ("voice_", "voice_error"),
)


def _family(code: str) -> str:
    """The family entry of a code the table does not list (a newer adapter's)."""
    for prefix, family in _FAMILIES:  # fmt: skip
        if code.startswith(prefix):
            return family
    return ""


def _backend_in(message: str) -> str:
    """The backend a technical message starts with (``ollama: cannot connect …``)."""
    head = message.split(": ", 1)[0]
    return head if head in _BACKEND_TITLES else ""


def _where(message: str) -> str:
    """The host and port a technical message names (``127.0.0.1:11434``)."""
    found = _URL.search(message)
    return found[1] if found else ""


def _detail(message: str) -> str:
    return message.strip()


def _failure_lines(failures: Sequence[BackendFailure]) -> str:
    return "\n".join(f"{backend_title(f.backend).capitalize()}: {_tail(f)}" for f in failures)


def _tail(failure: BackendFailure) -> str:
    """A backend's own message without its repeated name (``ollama: cannot …`` -> ``cannot …``)."""
    prefix = f"{failure.backend}: "
    text = failure.message.strip()
    return text[len(prefix) :] if text.startswith(prefix) else text


def short_line(text: str, limit: int) -> str:
    """``text`` on one line of at most ``limit`` characters, cut at a word ("…" when cut).

    For tooltips and status lines: never a word cut in half.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


def with_hint(message: str, hint: str) -> str:
    """``message`` and ``hint`` as one text, a sentence's end between them.

    Many messages end in a library's words without a full stop ("…All connection attempts
    failed"); glued to the hint they would read "…failed Is Ollama running…".
    """
    message, hint = message.strip(), hint.strip()
    if not hint:
        return message
    if not message:
        return hint
    end = "" if message[-1] in ".!?:" else "."
    return f"{message}{end} {hint}"


_SECTIONS = (
    "agent|api|assist|automations|compat|computer|daemon|gui|homeassistant|knowledge|llm|log|"
    "mcp|memory|storage|tools|voice|web"
)
_KEY_IN_PARENS = re.compile(rf"\s*\((?:{_SECTIONS})(?:\.[a-z_]+)+\)")
"""A settings key in brackets ("(voice.enabled)"), not any dotted word ("(example.com)")."""


def for_people(message: str, hint: str) -> str:
    """``message`` and ``hint`` as a window shows them: no shell command, no settings key.

    The CLI prints a hint as written (its commands are for the terminal); a window drops a hint
    that holds a command (in backticks: its own buttons and pages say what to do) and any
    settings key named in brackets ("Settings → Voice (voice.enabled)").
    """
    kept = "" if "`" in hint else _KEY_IN_PARENS.sub("", hint)
    return with_hint(_KEY_IN_PARENS.sub("", message), kept)
