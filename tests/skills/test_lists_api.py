"""The lists over the real HTTP API of a whole ARIA (as ``aria daemon`` builds it, no model):
the routes by id, their errors, ``ApiClient.lists`` by text, the event each change publishes,
the recogniser learning a new list at once, and how fast a list call answers."""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.domain.errors import ListInvalidError, NotFoundError
from aria_desktop.domain.skill_events import SkillDataChanged
from tests.skills.conftest import P, Served, ask


async def test_entries_are_added_read_checked_off_reopened_and_removed_by_id(
    served: Served,
) -> None:
    api = served.client
    added = await api.post(f"{P}/lists/shopping/items", json={"items": ["milk", " oat  milk "]})
    assert added.status_code == 201, added.text
    milk, oat = added.json()
    assert (milk["text"], oat["text"], milk["done"], milk["list"]) == (
        "milk",
        "oat milk",
        False,
        "shopping",
    )
    done = await api.post(f"{P}/lists/shopping/items/{milk['id']}/done")
    assert done.status_code == 200
    assert done.json()["done"] is True
    open_only = (await api.get(f"{P}/lists/shopping")).json()
    assert open_only == {"name": "shopping", "items": [{**oat, "done": False}]}
    everything = (await api.get(f"{P}/lists/shopping", params={"include_done": "true"})).json()
    assert [(e["text"], e["done"]) for e in everything["items"]] == [
        ("oat milk", False),
        ("milk", True),
    ]
    reopened = await api.delete(f"{P}/lists/shopping/items/{milk['id']}/done")
    assert reopened.json()["done"] is False
    assert reopened.json()["done_at"] is None
    removed = await api.delete(f"{P}/lists/shopping/items/{oat['id']}")
    assert removed.status_code == 200
    assert removed.json()["text"] == "oat milk"
    summaries = (await api.get(f"{P}/lists")).json()
    assert summaries[:2] == [
        {"name": "shopping", "open_items": 1, "done_items": 0, "kept_in": "aria", "problem": ""},
        {"name": "todo", "open_items": 0, "done_items": 0, "kept_in": "aria", "problem": ""},
    ]


async def test_a_list_is_named_as_people_say_it_and_the_users_own_lists_can_be_deleted(
    served: Served,
) -> None:
    api = served.client
    await api.post(f"{P}/lists/to-do list/items", json={"items": ["call the plumber"]})
    assert [e["text"] for e in (await api.get(f"{P}/lists/todo")).json()["items"]] == [
        "call the plumber"
    ]
    await api.post(f"{P}/lists/Hardware/items", json={"items": ["screws", "wall plugs"]})
    checked = (await api.get(f"{P}/lists/hardware")).json()["items"][0]
    await api.post(f"{P}/lists/hardware/items/{checked['id']}/done")
    cleared = await api.post(f"{P}/lists/hardware/clear-done")
    assert cleared.json() == {"cleared": 1}
    deleted = await api.delete(f"{P}/lists/hardware")
    assert deleted.json() == {"name": "hardware", "removed_items": 1}
    assert [s["name"] for s in (await api.get(f"{P}/lists")).json()] == ["shopping", "todo"]


async def test_list_errors_are_plain_with_their_status(served: Served) -> None:
    api = served.client
    cases: list[tuple[str, str, object, int, str | None]] = [
        ("GET", f"{P}/lists/garden", None, 404, "not_found"),
        ("DELETE", f"{P}/lists/shopping/items/999", None, 404, "not_found"),
        ("POST", f"{P}/lists/shopping/items/999/done", None, 404, "not_found"),
        ("DELETE", f"{P}/lists/shopping", None, 422, "list_invalid"),
        ("DELETE", f"{P}/lists/garden", None, 404, "not_found"),
        ("POST", f"{P}/lists/shopping/items", {"items": ["x" * 201]}, 422, None),
        ("POST", f"{P}/lists/shopping/items", {"items": []}, 422, None),
        ("POST", f"{P}/lists/shopping/items", {"items": ["   "]}, 422, None),
        ("POST", f"{P}/lists/shop{{ping}}/items", {"items": ["milk"]}, 422, "list_invalid"),
    ]
    for method, path, body, status, code in cases:
        response = await api.request(method, path, json=body)
        assert response.status_code == status, (method, path, response.text)
        if code is not None:
            error = response.json()["error"]
            assert error["code"] == code, error
            assert error["message"], error
            assert error["hint"], error


async def test_a_change_through_the_api_is_told_and_the_new_list_is_understood_at_once(
    served: Served,
) -> None:
    async with served.app.orchestrator.bus.subscribe() as events:
        await served.client.post(f"{P}/lists/hardware/items", json={"items": ["a hammer"]})
        async with asyncio.timeout(5):
            async for event in events:
                if isinstance(event, SkillDataChanged):
                    assert event.kind == "lists"
                    break
    said = await ask(served.app, "add screws to my hardware list")
    assert (said.text, said.backend) == ("Added screws to your hardware list.", "skills")
    entries = (await served.client.get(f"{P}/lists/hardware")).json()["items"]
    assert [e["text"] for e in entries] == ["a hammer", "screws"]


async def test_the_api_client_changes_entries_by_their_text(served: Served) -> None:
    async with ApiClient(served.server.url, served.token) as client:
        lists = client.lists
        added = await lists.add("shopping", ["Milk", "eggs", "milk"])
        assert [item.text for item in added] == ["Milk", "eggs", "milk"]
        done = await lists.complete("shopping", "MILK")
        assert (done.id, done.done) == (added[0].id, True)
        second = await lists.complete("shopping", "milk")  # the next open one
        assert second.id == added[2].id
        assert (await lists.reopen("shopping", "milk")).done is False
        assert (await lists.remove("shopping", "eggs")).text == "eggs"
        assert await lists.clear_done("shopping") == 1
        assert [i.text for i in await lists.items("shopping", include_done=True)] == ["Milk"]
        summary = (await lists.lists())[0]
        assert (summary.name, summary.open_items, summary.kept_in) == ("shopping", 1, "aria")
        with pytest.raises(NotFoundError, match="butter"):
            await lists.remove("shopping", "butter")
        with pytest.raises(ListInvalidError):
            await lists.delete_list("todo")


async def test_a_list_call_answers_within_the_local_skill_budget(served: Served) -> None:
    """p50 of ``GET /api/v1/lists`` and of adding one entry, over the loopback (target 30 ms)."""
    await served.client.post(f"{P}/lists/shopping/items", json={"items": ["milk", "eggs"]})
    for _ in range(20):  # warm the connection and the routes
        await served.client.get(f"{P}/lists")

    async def timed(call: object) -> float:
        started = time.perf_counter()
        response = await call  # type: ignore[misc]
        assert response.status_code < 300
        return (time.perf_counter() - started) * 1000

    reads = [await timed(served.client.get(f"{P}/lists")) for _ in range(200)]
    shows = [await timed(served.client.get(f"{P}/lists/shopping")) for _ in range(200)]
    adds = [
        await timed(served.client.post(f"{P}/lists/todo/items", json={"items": [f"task {n}"]}))
        for n in range(100)
    ]
    p50 = {
        name: statistics.median(times)
        for name, times in (("lists", reads), ("show", shows), ("add", adds))
    }
    print(f"lists API p50 ms: {p50}")
    assert max(p50.values()) < 30, p50
