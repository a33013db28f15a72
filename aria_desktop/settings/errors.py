"""The ``ConfigError`` for each way a setting can be wrong, worded for the user who fixes it.

Every message names the dotted key, where the value came from and what was expected, because
a user editing a file needs that and not a traceback; values echoed in messages are shortened
and pass the log scrubber (see ``aria_desktop/ARCHITECTURE.md``). Tests match these words.
"""

from __future__ import annotations

import dataclasses

from aria_desktop.domain.errors import ConfigError
from aria_desktop.log import scrub_text
from aria_desktop.settings.keys import KIND_EXPECTED, section_class
from aria_desktop.settings.schema import Settings

__all__ = [
    "SHOW_HINT",
    "secret_key_error",
    "shown",
    "type_error",
    "unknown_key_error",
    "value_error",
]

SHOW_HINT = "Run `aria config show` to see every setting and its current value."


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


def unknown_key_error(key: str, source: str) -> ConfigError:
    """``key`` is not in the schema; the message lists the valid keys beside it."""
    parent, _, _ = key.rpartition(".")
    cls = section_class(parent)
    if cls is None:  # the parent itself is unknown: report the first unknown part instead
        parts = key.split(".")
        for i in range(1, len(parts)):
            if section_class(".".join(parts[:i])) is None:
                return unknown_key_error(".".join(parts[:i]), source)
        cls = Settings
    valid = ", ".join(f.name for f in dataclasses.fields(cls))
    level = f"[{parent}]" if parent else "the top level"
    return ConfigError(
        f"Unknown setting '{key}' ({source}). Valid keys in {level}: {valid}.",
        hint=f"Fix the spelling or remove it. {SHOW_HINT}",
    )


def secret_key_error(key: str, source: str) -> ConfigError:
    """A secret-looking key in settings: secrets belong in the keyring."""
    return ConfigError(
        f"'{key}' ({source}) looks like a secret; ARIA does not read secrets from settings.",
        hint=(
            "Remove it and store the key in the system keyring with "
            "`aria config set-secret anthropic_api_key` (or openai_api_key, "
            "homeassistant_token), or pass it in the ARIA_ANTHROPIC_API_KEY / "
            "ARIA_OPENAI_API_KEY / ARIA_HOMEASSISTANT_TOKEN environment variable."
        ),
    )


def type_error(key: str, kind: str, value: object, source: str) -> ConfigError:
    """``value`` is not of the type ``kind`` names (see ``keys.KIND_EXPECTED``)."""
    return ConfigError(
        f"Setting '{key}' ({source}) expected {KIND_EXPECTED[kind]}, "
        f"got {shown(value)} ({_type_name(value)}).",
        hint=f"Change the value of '{key}'. {SHOW_HINT}",
    )


def value_error(key: str, message: str, value: object, source: str) -> ConfigError:
    """``value`` has the right type but breaks a rule; ``message`` says which."""
    return ConfigError(
        f"Setting '{key}' ({source}) {message}, got {shown(value)}.",
        hint=f"Change the value of '{key}'. {SHOW_HINT}",
    )
