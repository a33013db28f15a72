"""Loading settings: defaults, then ``settings.toml``, then ``ARIA_*`` variables; then checks.

Raw values from the file and the environment are merged by dotted key (the environment wins),
converted field by field into the frozen dataclasses of ``settings.schema``, and finally the
rules that span several fields are checked (see ``aria_desktop/ARCHITECTURE.md``).

Two ways in. ``load_settings`` is strict: the first mistake is raised as a ``ConfigError``
(benchmarks, a file given on purpose). ``load_settings_with_problems`` never fails on the
file (ARCHITECTURE.md: a start that never breaks): an unknown key is ignored, a bad value or
a broken rule between fields gives the keys involved their defaults, a file that does not
parse gives all defaults (plus the environment), and each is returned as a
``SettingsProblem``; the file itself is never touched. ``tolerant_settings_from`` is the same
for a parsed table; the writer uses it to refuse only what a change makes worse.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aria_desktop import paths
from aria_desktop.domain.errors import ConfigError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.settings.coercion import Raw, convert
from aria_desktop.settings.errors import value_error
from aria_desktop.settings.keys import Leaf, default_of, fields_of, item_leaves, leaf_map
from aria_desktop.settings.problems import (
    Found,
    problem_of,
    toml_problem,
    unreadable_problem,
    utf8_problem,
)
from aria_desktop.settings.schema import AutomationRule, Settings
from aria_desktop.settings.sources import Report, env_overrides, fail, flatten_toml

__all__ = [
    "LoadedSettings",
    "load_settings",
    "load_settings_with_problems",
    "read_toml",
    "settings_from",
    "tolerant_settings_from",
]

_LOGGER = logging.getLogger(__name__)


def _entries_under(key: str, flat: Mapping[str, Raw]) -> dict[str, Raw]:
    return {k: raw for k, raw in flat.items() if k.startswith(key + ".")}


def _converted(leaf: Leaf, raw: Raw, report: Report | None) -> tuple[bool, Any]:
    """(True, the value), or (False, None) when it is reported instead of raised."""
    try:
        return True, convert(leaf, raw)
    except ConfigError as exc:
        fail(exc, report)
        return False, None


def _build(
    cls: type,
    prefix: str,
    flat: Mapping[str, Raw],
    leaves: Mapping[str, Leaf],
    report: Report | None = None,
) -> Any:
    """An instance of the settings dataclass ``cls`` from the raw values under ``prefix``.

    ``report``: tolerant; a value that cannot be used is reported and its field keeps the
    default (a chain entry or a named entry is left out).
    """
    kwargs: dict[str, Any] = {}
    for f, kind in fields_of(cls):
        key = prefix + f.name
        entries = _entries_under(key, flat)
        if isinstance(kind, type):
            kwargs[f.name] = _build(kind, key + ".", flat, leaves, report)
        elif kind == "chains" and entries:
            merged = dict(default_of(f))
            for entry_key, raw in sorted(entries.items()):
                entry_leaf = dataclasses.replace(leaves[key], key=entry_key)
                ok, value = _converted(entry_leaf, raw, report)
                if ok:
                    merged[entry_key[len(key) + 1 :]] = value
            kwargs[f.name] = merged
        elif kind == "named" and entries:
            kwargs[f.name] = _build_named(leaves[key], default_of(f), flat, leaves, report)
        elif key in flat:
            ok, value = _converted(leaves[key], flat[key], report)
            if ok:
                kwargs[f.name] = value
    return cls(**kwargs)


def _build_named(
    leaf: Leaf,
    defaults: Mapping[str, Any],
    flat: Mapping[str, Raw],
    leaves: Mapping[str, Leaf],
    report: Report | None,
) -> dict[str, Any]:
    """The entries of a named table (``automations.rules``) merged over its defaults."""
    assert leaf.item is not None
    names = sorted(
        {k[len(leaf.key) + 1 :].rpartition(".")[0] for k in _entries_under(leaf.key, flat)}
    )
    merged = dict(defaults)
    for name in names:
        entry_key = f"{leaf.key}.{name}"
        entry = _build(leaf.item, entry_key + ".", flat, item_leaves(leaf, name), report)
        try:
            _check_named_entry(entry_key, entry, flat)
        except ConfigError as exc:
            fail(exc, report)
            continue
        merged[name] = entry
    return merged


def _source_of(flat: Mapping[str, Raw], *keys: str) -> str:
    """Where the first of ``keys`` that was set came from ("defaults" if none was)."""
    raw = next((flat[key] for key in keys if key in flat), None)
    return raw.source if raw else "defaults"


def _check_named_entry(key: str, entry: Any, flat: Mapping[str, Raw]) -> None:
    """An automation rule needs something to start it and something to do.

    Something to do is a prompt, or, for a rule started by events, a ``post_url`` to pass them
    on to; something to start it is a schedule, webhooks or events.
    """
    if not isinstance(entry, AutomationRule):
        return
    source = next((raw.source for raw in _entries_under(key, flat).values()), "")
    relay = bool(entry.on_event) and bool(entry.post_url)
    if not entry.prompt.strip() and not relay:
        needs = "must not be empty" + (" unless post_url is set" if entry.on_event else "")
        raise value_error(f"{key}.prompt", needs, entry.prompt, source)
    if not entry.schedule and not entry.webhook and not entry.on_event:
        raise value_error(
            f"{key}.schedule",
            "must be set when webhook is false and on_event is empty",
            entry.schedule,
            source,
        )


_Broken = tuple[ConfigError, tuple[str, ...]]
"""A rule between fields that fails: the error, and the keys involved (they take defaults)."""


def _check_retry_delays(settings: Settings, flat: Mapping[str, Raw]) -> _Broken | None:
    """The longest retry delay cannot be shorter than the first one."""
    retry = settings.llm.retry
    if retry.max_delay_s >= retry.base_delay_s:
        return None
    keys = ("llm.retry.max_delay_s", "llm.retry.base_delay_s")
    error = value_error(
        keys[0],
        f"must be at least llm.retry.base_delay_s ({retry.base_delay_s})",
        retry.max_delay_s,
        _source_of(flat, *keys),
    )
    return error, keys


def _check_stt_language(settings: Settings, flat: Mapping[str, Raw]) -> _Broken | None:
    """An English-only Whisper model with another language would transcribe it as English."""
    stt = settings.voice.stt
    english_only = stt.model == "tiny.en" or stt.model.rstrip("/\\").endswith(".en")
    if stt.engine != "local" or not english_only or stt.language in ("", "en"):
        return None
    keys = ("voice.stt.language", "voice.stt.model")
    error = value_error(
        keys[0],
        f"must be empty or en with the English-only model {stt.model} (set voice.stt.model = "
        '"base" for other languages)',
        stt.language,
        _source_of(flat, *keys),
    )
    return error, keys


_CROSS_FIELD_RULES: tuple[Callable[[Settings, Mapping[str, Raw]], _Broken | None], ...] = (
    _check_stt_language,
    _check_retry_delays,
)
"""The rules spanning several fields, checked in this order after every field converted."""


def _check_cross_fields(settings: Settings, flat: Mapping[str, Raw]) -> None:
    for rule in _CROSS_FIELD_RULES:
        broken = rule(settings, flat)
        if broken is not None:
            raise broken[0]


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


def tolerant_settings_from(
    toml_data: Mapping[str, Any], source: str, env: Mapping[str, str]
) -> tuple[Settings, list[Found]]:
    """Settings from a parsed file and an environment, using whatever can be used.

    Returns:
        The settings, and every mistake with the keys that took their defaults because of it
        (empty for a mistake about one key: that key is the one involved).
    """
    leaves = leaf_map()
    found: list[Found] = []

    def note(error: ConfigError) -> None:
        found.append(Found(error=error, involved=()))

    flat: dict[str, Raw] = {}
    flatten_toml(toml_data, Settings, "", source, flat, note)
    flat.update(env_overrides(env, leaves, note))
    settings = _build(Settings, "", flat, leaves, note)
    for _attempt in _CROSS_FIELD_RULES:  # each round gives the keys of one broken rule defaults
        broken = next(
            (b for rule in _CROSS_FIELD_RULES if (b := rule(settings, flat)) is not None), None
        )
        if broken is None:
            break
        error, involved = broken
        found.append(Found(error=error, involved=involved))
        for key in involved:
            flat.pop(key, None)
        settings = _build(Settings, "", flat, leaves, lambda _already_reported: None)
    return settings, found


Problem = SettingsProblem | None


@dataclass(frozen=True, kw_only=True)
class LoadedSettings:
    """The settings ARIA runs on, and what it could not use from the file or environment.

    Attributes:
        settings: the settings (defaults wherever a problem is).
        problems: each mistake once: a file that does not parse first, then in the file's
            order, then those from the environment.
        path: the settings file read (it may not exist).
        parsed: the file was read and parsed, or is absent (False: it does not parse or
            cannot be read, so nothing from it is used and no writer may replace it).
    """

    settings: Settings
    problems: tuple[SettingsProblem, ...]
    path: Path
    parsed: bool


def _parse_for_tolerant(path: Path, explicit: bool) -> tuple[dict[str, Any], str, Problem]:
    """The parsed file and its text, or an empty table and the problem that stopped it."""
    if not path.exists() and not explicit:
        return {}, "", None
    try:
        data = path.read_bytes()
    except OSError as exc:
        return {}, "", unreadable_problem(path, exc)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, "", utf8_problem(path, data, exc)
    try:
        return tomllib.loads(text), text, None
    except tomllib.TOMLDecodeError as exc:
        return {}, text, toml_problem(path, text, exc)


def load_settings_with_problems(
    path: Path | None = None, env: Mapping[str, str] | None = None
) -> LoadedSettings:
    """Settings that always load: what cannot be used is reported and left at its default.

    Args:
        path: the TOML file; None means ``paths.settings_file()`` (absent: the defaults).
        env: the environment to read overrides from; None means ``os.environ``.

    Returns:
        The settings with the problems found; never raises for anything in the file or the
        environment, and never writes the file.
    """
    explicit = path is not None
    settings_path = path if path is not None else paths.settings_file()
    toml_data, text, unparsed = _parse_for_tolerant(settings_path, explicit)
    source = f"in {settings_path}"
    settings, found = tolerant_settings_from(toml_data, source, os.environ if env is None else env)
    problems = [problem_of(f, file_source=source, file=settings_path, text=text) for f in found]
    # In the file's order first (where the user reads), then those from elsewhere.
    problems.sort(key=lambda p: (not p.file, p.line if p.line is not None else 1 << 30))
    if unparsed is not None:
        problems.insert(0, unparsed)
    for problem in problems:
        _LOGGER.debug("settings problem: %s", problem.message)
    return LoadedSettings(
        settings=settings, problems=tuple(problems), path=settings_path, parsed=unparsed is None
    )


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
