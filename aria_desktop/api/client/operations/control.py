"""Operations about the owner itself: its state and its settings (no domain types needed).

``ApiClient.connect`` asks for the state before every command that goes through a running
owner, so this table imports nothing beyond ``base``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aria_desktop.api.client.operations.base import Operation, at, member

__all__ = ["GET_SETTINGS", "STATE", "UPDATE_SETTINGS"]

STATE = Operation[None, str](method="GET", path=at("/state"), decode=member("state", str))
GET_SETTINGS = Operation[None, dict[str, Any]](
    method="GET", path=at("/settings"), decode=member("settings", dict)
)
UPDATE_SETTINGS = Operation[Mapping[str, Any], dict[str, Any]](
    method="PATCH",
    path=at("/settings"),
    decode=member("settings", dict),
    encode=lambda changes: {"json": {"changes": dict(changes)}},
)
