"""Home Assistant decisions, pure and deterministic: may a service call run, which entities match.

``service_decision`` is the policy outside the model (ARCHITECTURE.md: safety): a service runs
at once only when its domain and the domain of every entity it targets are configured to; locks,
alarm panels, covers, scripts, scenes and unlisted domains wait for the user's confirmation, and
a malformed call or one that hides its targets in the service data is refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from aria_desktop.core.tools import PolicyDecision
from aria_desktop.domain.homeassistant import (
    ALWAYS_CONFIRM_DOMAINS,
    ENTITY_ID_RE,
    SLUG_RE,
    EntityState,
    entity_domain,
)

__all__ = ["TARGET_KEYS", "match_entities", "service_decision"]

TARGET_KEYS = frozenset({"entity_id", "area_id", "device_id", "floor_id", "label_id"})
"""Service-data keys that would target entities the policy cannot see."""


def service_decision(
    domain: str,
    service: str,
    entity_ids: Iterable[str],
    immediate: frozenset[str],
    data_keys: Iterable[str] = (),
) -> PolicyDecision:
    """Allow, confirm or deny ``domain.service`` on ``entity_ids`` (pure, deterministic).

    ``data_keys`` are the service data's keys: a target hidden there (``entity_id``,
    ``area_id``...) is refused, since the policy could not see what it reaches.
    """
    targets = list(entity_ids)
    bad = [e for e in targets if not ENTITY_ID_RE.match(e)]
    if not SLUG_RE.match(domain) or not SLUG_RE.match(service) or bad:
        return PolicyDecision(
            verdict="deny",
            rule="homeassistant:malformed",
            reason="domain, service and entity ids must be Home Assistant names "
            "(light, turn_on, light.kitchen)",
        )
    hidden = sorted(TARGET_KEYS.intersection(data_keys))
    if hidden:
        return PolicyDecision(
            verdict="deny",
            rule="homeassistant:hidden-target",
            reason=f"service data may not target entities ({', '.join(hidden)}); "
            "name them in entity_ids",
        )
    for name in (domain, *sorted({entity_domain(e) for e in targets})):
        if name in ALWAYS_CONFIRM_DOMAINS:
            return PolicyDecision(
                verdict="confirm",
                rule=f"homeassistant:confirm:{name}",
                reason=f"{domain}.{service} acts on a {name} (it can open, unlock or disarm, "
                "or reach any entity)",
            )
        if name not in immediate:
            return PolicyDecision(
                verdict="confirm",
                rule=f"homeassistant:not-immediate:{name}",
                reason=f"{name} is not one of the domains that run at once "
                "(homeassistant.immediate_domains)",
            )
    return PolicyDecision(verdict="allow", rule=f"homeassistant:immediate:{domain}")


def _words(text: str) -> list[str]:
    return text.casefold().replace("_", " ").replace(".", " ").split()


def match_entities(
    entities: Iterable[EntityState],
    *,
    name: str = "",
    area: str = "",
    domain: str = "",
) -> list[EntityState]:
    """Entities matching every filter given, sorted by entity id.

    Each word of ``name`` must be in the friendly name or entity id, each word of ``area`` in
    the area's name, and ``domain`` must equal the entity's domain (case ignored throughout).
    """
    name_words, area_words = _words(name), _words(area)
    wanted_domain = domain.strip().casefold()
    found = []
    for entity in entities:
        if wanted_domain and entity.domain != wanted_domain:
            continue
        if area_words and not all(w in _words(entity.area) for w in area_words):
            continue
        haystack = " ".join(_words(entity.name) + _words(entity.entity_id))
        if name_words and not all(w in haystack for w in name_words):
            continue
        found.append(entity)
    return sorted(found, key=lambda e: e.entity_id)
