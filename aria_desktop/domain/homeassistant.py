"""Home Assistant facts: an entity's state as ARIA sees it, and which domains act at once.

Entities, states and area names come from the user's Home Assistant: they are data, never
instructions (ARCHITECTURE.md: safety). Whether a service call runs at once or waits for the
user's out-of-band confirmation is decided from the service's domain and the domains of the
entities it targets, by ``core/homeassistant/control.py``; the defaults live here so the settings
schema and the core agree on one list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "ALWAYS_CONFIRM_DOMAINS",
    "DEFAULT_IMMEDIATE_DOMAINS",
    "ENTITY_ID_RE",
    "SLUG_RE",
    "EntityState",
    "entity_domain",
]

SLUG_RE: Final = re.compile(r"^[a-z0-9_]{1,64}$")
"""A Home Assistant domain or service name (``light``, ``turn_on``)."""

ENTITY_ID_RE: Final = re.compile(r"^[a-z0-9_]{1,64}\.[a-z0-9_]{1,255}$")
"""An entity id (``light.kitchen``): domain, a dot, an object id."""

DEFAULT_IMMEDIATE_DOMAINS: Final[tuple[str, ...]] = (
    "light",
    "switch",
    "fan",
    "media_player",
    "climate",
    "humidifier",
    "water_heater",
    "input_boolean",
    "input_number",
    "input_select",
    "remote",
)
"""Domains whose services run without asking: easily undone, nothing opens or unlocks."""

ALWAYS_CONFIRM_DOMAINS: Final[frozenset[str]] = frozenset(
    {"lock", "alarm_control_panel", "cover", "homeassistant", "script", "scene", "automation"}
)
"""Domains that always ask, even if configured to run at once: they open, unlock, disarm, or
(``homeassistant``, ``script``, ``scene``, ``automation``) can reach any entity at all."""


def entity_domain(entity_id: str) -> str:
    """The domain part of ``light.kitchen`` (``light``); "" when there is no dot."""
    domain, dot, _rest = entity_id.partition(".")
    return domain if dot else ""


@dataclass(frozen=True, kw_only=True)
class EntityState:
    """One entity as Home Assistant reported it.

    Attributes:
        entity_id: ``domain.object_id``.
        state: the state string (``on``, ``off``, ``21.5``, ``unavailable``...).
        name: the friendly name (the entity id when it has none).
        area: the area's name ("" when the entity is in no area or areas are unknown).
        attributes: the other attributes Home Assistant gave (brightness, temperature...).
        last_changed: ISO timestamp of the last state change ("" if not given).
    """

    entity_id: str
    state: str
    name: str
    area: str = ""
    attributes: dict[str, Any] = field(default_factory=dict, compare=False)
    last_changed: str = ""

    @property
    def domain(self) -> str:
        """The entity's domain (``light``)."""
        return entity_domain(self.entity_id)
