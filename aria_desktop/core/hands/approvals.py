"""What a tool's policy prepared for the call it approved, handed to the tool's handler.

The policy plans a change (a diff, a command's assessment) and the user confirms exactly that;
the handler then applies the remembered plan instead of computing a new one, so what runs is
what was shown (ARCHITECTURE.md: safety). Keyed by the call's arguments; bounded.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, Generic, TypeVar

__all__ = ["Approvals"]

_T = TypeVar("_T")
_MAX_KEPT = 64


class Approvals(Generic[_T]):
    """A small map from a call's arguments to what its policy prepared."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, _T] = OrderedDict()

    @staticmethod
    def _key(arguments: dict[str, Any]) -> str:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)

    def remember(self, arguments: dict[str, Any], item: _T) -> None:
        """Keep ``item`` for a call with ``arguments`` (the oldest beyond 64 are dropped)."""
        key = self._key(arguments)
        self._items[key] = item
        self._items.move_to_end(key)
        while len(self._items) > _MAX_KEPT:
            self._items.popitem(last=False)

    def take(self, arguments: dict[str, Any]) -> _T | None:
        """The item kept for ``arguments`` (removed), or None."""
        return self._items.pop(self._key(arguments), None)
