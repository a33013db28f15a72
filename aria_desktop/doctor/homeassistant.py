"""Doctor check of Home Assistant control: the URL answers and the token is accepted.

Only when ``homeassistant.url`` is set (control is off otherwise). A stored token is shown by
where it lives, never by value.
"""

from __future__ import annotations

from aria_desktop import keystore
from aria_desktop.doctor.result import PROBE_TIMEOUT_S, CheckResult, ok, warn
from aria_desktop.domain.errors import HomeAssistantError
from aria_desktop.settings import Settings

__all__ = ["check_homeassistant"]

_NAME = "home assistant"


async def check_homeassistant(settings: Settings) -> list[CheckResult]:
    """``GET /api/`` with the stored token: reachable and authorised, or why not."""
    ha = settings.homeassistant
    if not ha.url:
        return []
    from aria_desktop.adapters.homeassistant.client import HomeAssistantClient

    where = keystore.secret_status("homeassistant_token")
    if where == "missing":
        return [
            warn(
                _NAME,
                f"{ha.url} is configured but no access token is stored",
                "create a long-lived access token in Home Assistant (your profile, Security "
                "tab) and run `aria config set-secret homeassistant_token`",
            )
        ]
    client = HomeAssistantClient(
        ha.url,
        keystore.get_secret("homeassistant_token"),
        timeout_s=min(ha.timeout_s, PROBE_TIMEOUT_S),
        verify_tls=ha.verify_tls,
    )
    try:
        message = await client.check()
    except HomeAssistantError as exc:
        return [warn(_NAME, f"{ha.url}: {exc.message}", exc.hint)]
    finally:
        await client.aclose()
    return [ok(_NAME, f"{ha.url} answers ({message or 'API running'}); token from {where}")]
