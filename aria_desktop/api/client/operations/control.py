"""Operations about the owner itself: its state and its settings (no domain types needed).

``ApiClient.connect`` asks for the state before every command that goes through a running
owner, so this table imports nothing beyond ``base``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from aria_desktop.api.client.operations.base import Operation, at, member
from aria_desktop.domain.settings_problems import SettingsProblem

__all__ = ["GET_SETTINGS", "STATE", "UPDATE_SETTINGS", "OwnerState"]

OwnerState = tuple[str, tuple[SettingsProblem, ...]]
"""The owner's visible state and the problems in the settings it runs with."""


def _owner_state(response: httpx.Response, _arg: object) -> OwnerState:
    body = response.json()
    problems = body.get("settings_problems") or []
    return str(body["state"]), tuple(SettingsProblem.from_dict(p) for p in problems)


STATE = Operation[None, OwnerState](method="GET", path=at("/state"), decode=_owner_state)
GET_SETTINGS = Operation[None, dict[str, Any]](
    method="GET", path=at("/settings"), decode=member("settings", dict)
)
UPDATE_SETTINGS = Operation[Mapping[str, Any], dict[str, Any]](
    method="PATCH",
    path=at("/settings"),
    decode=member("settings", dict),
    encode=lambda changes: {"json": {"changes": dict(changes)}},
)
