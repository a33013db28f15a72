"""Bodies of the settings and of the configured automations."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from aria_desktop.api.server.schemas.common import FromDomain, Strict

__all__ = [
    "AutomationOut",
    "AutomationRunOut",
    "SettingsOut",
    "SettingsPatch",
]


class SettingsOut(BaseModel):
    """Every setting as nested tables; ``restart_required``: a change waits for a restart.

    Secrets stay in the keyring; only ``llm`` and ``voice`` apply live (ARCHITECTURE.md).
    """

    settings: dict[str, Any]
    restart_required: bool = False


class SettingsPatch(Strict):
    """Settings to change, by dotted key (``{"agent.max_steps": 4}``); all or nothing."""

    changes: dict[str, str | int | float | bool | list[str] | dict[str, list[str]]] = Field(
        min_length=1, max_length=100
    )


class AutomationOut(FromDomain):
    """A configured automation."""

    name: str
    prompt: str
    schedule: str
    webhook: bool
    on_event: list[str] = Field(
        default_factory=list, description="Events that start it (timer-finished, reminder-due)."
    )
    conversation: str
    notify: bool
    post_url: str
    backend: str


class AutomationRunOut(BaseModel):
    """A started automation run; its events carry ``run_id``."""

    name: str
    run_id: str
    conversation_id: str
