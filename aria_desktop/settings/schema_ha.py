"""The ``[homeassistant]`` settings section: where Home Assistant is and what runs at once.

The long-lived access token is a secret and never lives here: ``aria config set-secret
homeassistant_token`` (or the settings dialog / first-run wizard) puts it in the system keyring
(``keystore.py``). An empty ``url`` leaves Home Assistant control off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from aria_desktop.domain.homeassistant import (
    ALWAYS_CONFIRM_DOMAINS,
    DEFAULT_IMMEDIATE_DOMAINS,
    SLUG_RE,
)
from aria_desktop.settings.rules import AT_LEAST_1, POSITIVE, rules

__all__ = ["HomeAssistantSettings"]


def _immediate_problem(value: Sequence[str]) -> str | None:
    """Refuse domains that must always ask, and names that are not domains."""
    for item in value:
        if item in ALWAYS_CONFIRM_DOMAINS:
            return (
                f"{item} always asks for confirmation (it opens, unlocks, disarms or can reach "
                "any entity) and cannot run at once"
            )
        if not SLUG_RE.match(item):
            return f"{item!r} is not a Home Assistant domain (like light or media_player)"
    return None


@dataclass(frozen=True)
class HomeAssistantSettings:
    """Home Assistant control: ARIA reads entity states and calls services.

    Attributes:
        url: Home Assistant's address, e.g. ``http://homeassistant.local:8123``; "" = off.
        timeout_s: how long one request to Home Assistant may take, seconds.
        verify_tls: check the certificate of an https URL.
        immediate_domains: service domains that run without asking (lights, media, climate
            by default); every other domain asks first, and locks, alarm panels, covers,
            scripts, scenes and automations always ask.
        max_results: entities one state lookup shows the model at most.
    """

    url: str = field(default="", metadata=rules(url=True))
    timeout_s: float = field(default=10.0, metadata=POSITIVE)
    verify_tls: bool = True
    immediate_domains: tuple[str, ...] = field(
        default=DEFAULT_IMMEDIATE_DOMAINS, metadata=rules(check=_immediate_problem)
    )
    max_results: int = field(default=50, metadata=AT_LEAST_1)
