"""Changing settings: ``aria config set``, the settings dialog and the API's ``/settings``.

A change is validated as text (like an ``ARIA_*`` variable), merged into the parsed file, and
the whole resulting file is validated again before one atomic write, so a failed change never
leaves a broken or half-written file (see ``aria_desktop/ARCHITECTURE.md``).

The user's file is theirs (ARCHITECTURE.md: a start that never breaks): a file that does not
parse is never replaced (saving would lose what they wrote; the writer refuses in plain
words), and keys ARIA does not know, or values it cannot use, are written back as they were —
only a mistake the change itself brings is refused. The change is made in place with
``tomlkit``, so comments, blank lines, key order, dates and arrays of tables stay as they
were: a changed value keeps its place and end-of-line comment, a new key joins its table, a
new table comes last in its section as a plain ``[section.sub]`` header. The text written is
read back with ``tomllib`` and must equal the validated result, else nothing is written.
"""

from __future__ import annotations

import copy
import logging
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop import paths
from aria_desktop.domain.errors import ConfigError
from aria_desktop.files import atomic_write
from aria_desktop.settings.coercion import Raw, convert
from aria_desktop.settings.errors import shown
from aria_desktop.settings.keys import as_setting_text, leaf_for, leaf_map, settings_as_dict
from aria_desktop.settings.loading import load_settings_with_problems, tolerant_settings_from
from aria_desktop.settings.problems import toml_problem
from aria_desktop.settings.sources import add_text_value

if TYPE_CHECKING:  # tomlkit is imported when a change is written: `aria` starts without it
    from tomlkit.container import Container, OutOfOrderTableProxy
    from tomlkit.items import AbstractTable, Item

    _Node = Container | AbstractTable | OutOfOrderTableProxy

__all__ = [
    "FileSettingsAccess",
    "add_named_tables",
    "check_edit",
    "read_for_edit",
    "set_value",
    "set_values",
]

_LOGGER = logging.getLogger(__name__)

_Edit = tuple[str, Any]
"""A dotted key and its new value; ``{}`` replaces the whole table (a ``chains`` key)."""


def set_value(key: str, value: str, path: Path | None = None) -> None:
    """Validate ``key = value`` and write it into the TOML file, keeping the rest of it.

    The whole resulting file is validated before anything is written, and the write is atomic
    (temporary file + ``os.replace``), so a failed ``aria config set`` never leaves a broken or
    half-written file. The file's comments, blank lines and key order are kept: the value is
    changed where it stands (its end-of-line comment stays), a new key is added to its table.

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
    text, before = _parsed_for_edit(settings_path)
    data = copy.deepcopy(before)
    leaves = leaf_map()
    edits: list[_Edit] = []
    for key, value in items:
        flat: dict[str, Raw] = {}
        add_text_value(key.strip(), value, source, leaves, flat)
        if key.strip() in leaves and leaves[key.strip()].kind == "chains":
            edits.append((key.strip(), {}))  # the whole table is replaced
        for flat_key, raw in flat.items():
            converted = convert(leaf_for(flat_key, leaves), raw)
            edits.append((flat_key, list(converted) if isinstance(converted, tuple) else converted))
    for dotted, new in edits:
        _set_in(data, dotted, copy.deepcopy(new))
    check_edit(before, data, settings_path)  # validate the file as it will be
    atomic_write(settings_path, _edited_text(text, edits, data, settings_path).encode("utf-8"))
    _LOGGER.info("settings %s written to %s", ", ".join(k for k, _ in items), settings_path)


def add_named_tables(
    path: Path,
    section: str,
    tables: Mapping[str, Mapping[str, Any]],
    *,
    before_write: Callable[[list[str]], None] | None = None,
) -> list[str]:
    """Add named tables under ``section`` (``aria mcp import``: ``mcp.servers``), keeping the file.

    A name already there is kept as it is (not added). The file is validated as it will be,
    then ``before_write`` runs with the names to add (the importer stores their secrets), then
    the tables are written into the file in place, as :func:`set_values` writes.

    Returns:
        The names added, in order.

    Raises:
        ConfigError: the file does not parse, or the tables bring a mistake; nothing written.
    """
    text, before = _parsed_for_edit(path)
    data = copy.deepcopy(before)
    node = data
    for part in section.split("."):
        node = node.setdefault(part, {})
    added = [name for name in tables if name not in node]
    edits: list[_Edit] = []
    for name in added:
        node[name] = copy.deepcopy(dict(tables[name]))
        edits.extend(_leaves(f"{section}.{name}", tables[name]))
    check_edit(before, data, path)
    if before_write is not None:
        before_write(added)
    if added:
        atomic_write(path, _edited_text(text, edits, data, path).encode("utf-8"))
    return added


def _leaves(prefix: str, table: Mapping[str, Any]) -> list[_Edit]:
    """A table as the edits that write it: a key per value, a sub-table per mapping."""
    edits: list[_Edit] = [(prefix, {})] if not table else []
    for key, value in table.items():
        if isinstance(value, Mapping):
            edits.extend(_leaves(f"{prefix}.{key}", value))
        else:
            edits.append((f"{prefix}.{key}", copy.deepcopy(value)))
    return edits


def read_for_edit(path: Path) -> dict[str, Any]:
    """The settings file parsed for a change ({} when absent), or a refusal in plain words.

    Raises:
        ConfigError: the file does not parse, is not UTF-8 or cannot be read; nothing is
            written, because replacing it would lose what the user wrote there.
    """
    return _parsed_for_edit(path)[1]


def _parsed_for_edit(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and its parse ("" and {} when absent); one read serves both."""
    if not path.exists():
        return "", {}
    try:
        text = path.read_bytes().decode("utf-8")
        return text, tomllib.loads(text)
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


# --- the change made in the user's text (tomlkit) ----------------------------------------------


def _edited_text(text: str, edits: Sequence[_Edit], data: Mapping[str, Any], path: Path) -> str:
    """``text`` with ``edits`` made in place; it must read back as exactly ``data``.

    ``data`` is what was validated; the read-back makes sure the file written is that, whatever
    layout the user's file has (out-of-order tables, dotted keys, inline tables).

    Raises:
        ConfigError: the change cannot be written into this file without changing other
            settings in it (nothing is written).
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(text)
        for dotted, value in edits:
            _edit(document, dotted.split("."), value)
        edited = tomlkit.dumps(document)
        if tomllib.loads(edited) == data:
            return edited if edited.endswith("\n") or not edited else edited + "\n"
    except (TOMLKitError, tomllib.TOMLDecodeError, LookupError, ValueError, TypeError) as exc:
        _LOGGER.warning("settings change not written into %s: %s", path, exc)
    else:
        _LOGGER.warning("settings change into %s would not read back as validated", path)
    raise ConfigError(
        f"Your settings were not saved: ARIA could not make this change in {path} without "
        "changing other settings written there.",
        hint="Make the change in the file by hand (it is plain text), then check it with "
        "`aria config check`.",
    )


def _edit(node: _Node, parts: Sequence[str], value: Any) -> None:
    """Set ``parts`` to ``value`` under ``node``; a value where a table must go is replaced."""
    from tomlkit.container import Container, OutOfOrderTableProxy
    from tomlkit.items import AbstractTable

    head, *rest = parts
    if not rest:
        if isinstance(value, dict):
            _replace_table(node, head)
        else:
            _set_key(node, head, _toml_item(value))
        return
    child = node.get(head)
    if isinstance(child, AbstractTable | Container | OutOfOrderTableProxy):
        _edit(child, rest, value)
        return
    if child is not None:
        del node[head]
    _add_table(node, list(parts), value)


def _toml_item(value: Any) -> Item:
    """A new value as tomlkit writes it; a text with line breaks stays readable over lines."""
    import tomlkit

    if isinstance(value, str) and "\n" in value:
        return tomlkit.string(value, multiline=True)
    item: Item = tomlkit.item(value)
    return item


def _set_key(node: _Node, key: str, item: Item) -> None:
    """Change ``key`` where it stands (keeping its comment), or add it after the table's keys."""
    from tomlkit.items import AoT, Table

    if key in node or not isinstance(node, Table):
        node[key] = item  # tomlkit keeps the old value's place, spacing and comment
        return
    body = node.value.body
    if any(isinstance(entry, Table | AoT) for _, entry in body):
        node.add(key, item)  # tomlkit puts it before the sub-tables
        return
    keyed = [entry for name, entry in body if name is not None]
    tail = _pop_trailing(body, from_blank=False)  # comments after the keys stay after them
    if keyed:
        item.trivia.indent = keyed[-1].trivia.indent  # indented like the key above it
        node.raw_append(key, item)
    else:
        node.add(key, item)
    for entry in tail:
        node.raw_append(None, entry)


def _replace_table(node: _Node, key: str) -> None:
    """Put an empty table at ``key`` (a ``chains`` key replaces the whole table).

    A ``[header]`` table keeps its place, its header's comment and what follows its last key
    after a blank line (the comments above the next table).
    """
    import tomlkit
    from tomlkit.items import InlineTable, Table

    old = node.get(key)
    if isinstance(old, InlineTable):
        node[key] = tomlkit.inline_table()
        return
    if not isinstance(old, Table) or old.is_super_table():
        if old is not None:
            del node[key]
        _add_table(node, [key], {})
        return
    new = tomlkit.table()
    new.trivia.indent, new.trivia.comment_ws = old.trivia.indent, old.trivia.comment_ws
    new.trivia.comment, new.trivia.trail = old.trivia.comment, old.trivia.trail
    tail = _pop_trailing(old.value.body, from_blank=True)
    node[key] = new
    for entry in tail:
        new.raw_append(None, entry)


def _add_table(node: _Node, parts: Sequence[str], value: Any) -> None:
    """Add the missing tables ``parts[:-1]`` under ``node`` and the key ``parts[-1]`` in them.

    The new table is one readable ``[a.b]`` header at the end of ``node``'s section, with a
    blank line before it; comments that stood above the next table stay above it.
    """
    import tomlkit
    from tomlkit.container import Container
    from tomlkit.items import InlineTable, Table

    names = list(parts) if isinstance(value, dict) else list(parts[:-1])
    if isinstance(node, InlineTable):  # inside { ... } only inline tables can go
        tables: list[Any] = [tomlkit.inline_table() for _ in names]
    else:
        tables = [tomlkit.table(is_super_table=True) for _ in names[:-1]]
        tables.append(tomlkit.table())
    for parent, name, child in zip(tables, names[1:], tables[1:], strict=False):
        parent.add(name, child)
    innermost = tables[-1]
    if not isinstance(value, dict):
        innermost.add(parts[-1], _toml_item(value))
    if isinstance(node, InlineTable):
        node[names[0]] = tables[0]
        return
    if not isinstance(node, Container | Table):  # a table split over the file: tomlkit places
        innermost.add(tomlkit.nl())  # it after one of the parts, maybe above another table
        node[names[0]] = tables[0]
        return
    container = node if isinstance(node, Container) else node.value
    tail = _pop_trailing(_last_body(container, nested=isinstance(node, Table)), from_blank=True)
    if isinstance(node, Table) or any(entry.as_string().strip() for _, entry in container.body):
        tables[0].trivia.indent = "\n"  # one blank line above the header (tomlkit adds none)
    node.add(names[0], tables[0])
    for entry in tail:
        innermost.raw_append(None, entry)


def _last_body(container: Container, *, nested: bool) -> list[tuple[Any, Item]]:
    """The body whose text ends ``container``'s: its last table's, however deep.

    ``nested``: ``container`` is a table's own; the document's own body (no table in it) is
    [], so comments at the top of a file stay there.
    """
    from tomlkit.items import Table

    body = container.body
    while body and isinstance(body[-1][1], Table):
        body, nested = body[-1][1].value.body, True
    return body if nested else []


def _pop_trailing(body: list[tuple[Any, Item]], *, from_blank: bool) -> list[Item]:
    """Remove and return the comments and blank lines that end ``body``.

    With ``from_blank``, only from the last blank line on: comments right under the last key
    are that table's, comments after a blank line belong above whatever follows. Items
    without a key are in no index of tomlkit's, so they can be taken off the end.
    """
    from tomlkit.items import Comment, Whitespace

    start = len(body)
    while (
        start
        and body[start - 1][0] is None
        and isinstance(body[start - 1][1], Comment | Whitespace)
    ):
        start -= 1
    if from_blank:
        blanks = [i for i in range(start, len(body)) if isinstance(body[i][1], Whitespace)]
        start = blanks[-1] if blanks else len(body)
    tail = [entry for _, entry in body[start:]]
    del body[start:]
    return tail


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
