"""``build_hands``: the ``[tools]`` settings become the sandbox; ARIA's own folders stay out."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from aria_desktop.compose.tools import build_hands
from aria_desktop.settings import Settings
from aria_desktop.settings.schema_tools import ShellSettings, ToolsSettings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    for name in ("DATA", "CONFIG", "STATE", "CACHE"):
        monkeypatch.setenv(f"ARIA_{name}_DIR", str(home / f"aria-{name.lower()}"))
    return home


def test_aria_own_folders_are_refused_even_inside_the_roots(home: Path) -> None:
    hands = build_hands(Settings(), home=str(home))
    assert hands.check_path("~/Documents/x.txt", write=False)["verdict"] == "allow"
    for own in ("aria-data/aria.db", "aria-config/settings.toml", "aria-state/aria.log"):
        decision = hands.check_path(f"~/{own}", write=False)
        assert decision["verdict"] == "refuse", own
        assert "protected folder" in decision["reason"]


def test_writing_through_a_link_or_a_hard_link_that_leads_outside_is_refused(
    home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0\n")
    work = home / "work"
    work.mkdir()
    (work / "link-out").symlink_to(outside)
    os.link(outside / "passwd", work / "hard")
    hands = build_hands(Settings(), home=str(home))
    folder = hands.check_path("~/work/link-out", write=True)
    assert folder["verdict"] == "refuse"
    assert "is a link to" in folder["reason"]
    assert "outside the allowed folders" in folder["reason"]
    hard = hands.check_path("~/work/hard", write=True)
    assert hard["verdict"] == "refuse"
    assert "2 hard links" in hard["reason"]
    assert hands.check_path("~/work/new.txt", write=True)["verdict"] == "ask"
    assert hands.check_path("~/work/hard", write=False)["verdict"] == "allow"


def test_the_shell_is_offered_only_when_switched_on(home: Path) -> None:
    off = build_hands(Settings(), home=str(home))
    assert "shell_run" not in {tool.name for tool in off.tools()}
    assert off.capability().available is False
    settings = dataclasses.replace(
        Settings(), tools=ToolsSettings(shell=ShellSettings(enabled=True))
    )
    on = build_hands(settings, home=str(home))
    assert {"shell_run", "shell_output", "file_trash"} <= {tool.name for tool in on.tools()}
    assert on.check_shell(["ls"], None)["verdict"] == "allow"
