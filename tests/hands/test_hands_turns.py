"""The file and shell tools in chat turns on a real orchestrator (scripted model): read-only
commands run at once, every deleting or overwriting command asks, and a declined or unanswered
request leaves every file as it was."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.core.agent import AgentConfig
from aria_desktop.domain.events import ActionConfirmRequest, Event, ToolResultEvent
from tests.core.test_shell_effects import DESTRUCTIVE
from tests.fakes.harness import answering, fake_cores
from tests.fakes.ports import text_reply, tool_reply
from tests.hands.conftest import Home, make_hands

CoreFactory = Callable[..., Any]


@pytest.fixture
async def make_core(tmp_path: Path) -> AsyncIterator[CoreFactory]:
    async with fake_cores(tmp_path) as make:
        yield make


def _prepare(home: Home) -> None:
    """The files the deletion corpus names, relative to the home folder."""
    (home.home / "notes.txt").write_text("alpha\nbeta\n")
    (home.home / "code" / "app").mkdir(parents=True)
    (home.home / "code" / "app" / "main.py").write_text("print('hi')\n")


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else ""
        for p in sorted(root.rglob("*"))
        if not p.is_symlink()
    }


@pytest.mark.parametrize("answer", [False, None], ids=["declined", "timed-out"])
async def test_every_destructive_command_asks_and_a_no_leaves_files_intact(
    make_core: CoreFactory, home: Home, answer: bool | None
) -> None:
    _prepare(home)
    timeout_s = 0.05 if answer is None else 10.0
    core = await make_core(config=AgentConfig(flush_interval_s=0.05, confirm_timeout_s=timeout_s))
    make_hands(home).install(core.orchestrator)
    before = _snapshot(home.root)
    async with answering(core.orchestrator, answer):
        for argv in DESTRUCTIVE:
            core.model.script(tool_reply([("shell_run", {"argv": argv})]), text_reply("ok"))
            events, _ = await core.turn("do it")
            result = next(e for e in events if isinstance(e, ToolResultEvent))
            assert result.status == "denied", (argv, result.result)
            asked = [e for e in events if isinstance(e, ActionConfirmRequest)]
            if asked:
                assert len(asked) == 1
                why = "did not answer in time" if answer is None else "declined"
                assert why in result.result
            else:
                assert "Refused by the safety policy" in result.result
    assert _snapshot(home.root) == before


async def _one_call(
    make_core: CoreFactory,
    home: Home,
    name: str,
    arguments: dict[str, Any],
    *,
    approve: bool | None = True,
) -> list[Event]:
    """A turn in which the model makes one tool call (confirmations answered ``approve``)."""
    core = await make_core(config=AgentConfig(flush_interval_s=0.05, confirm_timeout_s=0.2))
    make_hands(home).install(core.orchestrator)
    core.model.script(tool_reply([(name, arguments)]), text_reply("Done."))
    async with answering(core.orchestrator, approve):
        events: list[Event] = (await core.turn("please"))[0]
    return events


async def test_a_read_only_allow_listed_command_runs_without_asking(
    make_core: CoreFactory, home: Home
) -> None:
    events = await _one_call(make_core, home, "shell_run", {"argv": ["ls", "Downloads"]})
    assert not any(isinstance(e, ActionConfirmRequest) for e in events)
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "ok"
    assert "exit code 0" in result.result
    assert "a.txt\nb.txt" in result.result


async def test_an_approved_command_runs_and_the_request_shows_command_and_effect(
    make_core: CoreFactory, home: Home
) -> None:
    argv = ["rm", "Downloads/a.txt", "Downloads/b.txt"]
    events = await _one_call(make_core, home, "shell_run", {"argv": argv})
    request = next(e for e in events if isinstance(e, ActionConfirmRequest))
    assert request.summary.startswith("Run: rm Downloads/a.txt Downloads/b.txt")
    assert "deletes 2 files in ~/Downloads" in request.summary
    assert "deletes or overwrites files" in request.reason
    assert not (home.home / "Downloads" / "a.txt").exists()


FILE_CHANGES = [
    ("file_edit", {"path": "Documents/notes.txt", "old_text": "beta", "new_text": "BETA"}),
    ("file_write", {"path": "Documents/notes.txt", "content": "gone\n", "overwrite": True}),
    ("file_move", {"moves": [{"source": "Downloads/a.txt", "target": "Documents/a.txt"}]}),
    ("file_move", {"moves": [{"source": "Downloads/a.txt", "target": "Downloads/b.txt"}],
                   "overwrite": True}),
    ("file_trash", {"paths": ["Downloads/a.txt", "Downloads/b.txt"]}),
]  # fmt: skip


@pytest.mark.parametrize("answer", [False, None], ids=["declined", "timed-out"])
@pytest.mark.parametrize(("name", "arguments"), FILE_CHANGES, ids=lambda v: str(v)[:30])
async def test_a_file_change_asks_and_a_no_leaves_every_file_intact(
    make_core: CoreFactory, home: Home, name: str, arguments: dict[str, Any], answer: bool | None
) -> None:
    before = _snapshot(home.root)
    events = await _one_call(make_core, home, name, arguments, approve=answer)
    assert sum(isinstance(e, ActionConfirmRequest) for e in events) == 1
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert _snapshot(home.root) == before


async def test_the_shell_is_not_offered_while_it_is_off(make_core: CoreFactory, home: Home) -> None:
    core = await make_core()
    make_hands(home, shell_enabled=False).install(core.orchestrator)
    assert "shell_run" not in core.orchestrator.tools.names()
    assert "file_read" in core.orchestrator.tools.names()


async def test_a_file_tool_refusal_tells_the_model_why(make_core: CoreFactory, home: Home) -> None:
    events = await _one_call(make_core, home, "file_read", {"path": "~/.ssh/id_rsa"})
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.status == "denied"
    assert "protected folder (~/.ssh)" in result.result
    assert "PRIVATE" not in result.result


async def test_long_output_comes_back_as_head_and_tail_and_pages_through_shell_output(
    make_core: CoreFactory, home: Home
) -> None:
    events = await _one_call(make_core, home, "shell_run", {"argv": ["seq", "1", "20000"]})
    result = next(e for e in events if isinstance(e, ToolResultEvent)).result
    assert result.startswith("$ seq 1 20000\nexit code 0; 108894 bytes of output")
    output_id = result.split("output_id=")[1].split()[0]
    hands = make_hands(home)
    page_tool = next(tool for tool in hands.tools() if tool.name == "shell_output")
    page = await page_tool.handler({"output_id": output_id, "offset": 48894, "limit": 12})
    assert page.startswith("bytes 48894-48906 of 108894; read on with offset=48906")
    assert "10001\n10002\n" in page
