"""The shopping list in Home Assistant's to-do entity (``assist.shopping_list``): a whole ARIA
(no model) with its real Home Assistant adapter talks to the Home Assistant REST test server,
which speaks HA's documented to-do services. Other lists stay in ARIA's database; when Home
Assistant is out of reach, ARIA says so plainly and keeps what was said until it is back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aria_desktop.compose.app import App, build_app
from aria_desktop.compose.skills import Skills
from aria_desktop.domain.errors import HomeAssistantError
from tests.fakes.homeassistant_server import TOKEN, FakeHomeAssistant
from tests.fakes.http_server import Reply, Vanish, json_reply
from tests.skills.conftest import ask, no_model_settings


def _skills(app: App) -> Skills:
    """The composed app's skills (always built by ``build_app``)."""
    assert app.skills is not None
    return app.skills


SHOPPING = "todo.shopping_list"


@pytest.fixture
def hass() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as server:
        yield server


async def _ha_app(tmp_path: Path, url: str, entity: str = SHOPPING) -> App:
    settings = no_model_settings(
        tmp_path,
        ARIA_HOMEASSISTANT__URL=url,
        ARIA_HOMEASSISTANT__TIMEOUT_S="3",
        ARIA_ASSIST__SHOPPING_LIST=entity,
    )
    return await build_app(settings)  # type: ignore[arg-type]


@pytest.fixture
async def app(
    tmp_path: Path, hass: FakeHomeAssistant, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[App]:
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    built = await _ha_app(tmp_path, hass.url)
    try:
        yield built
    finally:
        await built.aclose()


def _todo_calls(hass: FakeHomeAssistant) -> list[str]:
    return [service for domain, service, _ in hass.service_calls if domain == "todo"]


async def test_shopping_items_said_aloud_land_on_home_assistants_list(
    app: App, hass: FakeHomeAssistant
) -> None:
    added = await ask(app, "add milk, eggs and bread to my shopping list", source="voice")
    assert (added.text, added.model) == (
        "Added milk, eggs and bread to your shopping list.",
        "lists",
    )
    assert hass.todo_summaries(SHOPPING) == ["milk", "eggs", "bread"]
    assert hass.states[SHOPPING]["state"] == "3"
    assert await _skills(app).lists.items("shopping") == []  # nothing kept in ARIA's database

    checked = await ask(app, "check off eggs from my shopping list")
    assert checked.text == "Checked off eggs on your shopping list."
    assert hass.todo_summaries(SHOPPING, status="completed") == ["eggs"]
    removed = await ask(app, "remove bread from my shopping list")
    assert removed.text == "Removed bread from your shopping list."
    hass.add_todo_item(SHOPPING, "coffee")  # added on Home Assistant's side
    read = await ask(app, "what's on my shopping list")
    assert read.text == "On your shopping list: milk and coffee."
    assert "get_items" in _todo_calls(hass)


async def test_the_surfaces_see_the_shopping_list_where_it_lives(
    app: App, hass: FakeHomeAssistant
) -> None:
    lists = app.assistant.lists
    assert lists is not None
    uid = hass.add_todo_item(SHOPPING, "Butter")
    hass.add_todo_item(SHOPPING, "old news", done=True)
    shopping = (await lists.lists())[0]
    assert (shopping.name, shopping.open_items, shopping.done_items) == ("shopping", 1, 1)
    assert (shopping.kept_in, shopping.problem) == (SHOPPING, "")
    entries = await lists.items("shopping", include_done=True)
    assert [(e.id, e.text, e.done) for e in entries] == [
        (uid, "Butter", False),
        (entries[1].id, "old news", True),
    ]
    assert (await lists.complete("shopping", "butter")).id == uid
    assert (await lists.reopen("shopping", uid, by_id=True)).done is False
    assert await lists.clear_done("shopping") == 1
    assert hass.todo_summaries(SHOPPING) == ["Butter"]
    assert "remove_completed_items" in _todo_calls(hass)
    await lists.remove("shopping", uid, by_id=True)
    assert hass.todo_summaries(SHOPPING) == []


async def test_other_lists_stay_in_arias_database(app: App, hass: FakeHomeAssistant) -> None:
    said = await ask(app, "add call the plumber to my to-do list")
    assert said.text == "Added call the plumber to your to-do list."
    assert [i.text for i in await _skills(app).lists.items("todo")] == ["call the plumber"]
    assert _todo_calls(hass) == []


async def test_an_unreachable_home_assistant_loses_nothing_and_is_said_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARIA_HOMEASSISTANT_TOKEN", TOKEN)
    server = FakeHomeAssistant().start()
    port = server.port
    server.stop()  # Home Assistant is down
    app = await _ha_app(tmp_path, f"http://127.0.0.1:{port}")
    try:
        kept = await ask(app, "add milk and eggs to my shopping list")
        assert kept.text == (
            "I can't reach Home Assistant right now, so I'm keeping milk and eggs here; "
            "everything goes on your shopping list as soon as Home Assistant answers."
        )
        assert [i.text for i in await _skills(app).lists.items("shopping")] == ["milk", "eggs"]
        read = await ask(app, "what's on my shopping list")
        assert read.text == (
            "I can't reach Home Assistant, where your shopping list is kept, so nothing was "
            "changed. Try again in a moment."
        )
        assert read.status == "complete"
        lists = app.assistant.lists
        assert lists is not None
        summary = (await lists.lists())[0]
        assert (summary.open_items, summary.kept_in) == (2, SHOPPING)
        assert "Cannot reach Home Assistant" in summary.problem
        with pytest.raises(HomeAssistantError):
            await lists.items("shopping")
        # A waiting entry can still be taken back while Home Assistant is away.
        assert (await lists.remove("shopping", "eggs")).text == "eggs"

        with FakeHomeAssistant() as back:
            back.stop()
            back.start(port=port)  # Home Assistant is back on its address
            read = await ask(app, "what's on my shopping list")
            assert read.text == "On your shopping list: milk."
            assert back.todo_summaries(SHOPPING) == ["milk"]
            assert await _skills(app).lists.items("shopping") == []  # moved, not copied
    finally:
        await app.aclose()


async def test_a_connection_cut_mid_add_keeps_only_what_home_assistant_did_not_take(
    app: App, hass: FakeHomeAssistant
) -> None:
    lists = app.assistant.lists
    assert lists is not None
    hass.script("/api/services/todo/get_items", Reply(steps=[Vanish()]))
    taken = await lists.add("shopping", ["milk"])  # added; reading the uid back failed
    assert [(e.text, e.pending) for e in taken] == [("milk", False)]
    # The first add is answered without being stored, the second connection is cut.
    hass.script("/api/services/todo/add_item", json_reply(200, []), Reply(steps=[Vanish()]))
    added = await lists.add("shopping", ["eggs", "bread"])
    assert [(e.text, e.pending) for e in added] == [("eggs", False), ("bread", True)]
    assert hass.todo_summaries(SHOPPING) == ["milk"]  # the scripted add took nothing
    assert [e.text for e in await lists.items("shopping")] == ["milk", "bread"]


async def test_without_home_assistant_set_up_the_shopping_list_stays_in_aria(
    tmp_path: Path,
) -> None:
    settings = no_model_settings(tmp_path, ARIA_ASSIST__SHOPPING_LIST=SHOPPING)
    app = await build_app(settings)  # type: ignore[arg-type]
    try:
        said = await ask(app, "add milk to my shopping list")
        assert said.text == "Added milk to your shopping list."
        assert [i.text for i in await _skills(app).lists.items("shopping")] == ["milk"]
    finally:
        await app.aclose()


def test_the_setting_takes_aria_or_a_to_do_entity_only(tmp_path: Path) -> None:
    from aria_desktop.domain.errors import ConfigError

    assert no_model_settings(tmp_path, ARIA_ASSIST__SHOPPING_LIST="todo.groceries")
    with pytest.raises(ConfigError, match="to-do entity"):
        no_model_settings(tmp_path, ARIA_ASSIST__SHOPPING_LIST="light.kitchen")
