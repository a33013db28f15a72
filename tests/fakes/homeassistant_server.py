"""A small Home Assistant REST API on 127.0.0.1, speaking the shapes HA's ``api`` component does.

``GET /api/`` (``{"message": "API running."}``), ``GET /api/states``, ``GET
/api/states/<entity_id>`` (404 for an unknown one), ``POST /api/services/<domain>/<service>``
(the states it changed; 400 for a service HA does not have), and ``POST /api/template`` for
ARIA's area template (answered from the server's area table: this fake renders no Jinja).
Every route needs ``Authorization: Bearer <token>``; anything else gets HA's plain-text
``401: Unauthorized``. ``script(path, Reply(...))`` from the base class makes a route slow or
broken.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.fakes.http_server import FakeHTTPServer, RecordedRequest, Reply, json_reply

__all__ = ["DEFAULT_AREAS", "DEFAULT_ENTITIES", "TOKEN", "FakeHomeAssistant"]

TOKEN = "ha-long-lived-token-for-tests"


def _entity(entity_id: str, state: str, name: str, **attributes: Any) -> dict[str, Any]:
    return {
        "entity_id": entity_id,
        "state": state,
        "attributes": {"friendly_name": name, **attributes},
        "last_changed": "2026-11-25T16:00:00.000000+00:00",
        "last_updated": "2026-11-25T16:00:00.000000+00:00",
        "context": {"id": "01JFAKE", "parent_id": None, "user_id": None},
    }


DEFAULT_ENTITIES: list[dict[str, Any]] = [
    _entity("light.kitchen_ceiling", "off", "Kitchen Ceiling Light", supported_features=44),
    _entity("light.living_room_lamp", "on", "Living Room Lamp", brightness=180),
    _entity("lock.front_door", "locked", "Front Door"),
    _entity("cover.garage_door", "closed", "Garage Door", device_class="garage"),
    _entity("sensor.kitchen_temperature", "21.5", "Kitchen Temperature", unit_of_measurement="°C"),
    _entity("media_player.living_room_tv", "idle", "Living Room TV"),
]

DEFAULT_AREAS: dict[str, list[str]] = {
    "Kitchen": ["light.kitchen_ceiling", "sensor.kitchen_temperature"],
    "Living Room": ["light.living_room_lamp", "media_player.living_room_tv"],
    "Hallway": ["lock.front_door"],
}

# (domain, service) -> the state the targeted entities take.
_SERVICES: dict[tuple[str, str], str] = {
    ("light", "turn_on"): "on",
    ("light", "turn_off"): "off",
    ("lock", "lock"): "locked",
    ("lock", "unlock"): "unlocked",
    ("cover", "open_cover"): "open",
    ("cover", "close_cover"): "closed",
    ("media_player", "media_pause"): "paused",
    ("media_player", "media_play"): "playing",
}


class FakeHomeAssistant(FakeHTTPServer):
    """Home Assistant's REST API over a small, mutable set of entities.

    Attributes:
        states: entity id -> state object (changed by service calls).
        service_calls: ``(domain, service, data)`` of every accepted service call.
    """

    def __init__(
        self,
        *,
        token: str = TOKEN,
        entities: list[dict[str, Any]] | None = None,
        areas: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__()
        self.token = token
        self.states = {e["entity_id"]: e for e in copy.deepcopy(entities or DEFAULT_ENTITIES)}
        self.areas = copy.deepcopy(DEFAULT_AREAS if areas is None else areas)
        self.service_calls: list[tuple[str, str, dict[str, Any]]] = []

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            queue = self._scripts.get(request.path)
            if queue:
                return queue.popleft()
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return Reply(
                status=401, headers={"Content-Type": "text/plain"}, body=b"401: Unauthorized"
            )
        return self._route(request)

    def _route(self, request: RecordedRequest) -> Reply:
        method, path = request.method, request.path
        if (method, path) == ("GET", "/api/"):
            return json_reply(200, {"message": "API running."})
        if (method, path) == ("GET", "/api/states"):
            return json_reply(200, list(self.states.values()))
        if method == "GET" and path.startswith("/api/states/"):
            state = self.states.get(path.removeprefix("/api/states/"))
            if state is None:
                return json_reply(404, {"message": "Entity not found."})
            return json_reply(200, state)
        if (method, path) == ("POST", "/api/template"):
            return self._template(request)
        if method == "POST" and path.startswith("/api/services/"):
            domain, _, service = path.removeprefix("/api/services/").partition("/")
            return self._service(domain, service, request.json() if request.body else {})
        return json_reply(404, {"message": f"no route {method} {path}"})

    def _template(self, request: RecordedRequest) -> Reply:
        template = str(request.json().get("template", ""))
        if "area_entities" not in template:
            return json_reply(400, {"message": "this fake renders only ARIA's area template"})
        rows = [[name, ids] for name, ids in self.areas.items()]
        return Reply(
            status=200, headers={"Content-Type": "text/plain"}, body=json.dumps(rows).encode()
        )

    def _service(self, domain: str, service: str, data: dict[str, Any]) -> Reply:
        new_state = _SERVICES.get((domain, service))
        if new_state is None:
            return json_reply(400, {"message": f"Service {domain}.{service} not found."})
        targets = data.get("entity_id", [])
        targets = [targets] if isinstance(targets, str) else list(targets)
        self.service_calls.append((domain, service, dict(data)))
        changed = []
        for entity_id in targets:
            state = self.states.get(entity_id)
            if state is None or not entity_id.startswith(f"{domain}."):
                continue  # HA skips targets the service does not apply to
            state["state"] = new_state
            if "brightness_pct" in data:
                state["attributes"]["brightness"] = round(int(data["brightness_pct"]) * 2.55)
            changed.append(state)
        return json_reply(200, changed)
