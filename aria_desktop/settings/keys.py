"""The schema seen as dotted keys (``llm.ollama.url``): what can be set, and what it holds.

Loading, writing and ``aria config keys`` all address settings by dotted key; this module
walks the dataclasses of ``settings.schema`` once to answer "which key is this, of what kind,
with which rules" for all of them (see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aria_desktop.settings.rules import FieldRules
from aria_desktop.settings.schema import Settings

__all__ = [
    "ENV_PREFIX",
    "KIND_EXPECTED",
    "NAME_RE",
    "Leaf",
    "as_setting_text",
    "describe_keys",
    "env_var_name",
    "fields_of",
    "item_leaves",
    "leaf_for",
    "leaf_map",
    "named_parent",
    "section_class",
    "settings_as_dict",
]

ENV_PREFIX = "ARIA_"
NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
"""Names of entries in a named table (``automations.rules.<name>``)."""


@dataclass(frozen=True)
class Leaf:
    """One settable key: its dotted name, kind and rules.

    Attributes:
        key: the dotted key.
        kind: str, int, float, bool, tuple (list of strings), chains (``llm.chains``) or named
            (a table of named tables, ``automations.rules``).
        default: the schema's default value.
        rules: what a value must satisfy.
        item: for ``named``: the dataclass of each entry.
    """

    key: str
    kind: str
    default: Any
    rules: FieldRules
    item: type | None = None


KIND_EXPECTED = {
    "str": "a string (str)",
    "int": "an integer (int)",
    "float": "a number (float)",
    "bool": "a boolean (bool: true/false)",
    "tuple": "a list of strings (tuple[str, ...])",
    "chains": "a list of backend names (tuple[str, ...])",
    "named": "a table of named tables",
    "table": "a table",
}
"""What a value of each kind must be, as error messages say it."""

_KIND_TYPE_NAME = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "tuple": "tuple[str, ...]",
    "chains": "dict[str, tuple[str, ...]]",
    "named": "dict[str, table]",
}


def _kind_of(hint: Any) -> str | type:
    """Map a resolved type hint to a leaf kind, or return the nested dataclass type."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint
    if hint in (str, int, float, bool):
        return str(hint.__name__)
    origin = typing.get_origin(hint)
    if origin is tuple:
        return "tuple"
    if origin is Mapping:
        item = typing.get_args(hint)[1]
        if isinstance(item, type) and dataclasses.is_dataclass(item):
            return "named"
        return "chains"
    raise TypeError(f"unsupported settings type {hint!r}")  # a schema bug, not a user error


def fields_of(cls: type) -> Iterator[tuple[dataclasses.Field[Any], str | type]]:
    """The fields of a settings dataclass with their kind (or nested section class)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        yield f, _kind_of(hints[f.name])


def default_of(f: dataclasses.Field[Any]) -> Any:
    """A field's default value (calling its factory)."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    raise TypeError(f"settings field {f.name} has no default")


def _leaves(cls: type = Settings, prefix: str = "") -> Iterator[Leaf]:
    for f, kind in fields_of(cls):
        key = prefix + f.name
        if isinstance(kind, type):
            yield from _leaves(kind, key + ".")
            continue
        item = None
        if kind == "named":
            item = typing.get_args(typing.get_type_hints(cls)[f.name])[1]
        yield Leaf(key, kind, default_of(f), FieldRules.of(f.metadata), item)


def leaf_map() -> dict[str, Leaf]:
    """Every settable key of the schema, by dotted key."""
    return {leaf.key: leaf for leaf in _leaves()}


def item_leaves(leaf: Leaf, name: str) -> dict[str, Leaf]:
    """The leaves of one entry of a ``named`` table (``automations.rules.<name>.*``)."""
    assert leaf.item is not None
    return {sub.key: sub for sub in _leaves(leaf.item, f"{leaf.key}.{name}.")}


def named_parent(key: str, leaves: Mapping[str, Leaf]) -> tuple[Leaf, str, str] | None:
    """For ``<named table>.<name>.<field>``: (the table's leaf, name, field); else None."""
    for leaf in leaves.values():
        if leaf.kind == "named" and key.startswith(leaf.key + "."):
            name, dot, field_name = key[len(leaf.key) + 1 :].partition(".")
            if (
                dot
                and NAME_RE.match(name)
                and f"{leaf.key}.{name}.{field_name}" in (item_leaves(leaf, name))
            ):
                return leaf, name, field_name
    return None


def leaf_for(key: str, leaves: Mapping[str, Leaf]) -> Leaf:
    """The leaf converting ``key``: a plain leaf, a chains entry, or a named-table field."""
    if key in leaves:
        return leaves[key]
    named = named_parent(key, leaves)
    if named is not None:
        leaf, name, _field = named
        return item_leaves(leaf, name)[key]
    return dataclasses.replace(leaves[key.rpartition(".")[0]], key=key)


def section_class(dotted: str) -> type | None:
    """The dataclass at a dotted section path ("" is ``Settings``), or None."""
    cls: type = Settings
    if not dotted:
        return cls
    for part in dotted.split("."):
        kinds = dict((f.name, k) for f, k in fields_of(cls))
        kind = kinds.get(part)
        if not isinstance(kind, type):
            return None
        cls = kind
    return cls


# --- introspection for the CLI --------------------------------------------------------------


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def settings_as_dict(settings: Settings) -> dict[str, Any]:
    """Nested plain dicts/lists/scalars (JSON- and TOML-ready) for ``aria config show``."""
    result = _plain(settings)
    assert isinstance(result, dict)
    return result


def _is_text_list(value: object, *, commas_ok: bool) -> bool:
    return isinstance(value, list | tuple) and all(
        isinstance(item, str) and (commas_ok or "," not in item) for item in value
    )


def as_setting_text(value: object) -> str | None:
    """``value`` as the text ``aria config set`` and ``ARIA_*`` variables take, if it has one.

    Booleans are ``true``/``false``, lists comma-separated, ``llm.chains`` ``agent=a,b;...``;
    None for what no text can express (a list item with a comma, a nested table).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    if _is_text_list(value, commas_ok=False):
        return ",".join(typing.cast(list[str], value))
    if isinstance(value, Mapping) and all(
        isinstance(k, str) and _is_text_list(v, commas_ok=True) for k, v in value.items()
    ):
        return ";".join(f"{k}={','.join(v)}" for k, v in value.items())
    return None


def describe_keys() -> list[tuple[str, str, str]]:
    """Every settable key as (dotted key, type, default as text) in schema order.

    The default is written the way ``aria config set`` and ``ARIA_*`` variables take it
    (lists comma-separated, ``llm.chains`` as ``agent=a,b;agent2=c``).
    """
    return [
        (leaf.key, _KIND_TYPE_NAME[leaf.kind], as_setting_text(leaf.default) or "")
        for leaf in _leaves()
    ]


def env_var_name(key: str) -> str:
    """The environment variable overriding a dotted key.

    ``llm.ollama.url`` -> ``ARIA_LLM__OLLAMA__URL``.
    """
    return ENV_PREFIX + "__".join(part.upper() for part in key.split("."))
