"""Domain values back from the API's JSON: one decoder for every stdlib dataclass.

The routes answer with bodies whose fields carry the names of the domain dataclasses
(``api.server.schemas`` reads them from the same attributes), so the client rebuilds the domain
values from the dataclass fields and their type hints instead of a hand-written function per type:
a field added to a domain value reaches the client without a new line here
(``aria_desktop/ARCHITECTURE.md``, "API").

Rules: keys the dataclass does not have are ignored (a newer server may send more); missing
keys take the field's default; lists become tuples where the field is a tuple; nested
dataclasses are decoded from objects, or from lists for positional ones (a ``Rect`` travels as
``[x, y, width, height]``, a ``Point`` as ``[x, y]``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

__all__ = ["from_json", "list_from_json"]

_T = TypeVar("_T")


_HINTS: dict[type[Any], dict[str, Any]] = {}
"""Resolved field hints per dataclass (resolving them costs more than decoding a value)."""


def _field_hints(cls: type[Any]) -> dict[str, Any]:
    """The init fields of dataclass ``cls`` and their resolved type hints."""
    found = _HINTS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}
        _HINTS[cls] = found
    return found


def _convert(hint: Any, value: Any) -> Any:
    """``value`` from JSON as the type ``hint`` describes (only where JSON differs)."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin is tuple:
        item = get_args(hint)[0]
        return tuple(_convert(item, v) for v in value)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in get_args(hint) if arg is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if isinstance(value, Sequence) and not isinstance(value, str):
            return hint(*value)
        return from_json(hint, value)
    return value


def from_json(cls: type[_T], data: Mapping[str, Any]) -> _T:
    """The dataclass ``cls`` from a JSON object.

    Raises:
        TypeError: a field without a default is missing.
    """
    hints = _field_hints(cls)
    values = {name: _convert(hint, data[name]) for name, hint in hints.items() if name in data}
    return cls(**values)


def list_from_json(cls: type[_T], data: Sequence[Mapping[str, Any]]) -> list[_T]:
    """A JSON array of objects as a list of ``cls``."""
    return [from_json(cls, item) for item in data]
