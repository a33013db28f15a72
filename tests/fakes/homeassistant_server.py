"""A small Home Assistant REST API on 127.0.0.1, speaking the shapes HA's ``api`` component does.

``GET /api/`` (``{"message": "API running."}``), ``GET /api/states``, ``GET
/api/states/<entity_id>`` (404 for an unknown one), ``POST /api/services/<domain>/<service>``
(the states it changed; 400 for a service HA does not have), and ``POST /api/template`` for
ARIA's area template (answered from the server's area table: this fake renders no Jinja).
To-do lists (``todo.*`` entities, items in :attr:`FakeHomeAssistant.todo_items`) speak HA's
documented services: ``todo.add_item``, ``todo.update_item`` (``status``, ``rename``; the item
by uid or summary), ``todo.remove_item`` (a list of uids or summaries),
``todo.remove_completed_items`` and ``todo.get_items``, which answers only with
``?return_response`` (``{"changed_states": [], "service_response": {entity: {"items": [...]}}}``)
as HA's REST API does; a response asked of another service is HA's 400.
Every route needs ``Authorization: Bearer <token>``; anything else gets HA's plain-text
``401: Unauthorized``. ``script(path, Reply(...))`` from the base class makes a route slow or
broken.
"""

from __future__ import annotations

import copy
import json
import uuid
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
    _entity("todo.shopping_list", "0", "Shopping List", supported_features=15),
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
        self.todo_items: dict[str, list[dict[str, Any]]] = {
            entity_id: [] for entity_id in self.states if entity_id.startswith("todo.")
        }
        """To-do entity -> its items (``uid``, ``summary``, ``status``), in order."""

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
            data = request.json() if request.body else {}
            wants = "return_response" in request.query.split("&")
            if domain == "todo":
                return self._todo(service, data, wants_response=wants)
            if wants:
                return json_reply(400, {"message": "Service does not support responses."})
            return self._service(domain, service, data)
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

    # --- to-do lists ---------------------------------------------------------------------

    def add_todo_item(self, entity_id: str, summary: str, *, done: bool = False) -> str:
        """Put an item on a to-do list as if added in Home Assistant; its uid."""
        uid = uuid.uuid4().hex
        status = "completed" if done else "needs_action"
        with self._lock:
            self.todo_items[entity_id].append({"uid": uid, "summary": summary, "status": status})
            self._count_open(entity_id)
        return uid

    def todo_summaries(self, entity_id: str, *, status: str | None = None) -> list[str]:
        """The summaries on a to-do list (only those of ``status`` when given)."""
        with self._lock:
            items = self.todo_items[entity_id]
            return [i["summary"] for i in items if status is None or i["status"] == status]

    def _todo(self, service: str, data: dict[str, Any], *, wants_response: bool) -> Reply:
        entity_ids = data.get("entity_id", [])
        entity_ids = [entity_ids] if isinstance(entity_ids, str) else list(entity_ids)
        if service == "get_items" and not wants_response:
            return json_reply(
                400,
                {
                    "message": "Service call requires responses but caller did not ask for "
                    "responses. Add ?return_response to query parameters."
                },
            )
        if service != "get_items" and wants_response:
            return json_reply(400, {"message": "Service does not support responses."})
        if not entity_ids or any(e not in self.todo_items for e in entity_ids):
            return json_reply(400, {"message": f"No to-do list {entity_ids}."})
        self.service_calls.append(("todo", service, dict(data)))
        with self._lock:
            if service == "get_items":
                return self._todo_get(entity_ids, data)
            for entity_id in entity_ids:
                problem = self._todo_change(entity_id, service, data)
                if problem:
                    return json_reply(400, {"message": problem})
                self._count_open(entity_id)
            return json_reply(200, [self.states[e] for e in entity_ids])

    def _todo_get(self, entity_ids: list[str], data: dict[str, Any]) -> Reply:
        statuses = data.get("status", ["needs_action"])
        statuses = [statuses] if isinstance(statuses, str) else list(statuses)
        answer = {
            e: {"items": [dict(i) for i in self.todo_items[e] if i["status"] in statuses]}
            for e in entity_ids
        }
        return json_reply(200, {"changed_states": [], "service_response": answer})

    def _todo_change(self, entity_id: str, service: str, data: dict[str, Any]) -> str:
        """Carry out one to-do service on ``entity_id``; HA's error message, or ""."""
        items = self.todo_items[entity_id]

        def find(key: str) -> dict[str, Any] | None:
            return next((i for i in items if key in (i["uid"], i["summary"])), None)

        if service == "add_item":
            uid = uuid.uuid4().hex
            items.append({"uid": uid, "summary": str(data["item"]), "status": "needs_action"})
        elif service == "update_item":
            found = find(str(data["item"]))
            if found is None:
                return f"Unable to find To-do item: {data['item']}"
            found["status"] = data.get("status", found["status"])
            found["summary"] = data.get("rename", found["summary"])
        elif service == "remove_item":
            keys = data["item"] if isinstance(data["item"], list) else [data["item"]]
            for key in keys:
                found = find(str(key))
                if found is None:
                    return f"Unable to find To-do item: {key}"
                items.remove(found)
        elif service == "remove_completed_items":
            items[:] = [i for i in items if i["status"] != "completed"]
        else:
            return f"Service todo.{service} not found."
        return ""

    def _count_open(self, entity_id: str) -> None:
        """A to-do entity's state is its number of open items, as in HA."""
        items = self.todo_items[entity_id]
        self.states[entity_id]["state"] = str(sum(i["status"] == "needs_action" for i in items))
