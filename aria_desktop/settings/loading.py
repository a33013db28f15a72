"""Loading settings: defaults, then ``settings.toml``, then ``ARIA_*`` variables; then checks.

Raw values from the file and the environment are merged by dotted key (the environment wins),
converted field by field into the frozen dataclasses of ``settings.schema``, and finally the
rules that span several fields are checked (see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aria_desktop import paths
from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings.coercion import Raw, convert
from aria_desktop.settings.errors import value_error
from aria_desktop.settings.keys import Leaf, default_of, fields_of, item_leaves, leaf_map
from aria_desktop.settings.schema import AutomationRule, Settings
from aria_desktop.settings.sources import env_overrides, flatten_toml

__all__ = ["load_settings", "read_toml", "settings_from"]

_LOGGER = logging.getLogger(__name__)


def _entries_under(key: str, flat: Mapping[str, Raw]) -> dict[str, Raw]:
    return {k: raw for k, raw in flat.items() if k.startswith(key + ".")}


def _build(cls: type, prefix: str, flat: Mapping[str, Raw], leaves: Mapping[str, Leaf]) -> Any:
    """An instance of the settings dataclass ``cls`` from the raw values under ``prefix``."""
    kwargs: dict[str, Any] = {}
    for f, kind in fields_of(cls):
        key = prefix + f.name
        entries = _entries_under(key, flat)
        if isinstance(kind, type):
            kwargs[f.name] = _build(kind, key + ".", flat, leaves)
        elif kind == "chains" and entries:
            merged = dict(default_of(f))
            for entry_key, raw in sorted(entries.items()):
                entry_leaf = dataclasses.replace(leaves[key], key=entry_key)
                merged[entry_key[len(key) + 1 :]] = convert(entry_leaf, raw)
            kwargs[f.name] = merged
        elif kind == "named" and entries:
            kwargs[f.name] = _build_named(leaves[key], default_of(f), flat, leaves)
        elif key in flat:
            kwargs[f.name] = convert(leaves[key], flat[key])
    return cls(**kwargs)


def _build_named(
    leaf: Leaf, defaults: Mapping[str, Any], flat: Mapping[str, Raw], leaves: Mapping[str, Leaf]
) -> dict[str, Any]:
    """The entries of a named table (``automations.rules``) merged over its defaults."""
    assert leaf.item is not None
    names = sorted(
        {k[len(leaf.key) + 1 :].rpartition(".")[0] for k in _entries_under(leaf.key, flat)}
    )
    merged = dict(defaults)
    for name in names:
        entry_key = f"{leaf.key}.{name}"
        entry = _build(leaf.item, entry_key + ".", flat, item_leaves(leaf, name))
        _check_named_entry(entry_key, entry, flat)
        merged[name] = entry
    return merged


def _source_of(flat: Mapping[str, Raw], *keys: str) -> str:
    """Where the first of ``keys`` that was set came from ("defaults" if none was)."""
    raw = next((flat[key] for key in keys if key in flat), None)
    return raw.source if raw else "defaults"


def _check_named_entry(key: str, entry: Any, flat: Mapping[str, Raw]) -> None:
    """An automation rule needs a prompt, and a schedule or webhooks to ever run."""
    if not isinstance(entry, AutomationRule):
        return
    source = next((raw.source for raw in _entries_under(key, flat).values()), "")
    if not entry.prompt.strip():
        raise value_error(f"{key}.prompt", "must not be empty", entry.prompt, source)
    if not entry.schedule and not entry.webhook:
        raise value_error(
            f"{key}.schedule", "must be set when webhook is false", entry.schedule, source
        )


def _check_cross_fields(settings: Settings, flat: Mapping[str, Raw]) -> None:
    _check_stt_language(settings, flat)
    retry = settings.llm.retry
    if retry.max_delay_s < retry.base_delay_s:
        raise value_error(
            "llm.retry.max_delay_s",
            f"must be at least llm.retry.base_delay_s ({retry.base_delay_s})",
            retry.max_delay_s,
            _source_of(flat, "llm.retry.max_delay_s", "llm.retry.base_delay_s"),
        )


def _check_stt_language(settings: Settings, flat: Mapping[str, Raw]) -> None:
    """An English-only Whisper model with another language would transcribe it as English."""
    stt = settings.voice.stt
    english_only = stt.model == "tiny.en" or stt.model.rstrip("/\\").endswith(".en")
    if stt.engine != "local" or not english_only or stt.language in ("", "en"):
        return
    raise value_error(
        "voice.stt.language",
        f"must be empty or en with the English-only model {stt.model} (set voice.stt.model = "
        '"base" for other languages)',
        stt.language,
        _source_of(flat, "voice.stt.language", "voice.stt.model"),
    )


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed settings file; a ConfigError names the line of a syntax error."""
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        where = f"line {match.group(1)}" if match else "an unknown line"
        raise ConfigError(
            f"{path}: invalid TOML at {where}: {exc}",
            hint=f"Fix the syntax at {where} of {path} (strings need quotes, lists brackets).",
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})",
            hint=f"Save {path} as UTF-8.",
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"Cannot read settings file {path}: {exc.strerror or exc}",
            hint=f"Check that {path} exists and is readable by you.",
        ) from None


def settings_from(
    toml_data: Mapping[str, Any], source: str, env: Mapping[str, str]
) -> tuple[Settings, dict[str, Raw]]:
    """Validated settings from a parsed file and an environment, and the raw values used."""
    leaves = leaf_map()
    flat: dict[str, Raw] = {}
    flatten_toml(toml_data, Settings, "", source, flat)
    flat.update(env_overrides(env, leaves))
    settings = _build(Settings, "", flat, leaves)
    _check_cross_fields(settings, flat)
    return settings, flat


def load_settings(path: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Load settings: defaults, then the TOML file, then ``ARIA_*`` environment variables.

    Args:
        path: the TOML file; None means ``paths.settings_file()``, which may be absent (then
            the defaults apply). An explicitly given file must exist.
        env: the environment to read overrides from; None means ``os.environ``.

    Returns:
        The validated settings.

    Raises:
        ConfigError: unreadable or invalid file, unknown key, wrong type or value, or a
            secret in the file; the message names the key and where it came from.
    """
    explicit = path is not None
    settings_path = path if path is not None else paths.settings_file()
    toml_data: dict[str, Any] = {}
    if settings_path.exists() or explicit:
        toml_data = read_toml(settings_path)
    settings, flat = settings_from(
        toml_data, f"in {settings_path}", os.environ if env is None else env
    )
    _LOGGER.debug("settings loaded from %s (%d values set)", settings_path, len(flat))
    return settings
