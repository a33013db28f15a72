"""ARIA drives Home Assistant: chat tools to read entity states and to call services.

Two tools reach a ``core.ports.HomeAssistantPort``: ``ha_states`` (read-only: by entity id,
name, area, domain) and ``ha_call_service``. Whether a call runs at once is decided by
``decisions.service_decision``, a deterministic policy outside the model (ARCHITECTURE.md: safety):
a service runs at once only when its domain and the domain of every entity it targets are
configured to (``homeassistant.immediate_domains``: lights, switches, fans, media players,
climate...); locks, alarm panels, covers (garage doors), scripts, scenes and every domain not
listed wait for the user's out-of-band confirmation, and a malformed call is refused. Targets
are exactly the ``entity_ids`` argument (``data`` may not carry ``entity_id``, ``area_id``,
``device_id``...), so the policy sees every entity a call can touch.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aria_desktop.core.homeassistant.decisions import (
    TARGET_KEYS,
    match_entities,
    service_decision,
)
from aria_desktop.core.tools import PolicyDecision, PolicyHook, Tool
from aria_desktop.domain.chat import CapabilityStatus, ToolCall
from aria_desktop.domain.errors import HomeAssistantError, ToolArgumentsError
from aria_desktop.domain.homeassistant import (
    ALWAYS_CONFIRM_DOMAINS,
    DEFAULT_IMMEDIATE_DOMAINS,
    ENTITY_ID_RE,
    EntityState,
)

if TYPE_CHECKING:
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import HomeAssistantPort

__all__ = [
    "CALL_TOOL",
    "STATES_TOOL",
    "HomeAssistantConfig",
    "HomeAssistantControl",
]

STATES_TOOL = "ha_states"
CALL_TOOL = "ha_call_service"

_NOISY_ATTRIBUTES = frozenset(
    {"entity_picture", "icon", "supported_features", "supported_color_modes", "attribution"}
)
_MAX_ATTRIBUTE_CHARS = 200


@dataclass(frozen=True, kw_only=True)
class HomeAssistantConfig:
    """How ARIA uses Home Assistant.

    Attributes:
        immediate_domains: service domains that run without asking (never one of
            ``ALWAYS_CONFIRM_DOMAINS``; those are ignored here if listed).
        max_results: entities one ``ha_states`` answer lists at most.
    """

    immediate_domains: frozenset[str] = field(
        default_factory=lambda: frozenset(DEFAULT_IMMEDIATE_DOMAINS)
    )
    max_results: int = 50


def _attributes(entity: EntityState) -> dict[str, Any]:
    """The attributes worth showing a model: short ones, without pictures and bit masks."""
    shown = {}
    for key, value in entity.attributes.items():
        if key in _NOISY_ATTRIBUTES:
            continue
        if len(json.dumps(value, ensure_ascii=False, default=str)) <= _MAX_ATTRIBUTE_CHARS:
            shown[key] = value
    return shown


def _describe(entity: EntityState, *, full: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"entity_id": entity.entity_id, "name": entity.name}
    out["state"] = entity.state
    if entity.area:
        out["area"] = entity.area
    if full:
        out["attributes"] = _attributes(entity)
    return out


_STATES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "entity_id": {"type": "string", "maxLength": 300, "description": "e.g. light.kitchen"},
        "name": {"type": "string", "maxLength": 200, "description": "words of its name"},
        "area": {"type": "string", "maxLength": 200, "description": "area name, e.g. Kitchen"},
        "domain": {"type": "string", "maxLength": 64, "description": "e.g. light, sensor"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200},
    },
    "additionalProperties": False,
}

_CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "domain": {"type": "string", "minLength": 1, "maxLength": 64, "description": "light"},
        "service": {"type": "string", "minLength": 1, "maxLength": 64, "description": "turn_on"},
        "entity_ids": {
            "type": "array",
            "items": {"type": "string", "maxLength": 300},
            "maxItems": 50,
            "description": 'the entities to act on, e.g. ["light.kitchen"]',
        },
        "data": {
            "type": "object",
            "description": 'service data without targets, e.g. {"brightness_pct": 40}',
        },
    },
    "required": ["domain", "service", "entity_ids"],
    "additionalProperties": False,
}


class HomeAssistantControl:
    """The Home Assistant tools, their policy and their capability, over one port.

    Args:
        port: the Home Assistant instance.
        config: immediate domains and result size.
    """

    def __init__(self, port: HomeAssistantPort, config: HomeAssistantConfig | None = None) -> None:
        self.port = port
        self.config = config or HomeAssistantConfig()
        self._immediate = self.config.immediate_domains - ALWAYS_CONFIRM_DOMAINS

    # --- reading ---------------------------------------------------------------------------

    async def find(
        self, *, entity_id: str = "", name: str = "", area: str = "", domain: str = ""
    ) -> list[EntityState]:
        """Entities by id, or matching name / area / domain, with their areas filled in."""
        if entity_id:
            state, areas = await asyncio.gather(
                self.port.state(entity_id), self.port.entity_areas()
            )
            return [_with_area(state, areas)]
        states, areas = await asyncio.gather(self.port.states(), self.port.entity_areas())
        if area.strip() and not areas:
            raise HomeAssistantError(
                "Home Assistant did not tell ARIA which entities are in which area.",
                hint="Areas need a token of an administrator user; search by name or domain.",
            )
        located = [_with_area(state, areas) for state in states]
        return match_entities(located, name=name, area=area, domain=domain)

    async def _states_tool(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id = str(args.get("entity_id", "")).strip()
        if entity_id and not ENTITY_ID_RE.match(entity_id):
            raise ToolArgumentsError(
                f"{entity_id!r} is not an entity id.", hint="Entity ids look like light.kitchen."
            )
        found = await self.find(
            entity_id=entity_id,
            name=str(args.get("name", "")),
            area=str(args.get("area", "")),
            domain=str(args.get("domain", "")),
        )
        limit = min(int(args.get("limit", self.config.max_results)), self.config.max_results)
        result: dict[str, Any] = {
            "count": len(found),
            "entities": [_describe(e, full=len(found) <= 10) for e in found[:limit]],
        }
        if len(found) > limit:
            result["not_shown"] = len(found) - limit
        if not found:
            result["note"] = "No entity matches; try fewer words, or only a domain or area."
        return result

    # --- acting ----------------------------------------------------------------------------

    async def call(
        self, domain: str, service: str, entity_ids: list[str], data: Mapping[str, Any]
    ) -> list[EntityState]:
        """Check every target exists, then call the service (targets put into the data)."""
        targeted = sorted(TARGET_KEYS & set(data))
        if targeted:
            raise ToolArgumentsError(
                f"Service data may not contain {', '.join(targeted)}.",
                hint="Name the targets in entity_ids (look them up with ha_states).",
            )
        await asyncio.gather(*(self.port.state(e) for e in entity_ids))
        body = dict(data)
        if entity_ids:
            body["entity_id"] = list(entity_ids)
        return await self.port.call_service(domain, service, body)

    async def _call_tool(self, args: dict[str, Any]) -> dict[str, Any]:
        domain, service = str(args["domain"]), str(args["service"])
        changed = await self.call(
            domain, service, [str(e) for e in args["entity_ids"]], args.get("data") or {}
        )
        return {
            "called": f"{domain}.{service}",
            "changed": [_describe(e, full=False) for e in changed[: self.config.max_results]],
        }

    # --- wiring ----------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        """``ha_states`` (read-only) and ``ha_call_service`` (decided by the policy hook)."""
        return [
            Tool(
                name=STATES_TOOL,
                description="Read Home Assistant entities (lights, sensors, locks...) with "
                "their state: by entity_id, or by words of the name, area and/or domain.",
                parameters=_STATES_SCHEMA,
                permission="read_only",
                handler=self._states_tool,
            ),
            Tool(
                name=CALL_TOOL,
                description="Call a Home Assistant action (service) such as light.turn_on on "
                "entities. Locks, alarms, covers and other sensitive domains ask the user first.",
                parameters=_CALL_SCHEMA,
                permission="consequential",
                handler=self._call_tool,
                summarize=_summarize_call,
            ),
        ]

    def policy_hook(self, inner: PolicyHook) -> PolicyHook:
        """A ``PolicyHook``: service calls by :func:`service_decision`, other tools by ``inner``."""

        async def hook(tool: Tool, call: ToolCall) -> PolicyDecision:
            if tool.name != CALL_TOOL:
                return await inner(tool, call)
            args = call.arguments
            data = args.get("data")
            return service_decision(
                str(args.get("domain", "")),
                str(args.get("service", "")),
                [str(e) for e in args.get("entity_ids", ())],
                self._immediate,
                data_keys=data if isinstance(data, dict) else (),
            )

        return hook

    def capability(self) -> CapabilityStatus:
        """Home Assistant control is configured (reachability is ``aria doctor``'s question)."""
        return CapabilityStatus(name="homeassistant", available=True)

    def install(self, orchestrator: Orchestrator) -> None:
        """Register the tools and the capability (the policy goes in at construction)."""
        for tool in self.tools():
            orchestrator.tools.register(tool)
        orchestrator.register_capability("homeassistant", self.capability)

    async def aclose(self) -> None:
        """Close the port's connections."""
        await self.port.aclose()


def _with_area(state: EntityState, areas: Mapping[str, str]) -> EntityState:
    area = areas.get(state.entity_id, "")
    return dataclasses.replace(state, area=area) if area else state


def _summarize_call(args: dict[str, Any]) -> str:
    """A service call in plain words for the confirmation dialog and the audit log."""
    targets = ", ".join(str(e) for e in args.get("entity_ids", ())) or "no entity"
    data = args.get("data") or {}
    extra = f" with {json.dumps(data, ensure_ascii=False, sort_keys=True)[:200]}" if data else ""
    return f"Home Assistant: {args.get('domain')}.{args.get('service')} on {targets}{extra}"
