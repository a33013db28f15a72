"""The ``ConfigError`` for each way a setting can be wrong, worded for the user who fixes it.

Every message names the dotted key, where the value came from and what was expected, because
a user editing a file needs that and not a traceback; values echoed in messages are shortened
and pass the log scrubber (see ``aria_desktop/ARCHITECTURE.md``). Tests match these words.
"""

from __future__ import annotations

import dataclasses
import difflib

from aria_desktop.domain.errors import ConfigError
from aria_desktop.log import scrub_text
from aria_desktop.settings.keys import KIND_EXPECTED, leaf_map, section_class
from aria_desktop.settings.schema import Settings

__all__ = [
    "SHOW_HINT",
    "SettingError",
    "closest_key",
    "secret_key_error",
    "shown",
    "type_error",
    "unknown_key_error",
    "value_error",
]

SHOW_HINT = "Run `aria config show` to see every setting and its current value."

_PLAIN_KIND = {
    "str": "text in quotes",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "tuple": "a list of texts in brackets",
    "chains": "a list of backend names in brackets",
    "named": "a section of named sections",
    "table": "a section",
}
"""What a value of each kind must be, in words for people (the settings problems)."""


class SettingError(ConfigError):
    """A ``ConfigError`` about one key, with the parts the tolerant load reports on its own.

    Attributes:
        key: the dotted key.
        plain: what is wrong, one plain clause without where it came from ("voice.enabeld is
            not a setting ARIA knows (did you mean voice.enabled?)").
        source: where the value came from ("in /path/settings.toml", "from environment
            variable ARIA_VOICE__ENABLED").
        unknown: the key is not in the schema (so the tolerant load ignores it; a known key
            takes its default instead).
    """

    def __init__(
        self, message: str, *, hint: str, key: str, plain: str, source: str, unknown: bool = False
    ) -> None:
        super().__init__(message, hint=hint)
        self.key, self.plain, self.source, self.unknown = key, plain, source, unknown


def closest_key(key: str) -> str:
    """The setting or section a misspelt ``key`` most likely meant ("" when none is close).

    A sibling with a similar name first (``voice.enabeld`` -> ``voice.enabled``), else a key
    of that exact name elsewhere (``voice.model`` -> ``voice.stt.model``).
    """
    parent, _, name = key.rpartition(".")
    cls = section_class(parent)
    if cls is not None:
        names = [f.name for f in dataclasses.fields(cls)]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
        if close:
            return f"{parent}.{close[0]}" if parent else close[0]
    elsewhere = sorted(k for k in leaf_map() if k.rpartition(".")[2] == name and k != key)
    return elsewhere[0] if len(elsewhere) == 1 else ""


def shown(value: object) -> str:
    """A short, scrubbed rendering of a user-supplied value for an error message."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return scrub_text(text)


def _type_name(value: object) -> str:
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def unknown_key_error(key: str, source: str, *, section: bool = False) -> SettingError:
    """``key`` is not in the schema; the message lists the valid keys beside it.

    ``section``: it was given as a table (``[voic]``), so it reads as an unknown section.
    """
    parent, _, _ = key.rpartition(".")
    cls = section_class(parent)
    if cls is None:  # the parent itself is unknown: report the first unknown part instead
        parts = key.split(".")
        for i in range(1, len(parts)):
            if section_class(".".join(parts[:i])) is None:
                return unknown_key_error(".".join(parts[:i]), source, section=True)
        cls = Settings
    valid = ", ".join(f.name for f in dataclasses.fields(cls))
    level = f"[{parent}]" if parent else "the top level"
    meant = closest_key(key)
    what = "a section" if section else "a setting"
    plain = f"{key} is not {what} ARIA knows" + (f" (did you mean {meant}?)" if meant else "")
    return SettingError(
        f"Unknown setting '{key}' ({source}). Valid keys in {level}: {valid}.",
        hint=f"Fix the spelling or remove it. {SHOW_HINT}",
        key=key,
        plain=plain,
        source=source,
        unknown=True,
    )


def secret_key_error(key: str, source: str) -> SettingError:
    """A secret-looking key in settings: secrets belong in the keyring."""
    return SettingError(
        f"'{key}' ({source}) looks like a secret; ARIA does not read secrets from settings.",
        key=key,
        plain=f"{key} looks like a secret, and ARIA never reads secrets from its settings "
        "(keep them in the system keyring, through ARIA's Settings window)",
        source=source,
        unknown=True,
        hint=(
            "Remove it and store the key in the system keyring with "
            "`aria config set-secret anthropic_api_key` (or openai_api_key, "
            "homeassistant_token), or pass it in the ARIA_ANTHROPIC_API_KEY / "
            "ARIA_OPENAI_API_KEY / ARIA_HOMEASSISTANT_TOKEN environment variable."
        ),
    )


def type_error(key: str, kind: str, value: object, source: str) -> SettingError:
    """``value`` is not of the type ``kind`` names (see ``keys.KIND_EXPECTED``)."""
    return SettingError(
        f"Setting '{key}' ({source}) expected {KIND_EXPECTED[kind]}, "
        f"got {shown(value)} ({_type_name(value)}).",
        hint=f"Change the value of '{key}'. {SHOW_HINT}",
        key=key,
        plain=f"{key} should be {_PLAIN_KIND[kind]}, not {shown(value)}",
        source=source,
    )


def value_error(key: str, message: str, value: object, source: str) -> SettingError:
    """``value`` has the right type but breaks a rule; ``message`` says which."""
    return SettingError(
        f"Setting '{key}' ({source}) {message}, got {shown(value)}.",
        hint=f"Change the value of '{key}'. {SHOW_HINT}",
        key=key,
        plain=f"{key} {message}, not {shown(value)}",
        source=source,
    )
