"""Opening an app by voice or text, through the composed ARIA: real templates, real XDG entries,
a real program started (it reports how it was started through a FIFO), and the sentences that
only look like "open …" left to the model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aria_desktop.adapters.skills.applications import XdgAppCatalog, XdgAppLauncher
from aria_desktop.adapters.skills.phrasebook import YamlPhrasebook
from aria_desktop.compose.app import App, build_app
from aria_desktop.compose.skills import Skills
from aria_desktop.core.skills.apps import AppSkill, choose_app, spoken_app_name
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text, ollama_tool_calls
from tests.skills.conftest import ask, no_model_settings
from tests.skills.desktop_parts import marker_program, read_marker, write_app


def _skills(app: App) -> Skills:
    """The composed app's skills (always built by ``build_app``)."""
    assert app.skills is not None
    return app.skills


_INSTALLED = {
    "firefox-esr": ("Firefox ESR", "GenericName=Web Browser\nGenericName[de]=Webbrowser\n"),
    "org.gnome.Calculator": ("Calculator", "Name[de]=Taschenrechner\nKeywords=math;\n"),
    "org.gnome.Nautilus": ("Files", "Name[de]=Dateien\nGenericName=File Manager\n"),
    "org.gnome.TextEditor": ("Text Editor", "Name[de]=Texteditor\n"),
    "wmaker": ("Window Maker", "GenericName=Window Manager\n"),
    "bank": ("BankBuddy", "GenericName=Finance\n"),
}


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary XDG data folders with a few well-known apps (all run /bin/true)."""
    system = tmp_path / "share"
    for app_id, (name, extra) in _INSTALLED.items():
        write_app(system, app_id, name=name, command="/bin/true %U", extra=extra)
    monkeypatch.setenv("XDG_DATA_DIRS", str(system))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user-share"))
    monkeypatch.delenv("XDG_CURRENT_DESKTOP", raising=False)
    return system


@pytest.mark.parametrize(
    ("language", "sentence", "app"),
    [
        ("en", "open firefox", "Firefox ESR"),
        ("en", "launch the calculator", "Calculator"),
        ("en", "start text editor", "Text Editor"),
        ("en", "open files", "Files"),
        ("en", "open nautilus", "Files"),
        ("en", "open the browser", "Firefox ESR"),
        ("en", "Could you open the calculator app, please?", "Calculator"),
        ("en", "open fire fox", "Firefox ESR"),
        ("en", "open the calculater", "Calculator"),
        ("de", "öffne Firefox", "Firefox ESR"),
        ("de", "starte den Taschenrechner", "Calculator"),
        ("de", "Dateien öffnen", "Files"),
        ("de", "mach den Texteditor auf", "Text Editor"),
    ],
)
def test_a_spoken_name_finds_the_installed_app(
    recognizer: object, desktop: Path, language: str, sentence: str, app: str
) -> None:
    skill = AppSkill(XdgAppCatalog(), XdgAppLauncher(), YamlPhrasebook())
    found = recognizer.recognize(sentence, language, accept=skill.accepts)  # type: ignore[attr-defined]
    assert found is not None, sentence
    assert found.intent == "AriaOpenApp"
    choice = choose_app(found.text_slot("app"), XdgAppCatalog().apps(), language)
    assert choice is not None
    assert choice.app.name == app


FALSE_CAPTURES = [
    ("en", "Should I open the window at night?"),
    ("en", "open the window"),
    ("en", "open window"),
    ("en", "open a bank account"),
    ("en", "how do I open a PDF in Python?"),
    ("en", "start a timer"),
    ("en", "start the timer"),
    ("en", "open the door"),
    ("en", "open my shopping list"),
    ("en", "start the meeting"),
    ("en", "launch the rocket"),
    ("en", "open the pod bay doors"),
    ("en", "start with the budget"),
    ("de", "öffne das Fenster"),
    ("de", "starte einen Timer"),
    ("de", "mach das Fenster auf"),
    ("de", "soll ich nachts das Fenster öffnen"),
]


@pytest.mark.parametrize(("language", "sentence"), FALSE_CAPTURES)
def test_a_sentence_that_only_looks_like_open_is_not_an_app_launch(
    recognizer: object, desktop: Path, language: str, sentence: str
) -> None:
    skill = AppSkill(XdgAppCatalog(), XdgAppLauncher(), YamlPhrasebook())
    for fuzzy in (False, True):
        found = recognizer.recognize(  # type: ignore[attr-defined]
            sentence,
            language,
            fuzzy=fuzzy,
            accept=lambda m: m.intent == "AriaOpenApp" and skill.accepts(m),
        )
        assert found is None, (sentence, found)


def test_the_name_is_what_is_left_without_articles_and_politeness() -> None:
    assert spoken_app_name("the calculator app please", "en") == ("calculator", True)
    assert spoken_app_name("Firefox", "en") == ("firefox", False)
    assert spoken_app_name("den Taschenrechner bitte", "de") == ("taschenrechner", False)
    assert spoken_app_name("das Programm Gimp", "de") == ("gimp", True)


async def test_open_starts_the_program_detached_and_says_so(
    app: App, desktop: Path, tmp_path: Path
) -> None:
    program = marker_program(tmp_path, tmp_path / "started.fifo")
    write_app(desktop, "org.example.Marker", name="Marker Pad", command=f"{program} --hello %U")
    answered = await ask(app, "open marker pad")
    assert (answered.text, answered.backend, answered.model) == (
        "Opening Marker Pad.",
        "skills",
        "apps",
    )
    started = await read_marker(tmp_path / "started.fifo")
    assert started["args"] == "--hello"  # %U dropped
    assert started["sid"] != str(os.getsid(0))  # a session of its own
    assert started["ppid"] != str(os.getpid())  # not ARIA's child: handed to init
    assert started["stdin"] == started["stdout"] == started["stderr"] == "/dev/null"
    assert started["cwd"] == os.path.expanduser("~")


async def test_an_app_said_to_be_an_app_but_not_installed_gets_a_plain_answer(
    tmp_path: Path, desktop: Path
) -> None:
    app = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="en,de"))  # type: ignore[arg-type]
    try:
        answered = await ask(app, "open the app Spotify")
        german = await ask(app, "öffne das Programm Spotify")
        opened = await ask(app, "starte den Taschenrechner")
    finally:
        await app.aclose()
    assert answered.text == "I couldn't find an app called spotify."
    assert answered.model == "apps"
    assert german.text == "Ich habe keine App namens spotify gefunden."
    assert opened.text == "Taschenrechner wird geöffnet."


async def test_an_app_whose_program_went_away_says_it_did_not_start(
    app: App, desktop: Path, tmp_path: Path
) -> None:
    program = marker_program(tmp_path, tmp_path / "never.fifo")
    write_app(desktop, "vanishing", name="Vanishing Act", command=str(program))
    assert (await ask(app, "open vanishing act")).text == "Opening Vanishing Act."
    await read_marker(tmp_path / "never.fifo")
    _skills(app).router.match("open vanishing act")  # the catalog read it
    program.unlink()
    answered = await ask(app, "open vanishing act")
    assert answered.text == "Vanishing Act didn't start."


async def test_the_model_opens_an_app_with_the_open_app_tool_under_the_audit_log(
    tmp_path: Path, desktop: Path
) -> None:
    program = marker_program(tmp_path, tmp_path / "tool.fifo")
    write_app(desktop, "org.example.Notes", name="Quick Notes", command=str(program))
    with FakeOllama() as ollama:
        ollama.script(
            "/api/chat",
            ollama_tool_calls([("open_app", {"name": "quick notes"})]),
            ollama_text("I opened Quick Notes for you."),
        )
        settings = no_model_settings(tmp_path, ARIA_LLM__OLLAMA__URL=ollama.url)
        built = await build_app(settings)  # type: ignore[arg-type]
        try:
            answered = await ask(built, "I need to jot something down, bring up my notes app")
            await read_marker(tmp_path / "tool.fifo")
            records = list(built.audit.records())
        finally:
            await built.aclose()
    assert answered.text == "I opened Quick Notes for you."
    calls = [r.data for r in records if r.data.get("tool") == "open_app"]
    assert any(r.get("verdict") == "allow" for r in calls), calls
    assert any("Opening Quick Notes." in str(r) for r in calls), calls
