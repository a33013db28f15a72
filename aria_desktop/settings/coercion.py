"""Turning a raw value into a setting: coercion to the field's type, then its rules.

A value comes either from TOML (it must already have the right type; an integer is accepted
where a float is expected) or as text (an ``ARIA_*`` variable, ``aria config set``, the API),
which is parsed. Then the field's ``FieldRules`` are checked in a fixed order, so the first
broken rule is the one reported (see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aria_desktop.settings.errors import type_error, value_error
from aria_desktop.settings.keys import Leaf
from aria_desktop.settings.rules import FieldRules

__all__ = ["Raw", "convert", "split_list"]

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})
_URL_RE = re.compile(r"https?://[^\s/]", re.I)


@dataclass(frozen=True)
class Raw:
    """A value before conversion, with where it came from.

    Attributes:
        value: the TOML value, or the text.
        source: where it came from, for messages ("in /path/settings.toml").
        from_string: the value is text to parse (environment, CLI, API).
    """

    value: Any
    source: str
    from_string: bool


def split_list(text: str) -> tuple[str, ...]:
    """A comma-separated list, items stripped, empty items dropped."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _parse_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(text)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_string_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


_FROM_TEXT: Mapping[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": _parse_bool,
    "tuple": split_list,
    "chains": split_list,
}
"""How text becomes a value of each kind; ValueError means it cannot."""

_TOML_TYPE_OK: Mapping[str, Callable[[object], bool]] = {
    "str": lambda value: isinstance(value, str),
    "int": lambda value: _is_number(value) and isinstance(value, int),
    "float": _is_number,
    "bool": lambda value: isinstance(value, bool),
    "tuple": _is_string_list,
    "chains": _is_string_list,
}
"""Which TOML values each kind takes as they are."""


def _coerce(leaf: Leaf, raw: Raw) -> Any:
    """Turn a TOML value or a string into the leaf's Python type, or raise ConfigError."""
    value = raw.value
    if raw.from_string:
        if not isinstance(value, str):  # pragma: no cover - callers pass strings
            raise type_error(leaf.key, leaf.kind, value, raw.source)
        try:
            result = _FROM_TEXT[leaf.kind](value)
        except ValueError:
            raise type_error(leaf.key, leaf.kind, value, raw.source) from None
    elif _TOML_TYPE_OK[leaf.kind](value):
        result = tuple(item.strip() for item in value) if isinstance(value, list) else value
    else:
        raise type_error(leaf.key, leaf.kind, value, raw.source)
    if leaf.kind != "float":
        return result
    number = float(result)
    if not math.isfinite(number):
        raise value_error(leaf.key, "must be a finite number", value, raw.source)
    return number


def _bound_text(bound: float) -> str:
    return str(int(bound)) if bound == int(bound) else str(bound)


def _below_minimum(rules: FieldRules, kind: str, value: Any) -> str | None:
    if rules.minimum is None:
        return None
    bound, inclusive = rules.minimum
    if value < bound or (value == bound and not inclusive):
        relation = "at least" if inclusive else "greater than"
        return f"must be {relation} {_bound_text(bound)}"
    return None


def _above_maximum(rules: FieldRules, kind: str, value: Any) -> str | None:
    if rules.maximum is not None and value > rules.maximum:
        return f"must be at most {_bound_text(rules.maximum)}"
    return None


def _not_a_choice(rules: FieldRules, kind: str, value: Any) -> str | None:
    if rules.choices is not None and value not in rules.choices:
        return f"must be one of {', '.join(rules.choices)}"
    return None


def _bad_items(rules: FieldRules, kind: str, value: Any) -> str | None:
    if rules.item_choices is None:
        return None
    bad = [item for item in value if item not in rules.item_choices]
    if bad:
        return f"may only contain {', '.join(rules.item_choices)} (not {', '.join(bad)})"
    return None


def _empty_chain(rules: FieldRules, kind: str, value: Any) -> str | None:
    return "must name at least one backend" if kind == "chains" and not value else None


def _empty_text(rules: FieldRules, kind: str, value: Any) -> str | None:
    if kind == "str" and not rules.empty_ok and not value.strip():
        return "must not be empty"
    return None


def _not_a_url(rules: FieldRules, kind: str, value: Any) -> str | None:
    if rules.url and value and not _URL_RE.match(value):
        return "must be an http:// or https:// URL"
    return None


def _custom_check(rules: FieldRules, kind: str, value: Any) -> str | None:
    return rules.check(value) if rules.check is not None else None


def _bad_regex(rules: FieldRules, kind: str, value: Any) -> str | None:
    if not rules.regex:
        return None
    for item in value:
        try:
            re.compile(item)
        except re.error as exc:
            return f"must hold regular expressions ({item!r}: {exc})"
    return None


_RULE_CHECKS: tuple[Callable[[FieldRules, str, Any], str | None], ...] = (
    _below_minimum,
    _above_maximum,
    _not_a_choice,
    _bad_items,
    _empty_chain,
    _empty_text,
    _not_a_url,
    _custom_check,
    _bad_regex,
)
"""Each returns why a (coerced, normalized) value breaks a rule; the first problem wins."""


def _normalized(rules: FieldRules, value: Any) -> Any:
    if rules.normalize is not None and isinstance(value, str):
        value = rules.normalize(value.strip())
    if rules.item_choices is not None:
        value = tuple(item.lower() for item in value)
    return value


def convert(leaf: Leaf, raw: Raw) -> Any:
    """The checked, normalized value of ``raw`` for ``leaf``.

    Raises:
        ConfigError: wrong type, or a broken rule; the message names the key and the source.
    """
    value = _normalized(leaf.rules, _coerce(leaf, raw))
    for check in _RULE_CHECKS:
        problem = check(leaf.rules, leaf.kind, value)
        if problem:
            raise value_error(leaf.key, problem, raw.value, raw.source)
    return value
