"""Lists through a whole ARIA with no model: spoken and typed commands in English and German,
sentences that only mention a list (they go to the model), the checks every surface shares,
the event each change publishes, the model's ``lists`` tool under the policy and the audit log,
and ``aria lists`` with no owner running."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.skills.hassil_recognizer import HassilRecognizer
from aria_desktop.adapters.skills.list_store import SQLiteListStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.compose.app import App, build_app
from aria_desktop.compose.lists import install_list_tool
from aria_desktop.core.skills.list_service import ListService
from aria_desktop.domain.errors import ListInvalidError, NotFoundError
from aria_desktop.domain.events import Event, ToolResultEvent
from aria_desktop.domain.skill_events import SkillDataChanged
from tests.api.daemon_proc import REPO
from tests.fakes.harness import fake_cores
from tests.fakes.ports import text_reply, tool_reply
from tests.skills.conftest import ask, no_model_settings

FALSE_CAPTURES = [
    ("en", "Can you explain how a shopping list app stores data?"),
    ("en", "What's the best to-do list app for teams?"),
    ("en", "Add a shopping list feature to my app"),
    ("en", "Should I put milk on my shopping list or buy it today?"),
    ("en", "Remove the background from my photo"),
    ("en", "What is on the list of UNESCO world heritage sites?"),
    ("en", "How do I check off items in a markdown list?"),
    ("en", "Read me a poem about lists"),
    ("de", "Wie speichert eine Einkaufslisten-App ihre Daten?"),
    ("de", "Welche Einkaufsliste-App ist die beste?"),
    ("de", "Was steht heute in der Zeitung?"),
    ("de", "Soll ich Milch auf die Einkaufsliste setzen oder heute kaufen?"),
    ("de", "Erkläre mir, wie man eine Liste in Python sortiert"),
]


@pytest.fixture
async def german(tmp_path: Path) -> AsyncIterator[App]:
    """ARIA that tries sentences in German, then English."""
    built = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="de,en"))  # type: ignore[arg-type]
    try:
        yield built
    finally:
        await built.aclose()


@pytest.mark.parametrize(("language", "sentence"), FALSE_CAPTURES)
def test_a_sentence_that_only_mentions_a_list_is_no_command(
    recognizer: HassilRecognizer, language: str, sentence: str
) -> None:
    assert recognizer.recognize(sentence, language) is None
    assert recognizer.recognize(sentence, language, fuzzy=True) is None


async def test_a_question_about_lists_goes_to_the_model_and_changes_no_list(german: App) -> None:
    for language, sentence in FALSE_CAPTURES[::4]:
        answered = await ask(german, sentence, source="voice")
        assert answered.backend != "skills", (language, sentence, answered.text)
    assert [s.open_items for s in await german.skills.lists.lists()] == [0, 0]  # type: ignore[union-attr]


async def test_german_list_commands_are_carried_out_and_answered_in_german(german: App) -> None:
    replies = [
        (await ask(german, sentence)).text
        for sentence in (
            "setze Milch und Eier auf die Einkaufsliste",
            "füge Brot zur Einkaufsliste hinzu",
            "was steht auf meiner Einkaufsliste",
            "streiche Milch von der Einkaufsliste",
            "lösche Eier von der Einkaufsliste",
            "lösche Käse von der Einkaufsliste",
            "was steht auf der Einkaufsliste",
            "streiche Brot von der Einkaufsliste",
            "was muss ich einkaufen",
            "setze Steuererklärung auf die Aufgabenliste",
        )
    ]
    assert replies == [
        "Ich habe Milch und Eier auf deine Einkaufsliste gesetzt.",
        "Ich habe Brot auf deine Einkaufsliste gesetzt.",
        "Auf deiner Einkaufsliste: Milch, Eier und Brot.",
        "Ich habe Milch auf deiner Einkaufsliste abgehakt.",
        "Ich habe Eier von deiner Einkaufsliste gestrichen.",
        "Käse finde ich nicht auf deiner Einkaufsliste.",
        "Auf deiner Einkaufsliste: Brot.",
        "Ich habe Brot auf deiner Einkaufsliste abgehakt.",
        "Deine Einkaufsliste ist leer.",
        "Ich habe Steuererklärung auf deine Aufgabenliste gesetzt.",
    ]
    lists = german.skills.lists  # type: ignore[union-attr]
    assert [(i.text, i.done) for i in await lists.items("shopping", include_done=True)] == [
        ("Milch", True),
        ("Brot", True),
    ]
    assert [i.text for i in await lists.items("todo")] == ["Steuererklärung"]


async def test_a_list_made_anywhere_is_understood_by_name_at_once_in_both_languages(
    german: App,
) -> None:
    access = german.assistant.lists
    assert access is not None
    await access.add("Baumarkt", ["Dübel"])
    said = await ask(german, "setze Schrauben auf die Baumarkt Liste")
    assert said.text == "Ich habe Schrauben auf deine Liste Baumarkt gesetzt."
    read = await ask(german, "was steht auf der Baumarkt-Liste")
    assert read.text == "Auf deiner Liste Baumarkt: Dübel und Schrauben."
    await access.add("hardware", ["nails"])
    english = await ask(german, "add screws to my hardware list")
    assert english.text == "Added screws to your hardware list."


async def test_every_change_is_told_once_on_the_bus(app: App) -> None:
    access = app.assistant.lists
    assert access is not None
    kinds: list[str] = []
    async with app.orchestrator.bus.subscribe() as events:
        await ask(app, "add milk to my shopping list")
        await access.complete("shopping", "milk")
        with pytest.raises(NotFoundError):
            await access.remove("shopping", "butter")  # nothing changed: nothing told
        await access.clear_done("shopping")
        async with asyncio.timeout(5):
            while len(kinds) < 3:
                event: Event = await events.get()
                if isinstance(event, SkillDataChanged):
                    kinds.append(event.kind)
    assert kinds == ["lists", "lists", "lists"]


async def test_names_and_entries_are_checked_the_same_way_for_every_surface(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "aria.db")
    try:
        lists = ListService(SQLiteListStore(database))
        assert [s.name for s in await lists.lists()] == ["shopping", "todo"]
        for name, items in (("shopping", ["  ", ""]), ("", ["milk"])):
            with pytest.raises(ListInvalidError):
                await lists.add(name, items)
        with pytest.raises(ListInvalidError, match="at most 200"):
            await lists.add("shopping", ["x" * 201])
        with pytest.raises(ListInvalidError, match="At most 50"):
            await lists.add("shopping", [f"item {n}" for n in range(51)])
        with pytest.raises(ListInvalidError, match="not a list name"):
            await lists.add("../etc", ["milk"])
        with pytest.raises(ListInvalidError, match="emptied, not deleted"):
            await lists.delete_list("To-Do List")
        with pytest.raises(NotFoundError, match="no list 'garden'"):
            await lists.items("garden")
        assert await lists.items("todo") == []  # the two kept lists always exist
        added = await lists.add("groceries", ["  oat   milk "])
        assert (added[0].list, added[0].text) == ("shopping", "oat milk")
        with pytest.raises(NotFoundError, match="no checked-off 'oat milk'"):
            await lists.reopen("shopping", "oat milk")
        with pytest.raises(NotFoundError):
            await lists.complete("shopping", "not-a-number", by_id=True)
    finally:
        await database.close()


async def test_the_model_changes_lists_through_its_tool_under_the_policy_and_audit(
    tmp_path: Path,
) -> None:
    database = await Database.open(tmp_path / "aria.db")
    try:
        async with fake_cores(tmp_path) as make_core:
            core = await make_core()
            store = SQLiteListStore(database)
            install_list_tool(core.orchestrator, ListService(store))
            core.model.script(
                tool_reply(
                    [("lists", {"action": "add", "list": "shopping", "items": ["flour", "eggs"]})]
                ),
                tool_reply(
                    [("lists", {"action": "check_off", "list": "shopping", "item": "eggs"})]
                ),
                tool_reply([("lists", {"action": "read", "list": "shopping"})]),
                text_reply("Flour is on your list."),
            )
            events, _ = await core.turn("when I make pancakes tomorrow, I'll need flour and eggs")
            results = [e for e in events if isinstance(e, ToolResultEvent)]
            assert [r.status for r in results] == ["ok", "ok", "ok"]
            read = json.loads(results[-1].result)
            assert [i["text"] for i in read["items"]] == ["flour"]
            assert [(i.text, i.done) for i in await store.items("shopping", include_done=True)] == [
                ("flour", False),
                ("eggs", True),
            ]
            decisions = [r for r in core.audit.records() if r.kind == "policy-decision"]
            assert {d.data["rule"] for d in decisions} == {"default:reversible"}
            assert len(decisions) == 3
    finally:
        await database.close()


def _aria(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARIA_")},
        **{
            f"ARIA_{n}_DIR": str(tmp_path / n.lower())
            for n in ("CONFIG", "DATA", "STATE", "RUNTIME")
        },
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(
        [sys.executable, "-m", "aria_desktop", "lists", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_aria_lists_works_with_no_owner_running(tmp_path: Path) -> None:
    assert _aria(tmp_path, "add", "Hardware", "screws", "wall plugs").stdout == (
        "Added screws, wall plugs to the hardware list.\n"
    )
    assert _aria(tmp_path, "done", "hardware", "Screws").stdout == (
        "Checked off screws on the hardware list.\n"
    )
    assert _aria(tmp_path, "show", "hardware").stdout == "  [ ] wall plugs\n"
    shown = json.loads(_aria(tmp_path, "show", "hardware", "--all", "--json").stdout)
    assert [(i["text"], i["done"]) for i in shown] == [("wall plugs", False), ("screws", True)]
    overview = json.loads(_aria(tmp_path, "--json").stdout)
    assert [(s["name"], s["open_items"], s["done_items"]) for s in overview] == [
        ("shopping", 0, 0),
        ("todo", 0, 0),
        ("hardware", 1, 1),
    ]
    assert _aria(tmp_path).stdout.splitlines()[2].split() == ["hardware", "1", "open", "1", "done"]
    refused = _aria(tmp_path, "delete", "shopping")
    assert refused.returncode == 1
    assert refused.stderr.startswith("Error: The shopping list is always there")
    assert "Traceback" not in refused.stderr
    missing = _aria(tmp_path, "remove", "hardware", "hammer")
    assert (missing.returncode, missing.stderr.splitlines()[0]) == (
        1,
        "Error: There is no 'hammer' on the hardware list.",
    )
    assert _aria(tmp_path, "show", "todo").stderr == "The todo list is empty.\n"
