"""Reminders over the real HTTP API of a whole ARIA (as ``aria daemon`` builds it, no model):
the routes, their errors, ``ApiClient.reminders``, a reminder set by a chat turn listed by the
API, one delivered listed with its state and time, the MCP server's reminder tools, and
``aria reminders`` on a database no owner holds."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.compose.app import build_app
from aria_desktop.domain.errors import NotFoundError, ReminderError
from aria_desktop.domain.reminders import NewReminder
from aria_desktop.domain.skill_events import ReminderDue, SkillDataChanged
from tests.skills.conftest import P, Served, ask, no_model_settings


async def test_reminders_are_set_listed_and_cancelled_over_the_api(served: Served) -> None:
    api = served.client
    added = await api.post(f"{P}/reminders", json={"text": "call mom", "when": "tomorrow 9am"})
    assert added.status_code == 201, added.text
    body = added.json()
    tomorrow_9 = dt.datetime.combine(
        dt.date.today() + dt.timedelta(days=1), dt.time(9, 0)
    ).timestamp()
    assert (body["kind"], body["text"], body["state"], body["due_at"]) == (
        "reminder",
        "call mom",
        "pending",
        tomorrow_9,
    )
    alarm = await api.post(f"{P}/reminders", json={"when": "every weekday at 7", "kind": "alarm"})
    assert alarm.status_code == 201, alarm.text
    assert alarm.json()["recurrence"] == "0 7 * * 1,2,3,4,5"
    listed = (await api.get(f"{P}/reminders")).json()
    assert {r["id"] for r in listed} == {body["id"], alarm.json()["id"]}
    only_alarms = (await api.get(f"{P}/reminders", params={"kind": "alarm"})).json()
    assert [r["id"] for r in only_alarms] == [alarm.json()["id"]]
    cancelled = await api.post(f"{P}/reminders/{body['id']}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["state"] == "cancelled"
    again = await api.delete(f"{P}/reminders/{body['id']}")
    assert again.status_code == 404
    assert again.json()["error"]["code"] == "not_found"
    deleted = await api.delete(f"{P}/reminders/{alarm.json()['id']}")
    assert deleted.json()["state"] == "cancelled"
    assert (await api.get(f"{P}/reminders")).json() == []


async def test_what_cannot_be_set_answers_422_in_plain_words(served: Served) -> None:
    api = served.client
    vague = await api.post(f"{P}/reminders", json={"text": "call mom", "when": "sometime"})
    assert vague.status_code == 422
    error = vague.json()["error"]
    assert error["code"] == "reminder_invalid"
    assert "not a time I understand" in error["message"]
    assert "tomorrow at 9 am" in error["hint"]
    empty = await api.post(f"{P}/reminders", json={"when": "at 4 pm"})
    assert empty.status_code == 422
    assert (await api.post(f"{P}/reminders", json={"text": "x"})).status_code == 422
    wrong_kind = await api.get(f"{P}/reminders", params={"kind": "timer"})
    assert wrong_kind.status_code == 422


async def test_a_reminder_set_by_a_chat_turn_is_listed_and_its_delivery_shown(
    served: Served,
) -> None:
    said = await ask(served.app, "remind me tomorrow at 9 am to water the plants")
    assert (said.backend, said.model) == ("skills", "reminders")
    listed = (await served.client.get(f"{P}/reminders")).json()
    assert [(r["text"], r["state"]) for r in listed] == [("water the plants", "pending")]
    soon = dt.datetime.fromtimestamp(time.time() + 1).isoformat(timespec="seconds")
    async with served.app.orchestrator.bus.subscribe() as events:
        added = await served.client.post(f"{P}/reminders", json={"text": "stretch", "when": soon})
        assert added.status_code == 201, added.text
        told = False
        async with asyncio.timeout(10):
            async for event in events:
                told = told or isinstance(event, ReminderDue)
                if told and isinstance(event, SkillDataChanged):
                    break
    shown = {r["text"]: r for r in (await served.client.get(f"{P}/reminders")).json()}
    assert shown["stretch"]["state"] == "delivered"
    assert shown["stretch"]["delivered_at"] >= shown["stretch"]["due_at"]
    assert shown["water the plants"]["state"] == "pending"


async def test_the_api_client_is_the_same_reminder_access(served: Served) -> None:
    async with ApiClient(served.server.url, served.token) as client:
        reminders = client.reminders
        added = await reminders.add_reminder(NewReminder(text="dentist", when="on friday at 3 pm"))
        assert added.text == "dentist"
        assert [r.id for r in await reminders.list_reminders()] == [added.id]
        with pytest.raises(ReminderError):
            await reminders.add_reminder(NewReminder(text="dentist", when="soonish"))
        assert [r.id for r in await reminders.cancel_all_reminders()] == [added.id]
        with pytest.raises(NotFoundError):
            await reminders.cancel_reminder(added.id)


mcp = pytest.importorskip("mcp")


def _result(answer: Any) -> Any:
    return json.loads(answer.content[0].text)


async def test_an_mcp_client_sets_lists_and_cancels_reminders(served: Served) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {served.token}"})
    async with (
        http,
        Client(streamable_http_client(f"{served.server.url}/mcp", http_client=http)) as client,
    ):
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names >= {"list_reminders", "add_reminder", "cancel_reminder"}
        added = _result(
            await client.call_tool("add_reminder", {"text": "call mom", "when": "in 2 hours"})
        )
        assert (added["text"], added["state"], added["kind"]) == ("call mom", "pending", "reminder")
        listed = (await client.call_tool("list_reminders", {})).structured_content["result"]
        assert [r["id"] for r in listed] == [added["id"]]
        vague = await client.call_tool("add_reminder", {"text": "x", "when": "whenever"})
        assert vague.is_error
        assert '"error": "reminder_invalid"' in vague.content[0].text  # type: ignore[union-attr]
        cancelled = _result(await client.call_tool("cancel_reminder", {"reminder_id": added["id"]}))
        assert cancelled["state"] == "cancelled"
    assert await served.app.assistant.reminders.list_reminders() == []  # type: ignore[union-attr]


async def test_aria_reminders_without_an_owner_keeps_it_for_the_next_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aria_desktop.cli import main

    settings_file = tmp_path / "settings.toml"
    settings_file.write_text("", encoding="utf-8")
    config = ["--config", str(settings_file)] if _has_config_option() else []
    code = await asyncio.to_thread(
        main, [*config, "reminders", "add", "call mom", "--at", "tomorrow 9am", "--json"]
    )
    assert code == 0
    out = capsys.readouterr()
    added = json.loads(out.out)
    assert (added["text"], added["state"]) == ("call mom", "pending")
    assert "ARIA is not running" in out.err
    code = await asyncio.to_thread(main, [*config, "reminders", "--json"])
    assert code == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [added["id"]]
    bad = await asyncio.to_thread(main, [*config, "reminders", "add", "x", "--at", "sometime"])
    assert bad != 0
    assert "is not a time I understand" in capsys.readouterr().err


def _has_config_option() -> bool:
    from aria_desktop.cli import build_parser

    return "--config" in build_parser().format_help()


async def test_the_model_sets_a_reminder_with_its_tool_under_the_policy_and_audit_log(
    tmp_path: Path,
) -> None:
    """ "When the pasta is done, remind me to call mom": no template says it; the model does."""
    from tests.fakes import FakeOllama
    from tests.fakes.ollama_server import ollama_text, ollama_tool_calls

    arguments = {"action": "add", "text": "call mom", "when": "in 7 minutes"}
    with FakeOllama() as ollama:
        ollama.script(
            "/api/chat",
            ollama_tool_calls([("reminder", arguments)]),
            ollama_text("I'll remind you to call mom in 7 minutes."),
        )
        settings = no_model_settings(tmp_path, ARIA_LLM__OLLAMA__URL=ollama.url)
        built = await build_app(settings)  # type: ignore[arg-type]
        try:
            answered = await ask(built, "when the pasta is done, remind me to call mom")
            records = list(built.audit.records())
            pending = await built.assistant.reminders.list_reminders()  # type: ignore[union-attr]
        finally:
            await built.aclose()
    assert answered.backend != "skills"
    assert answered.text == "I'll remind you to call mom in 7 minutes."
    assert [(r.text, r.state) for r in pending] == [("call mom", "pending")]
    assert 6 * 60 < pending[0].due_at - time.time() <= 7 * 60
    calls = [r.data for r in records if r.data.get("tool") == "reminder"]
    assert any(r.get("verdict") == "allow" for r in calls), calls
    assert any(r.get("arguments") == arguments for r in calls), calls


@pytest.mark.parametrize(
    ("command", "said"),
    [(["timers"], "No timers running."), (["reminders"], "No reminders or alarms.")],
)
async def test_the_bare_command_says_there_is_nothing_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], said: str
) -> None:
    from aria_desktop.cli import main

    settings_file = tmp_path / "settings.toml"
    settings_file.write_text("", encoding="utf-8")
    config = ["--config", str(settings_file)] if _has_config_option() else []
    assert await asyncio.to_thread(main, [*config, *command]) == 0
    assert said in capsys.readouterr().err
