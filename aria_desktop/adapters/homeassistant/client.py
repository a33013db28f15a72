"""Home Assistant's REST API over httpx: states, one state, areas, service calls.

Satisfies ``core.ports.HomeAssistantPort``. Every failure becomes a ``HomeAssistantError``
subclass with a hint (ARCHITECTURE.md: Conventions): 401/403 is the token, a refused or
unresolvable connection is the URL, a slow server is ``homeassistant.timeout_s``, a 404 on a
state is an unknown entity. The long-lived token goes only to the configured URL: redirects
are not followed and proxies from the environment are not used (a proxy would see the token).

Areas are not part of ``/api/states``; they come from one call to the template endpoint
(``POST /api/template``) rendering :data:`AREAS_TEMPLATE`, which needs an admin user's token
(a non-admin token gets areas left empty, everything else still works).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aria_desktop.domain.errors import (
    EntityNotFoundError,
    HomeAssistantAuthError,
    HomeAssistantError,
    HomeAssistantTimeoutError,
    HomeAssistantUnreachableError,
)
from aria_desktop.domain.homeassistant import EntityState

if TYPE_CHECKING:
    import httpx

__all__ = ["AREAS_TEMPLATE", "HomeAssistantClient", "parse_state"]

_LOGGER = logging.getLogger(__name__)

AREAS_TEMPLATE = (
    "{% set ns = namespace(rows=[]) %}"
    "{% for area in areas() %}"
    "{% set ns.rows = ns.rows + [[area_name(area), area_entities(area)]] %}"
    "{% endfor %}"
    "{{ ns.rows | to_json }}"
)
"""Renders ``[[area name, [entity ids]], ...]`` (``area_entities`` includes device entities)."""

_TOKEN_HINT = (
    "Create a long-lived access token in Home Assistant (your profile, Security tab) and store "
    "it with `aria config set-secret homeassistant_token`."
)


def parse_state(obj: Any) -> EntityState:
    """One entry of ``/api/states`` as an ``EntityState``; HomeAssistantError if malformed."""
    if not isinstance(obj, dict) or not isinstance(obj.get("entity_id"), str):
        raise HomeAssistantError(
            "Home Assistant sent a state ARIA cannot read.",
            hint="Check that homeassistant.url points at Home Assistant itself.",
        )
    attributes = obj.get("attributes")
    attributes = dict(attributes) if isinstance(attributes, dict) else {}
    name = attributes.pop("friendly_name", None)
    return EntityState(
        entity_id=obj["entity_id"],
        state=str(obj.get("state", "")),
        name=name if isinstance(name, str) and name else obj["entity_id"],
        attributes=attributes,
        last_changed=str(obj.get("last_changed", "")),
    )


class HomeAssistantClient:
    """A Home Assistant instance at ``base_url``, authenticated with a long-lived token.

    Args:
        base_url: e.g. ``http://homeassistant.local:8123`` (a trailing ``/`` is fine).
        token: the long-lived access token (None: every call explains how to add one).
        timeout_s: connect and read limit of each request, seconds.
        verify_tls: check the server's certificate for https URLs.
    """

    def __init__(
        self, base_url: str, token: str | None, *, timeout_s: float = 10.0, verify_tls: bool = True
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._timeout_s = timeout_s
        self._verify_tls = verify_tls
        self._http: httpx.AsyncClient | None = None

    def _client(self) -> httpx.AsyncClient:
        if self._token is None:
            raise HomeAssistantAuthError(
                "No Home Assistant access token is stored.", hint=_TOKEN_HINT
            )
        if self._http is None:
            import httpx

            self._http = httpx.AsyncClient(
                base_url=self.base_url,
                headers={"Authorization": f"Bearer {self._token}"},
                timeout=httpx.Timeout(self._timeout_s),
                follow_redirects=False,
                trust_env=False,
                verify=self._verify_tls,
            )
        return self._http

    async def _request(
        self, method: str, path: str, body: Mapping[str, Any] | None = None
    ) -> httpx.Response:
        """Send one request; the response if 2xx or 404, else the matching error."""
        import httpx

        client = self._client()
        try:
            response = await client.request(method, path, json=body)
        except httpx.TimeoutException as exc:
            raise HomeAssistantTimeoutError(
                f"Home Assistant at {self.base_url} did not answer within {self._timeout_s:g} s.",
                hint="Check that it is running and not overloaded, or raise "
                "homeassistant.timeout_s.",
            ) from exc
        except httpx.TransportError as exc:
            raise HomeAssistantUnreachableError(
                f"Cannot reach Home Assistant at {self.base_url} ({type(exc).__name__}).",
                hint="Check homeassistant.url (`aria config set homeassistant.url "
                "http://HOST:8123`) and that Home Assistant is running.",
            ) from exc
        status = response.status_code
        if status in (401, 403):
            raise HomeAssistantAuthError(
                f"Home Assistant refused the access token (HTTP {status}).", hint=_TOKEN_HINT
            )
        if status < 300 or status == 404:
            return response
        detail = response.text.strip()[:200]
        raise HomeAssistantError(
            f"Home Assistant answered HTTP {status} to {method} {path}: {detail}",
            hint="Check the domain, service and data against Home Assistant's "
            "Developer tools > Actions.",
        )

    @staticmethod
    def _json(response: httpx.Response) -> Any:
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise HomeAssistantError(
                f"Home Assistant sent something that is not JSON (HTTP {response.status_code}).",
                hint="Check that homeassistant.url points at Home Assistant itself.",
            ) from exc

    async def check(self) -> str:
        """Reach ``GET /api/`` with the token; its message (``API running.``) when it works."""
        response = await self._request("GET", "/api/")
        if response.status_code == 404:
            raise HomeAssistantError(
                f"{self.base_url} has no Home Assistant API (HTTP 404 on /api/).",
                hint="Set homeassistant.url to Home Assistant's address, e.g. "
                "http://homeassistant.local:8123.",
            )
        data = self._json(response)
        return str(data.get("message", "")) if isinstance(data, dict) else ""

    async def states(self) -> list[EntityState]:
        """Every entity's state (``GET /api/states``)."""
        data = self._json(await self._request("GET", "/api/states"))
        if not isinstance(data, list):
            raise HomeAssistantError(
                "Home Assistant's state list is not a list.",
                hint="Check that homeassistant.url points at Home Assistant itself.",
            )
        return [parse_state(item) for item in data]

    async def state(self, entity_id: str) -> EntityState:
        """One entity's state; ``EntityNotFoundError`` on 404."""
        response = await self._request("GET", f"/api/states/{entity_id}")
        if response.status_code == 404:
            raise EntityNotFoundError(
                f"Home Assistant has no entity {entity_id!r}.",
                hint="Look the entity up by name, area or domain first (ha_states).",
            )
        return parse_state(self._json(response))

    async def entity_areas(self) -> dict[str, str]:
        """Entity id -> area name, from the template endpoint ({} when it is refused)."""
        try:
            response = await self._request("POST", "/api/template", {"template": AREAS_TEMPLATE})
        except HomeAssistantAuthError:
            if self._token is None:
                raise
            # The template endpoint is admin-only; states still work with a user's token.
            _LOGGER.info("Home Assistant refused the area template; areas are unknown")
            return {}
        if response.status_code == 404:
            return {}
        try:
            rows = json.loads(response.text)
        except json.JSONDecodeError:
            _LOGGER.warning("Home Assistant's area template did not render JSON")
            return {}
        areas: dict[str, str] = {}
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, list) and len(row) == 2 and isinstance(row[1], list):
                for entity_id in row[1]:
                    if isinstance(entity_id, str):
                        areas[entity_id] = str(row[0])
        return areas

    async def call_service(
        self, domain: str, service: str, data: Mapping[str, Any]
    ) -> list[EntityState]:
        """``POST /api/services/<domain>/<service>``; the states it changed."""
        response = await self._request("POST", f"/api/services/{domain}/{service}", data)
        if response.status_code == 404:
            raise HomeAssistantError(
                f"Home Assistant has no action {domain}.{service}.",
                hint="Check the name in Home Assistant's Developer tools > Actions.",
            )
        changed = self._json(response)
        if isinstance(changed, dict):  # ?return_response shape: {"changed_states": [...]}
            changed = changed.get("changed_states", [])
        return [parse_state(item) for item in changed] if isinstance(changed, list) else []

    async def call_service_response(
        self, domain: str, service: str, data: Mapping[str, Any]
    ) -> Any:
        """``POST /api/services/<domain>/<service>?return_response``; the service's answer.

        Services that only answer with data (``todo.get_items``) refuse a call without
        ``return_response`` (HTTP 400); the answer is ``{"changed_states": [...],
        "service_response": {...}}``.
        """
        path = f"/api/services/{domain}/{service}?return_response"
        response = await self._request("POST", path, data)
        if response.status_code == 404:
            raise HomeAssistantError(
                f"Home Assistant has no action {domain}.{service}.",
                hint="Check the name in Home Assistant's Developer tools > Actions.",
            )
        answer = self._json(response)
        if not isinstance(answer, dict) or "service_response" not in answer:
            raise HomeAssistantError(
                f"Home Assistant's {domain}.{service} sent no response data.",
                hint="Home Assistant 2024.1 or newer answers to-do lists over its REST API.",
            )
        return answer["service_response"]

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None
