"""Changing settings: ``aria config set``, the settings dialog and the API's ``/settings``.

A change is validated as text (like an ``ARIA_*`` variable), merged into the parsed file, and
the whole resulting file is validated again before one atomic write, so a failed change never
leaves a broken or half-written file (see ``aria_desktop/ARCHITECTURE.md``).

The user's file is theirs (ARCHITECTURE.md: a start that never breaks): a file that does not
parse is never replaced (saving would lose what they wrote; the writer refuses in plain
words), and keys ARIA does not know, or values it cannot use, are written back as they were —
only a mistake the change itself brings is refused.
"""

from __future__ import annotations

import copy
import logging
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aria_desktop import paths
from aria_desktop.domain.errors import ConfigError
from aria_desktop.files import atomic_write
from aria_desktop.settings.coercion import Raw, convert
from aria_desktop.settings.errors import shown
from aria_desktop.settings.keys import as_setting_text, leaf_for, leaf_map, settings_as_dict
from aria_desktop.settings.loading import load_settings_with_problems, tolerant_settings_from
from aria_desktop.settings.problems import toml_problem
from aria_desktop.settings.sources import add_text_value
from aria_desktop.settings.toml_dump import dump_toml

__all__ = ["FileSettingsAccess", "check_edit", "read_for_edit", "set_value", "set_values"]

_LOGGER = logging.getLogger(__name__)


def set_value(key: str, value: str, path: Path | None = None) -> None:
    """Validate ``key = value`` and write it into the TOML file, keeping the other keys.

    The whole resulting file is validated before anything is written, and the write is atomic
    (temporary file + ``os.replace``), so a failed ``aria config set`` never leaves a broken or
    half-written file. Comments and formatting of the existing file are not preserved.

    Args:
        key: dotted key, e.g. ``llm.ollama.url`` or ``llm.chains.chat``.
        value: the value as text, coerced like an environment variable (``4``, ``0.5``,
            ``ollama,anthropic``, ``chat=ollama;vision=anthropic`` for ``llm.chains``).
        path: the TOML file; None means ``paths.settings_file()``.

    Raises:
        ConfigError: unknown key, bad value, a secret, or an existing file that is invalid.
    """
    set_values([(key, value)], path)


def set_values(
    items: Sequence[tuple[str, str]],
    path: Path | None = None,
    *,
    source: str = "from `aria config set`",
) -> None:
    """Like :func:`set_value` for several keys at once: all are written, or none is."""
    settings_path = path if path is not None else paths.settings_file()
    data = read_for_edit(settings_path)
    before = copy.deepcopy(data)
    leaves = leaf_map()
    for key, value in items:
        flat: dict[str, Raw] = {}
        add_text_value(key.strip(), value, source, leaves, flat)
        if key.strip() in leaves and leaves[key.strip()].kind == "chains":
            _set_in(data, key.strip(), {})  # the whole table is replaced
        for flat_key, raw in flat.items():
            converted = convert(leaf_for(flat_key, leaves), raw)
            _set_in(data, flat_key, list(converted) if isinstance(converted, tuple) else converted)
    check_edit(before, data, settings_path)  # validate the file as it will be
    atomic_write(settings_path, _toml_text(data, settings_path))
    _LOGGER.info("settings %s written to %s", ", ".join(k for k, _ in items), settings_path)


def read_for_edit(path: Path) -> dict[str, Any]:
    """The settings file parsed for a change ({} when absent), or a refusal in plain words.

    Raises:
        ConfigError: the file does not parse, is not UTF-8 or cannot be read; nothing is
            written, because replacing it would lose what the user wrote there.
    """
    if not path.exists():
        return {}
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = toml_problem(path, text, exc)
        at = f" at line {where.line}, column {where.column}" if where.line is not None else ""
        reason = f"it has a mistake{at}"
    except UnicodeDecodeError:
        reason = "it is not saved as UTF-8 text"
    except OSError as exc:
        reason = f"it cannot be read ({exc.strerror or exc})"
    raise ConfigError(
        f"Your settings were not saved: {reason}, and saving now would overwrite what you "
        f"wrote in {path}.",
        hint="Fix that line in the file (or move the file away), then save again.",
    )


def check_edit(before: Mapping[str, Any], after: Mapping[str, Any], path: Path) -> None:
    """Refuse ``after`` if it has a mistake ``before`` did not have (the change's own).

    Mistakes already in the file (a misspelt key, a bad value) are the user's to fix and do
    not stop a change elsewhere; they are written back as they were.

    Raises:
        ConfigError: the first new mistake, worded as the strict load words it.
    """
    source = f"in {path}"
    _settings, old = tolerant_settings_from(before, source, env={})
    _settings, new = tolerant_settings_from(after, source, env={})
    known = {found.error.message for found in old}
    for found in new:
        if found.error.message not in known:
            raise found.error


def _toml_text(data: Mapping[str, Any], path: Path) -> bytes:
    """``data`` as the file's bytes, or a refusal when it holds what the writer cannot write."""
    try:
        return dump_toml(data).encode("utf-8")
    except TypeError:
        raise ConfigError(
            f"Your settings were not saved: {path} holds a value ARIA cannot write back (a "
            "date, or a list of tables), and saving would lose it.",
            hint="Remove that value from the file by hand, then save again.",
        ) from None


def _set_in(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[last] = value


def _as_text(key: str, value: Any) -> str:
    """A JSON value as the text ``set_value`` takes, or a ConfigError naming the key."""
    text = as_setting_text(value)
    if text is None:
        raise ConfigError(
            f"Setting '{key}' cannot take the value {shown(value)}.",
            hint="Use a string, number, boolean or list of strings (without commas).",
        )
    return text


class FileSettingsAccess:
    """``core.ports.SettingsAccess`` over the settings file (plus ``ARIA_*`` variables).

    Args:
        path: the TOML file; None means ``paths.settings_file()``.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path

    def current(self) -> dict[str, Any]:
        """Every setting as it would load now (secrets live in the keyring, never here)."""
        return settings_as_dict(load_settings_with_problems(self._path).settings)

    def update(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and write every change at once; ConfigError leaves the file untouched."""
        if not changes:
            return self.current()
        items = [(str(key), _as_text(str(key), value)) for key, value in changes.items()]
        set_values(items, self._path, source="from the API")
        return self.current()
