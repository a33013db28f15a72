"""The constraints a setting may carry: declared beside its field, checked by ``coercion``.

Constraints travel with the dataclass field (``field(metadata=rules(...))``) so that
validation, ``aria config keys`` and the shipped defaults cannot disagree about them
(see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AT_LEAST_1", "NON_NEGATIVE", "NO_RULES", "POSITIVE", "FieldRules", "rules"]

_KEY = "aria_rules"


@dataclass(frozen=True)
class FieldRules:
    """What one setting's value must satisfy (beyond its type).

    Attributes:
        minimum: (bound, inclusive) for numbers.
        maximum: inclusive upper bound for numbers.
        choices: allowed values (after ``normalize``).
        item_choices: allowed items of a list (compared lower-cased).
        normalize: applied to a (stripped) string before it is checked and stored.
        url: must be an http(s) URL ("" passes unless ``empty_ok`` is false).
        empty_ok: an empty string is allowed.
        check: returns why a value is wrong, or None; for rules no table can say.
        regex: every item is a regular expression that must compile.
    """

    minimum: tuple[float, bool] | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    item_choices: tuple[str, ...] | None = None
    normalize: Callable[[str], str] | None = None
    url: bool = False
    empty_ok: bool = True
    check: Callable[[Any], str | None] | None = None
    regex: bool = False

    @staticmethod
    def of(metadata: Mapping[str, Any]) -> FieldRules:
        """The rules stored in a dataclass field's ``metadata`` (none: ``NO_RULES``)."""
        found = metadata.get(_KEY, NO_RULES)
        assert isinstance(found, FieldRules)
        return found


NO_RULES = FieldRules()


def rules(**constraints: Any) -> Mapping[str, Any]:
    """Field ``metadata`` carrying ``FieldRules(**constraints)``.

    A misspelt constraint fails when the schema is imported, not when a user sets the value.
    """
    return {_KEY: FieldRules(**constraints)}


POSITIVE = rules(minimum=(0.0, False))
NON_NEGATIVE = rules(minimum=(0.0, True))
AT_LEAST_1 = rules(minimum=(1.0, True))
