"""A typo or a broken settings file: ``aria desktop`` names it in a window before the tray
(Open settings file, Start with defaults, Quit), and the settings service never writes over
a file that does not parse.

Real settings files and the real tolerant load; the one double is the desktop's "open this
file" (it would launch an editor on the test machine).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import QApplication, QLabel

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.domain.errors import ConfigError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.gui.controllers.settings_problems import SettingsProblemsPrompt
from aria_desktop.gui.theme import ThemeManager
from aria_desktop.gui.views.settings_problems import SettingsProblemsView
from aria_desktop.settings import load_settings_with_problems
from tests.gui.conftest import ICONS, process_events, wait_for
from tests.gui.test_render import assert_fully_visible, screenshot, settle

_TYPO = '[voice]\nenabeld = true\npush_to_talk = "hodl"\n'
_BROKEN = "[voice\nenabled = true\n"


def _problems(tmp_path: Path, text: str) -> tuple[SettingsProblem, ...]:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings_with_problems(path, env={}).problems


def _texts(view: SettingsProblemsView) -> str:
    return "\n".join(label.text() for label in view.findChildren(QLabel))


async def _click_when_shown(prompt: SettingsProblemsPrompt, button: Any) -> bool:
    answer = asyncio.ensure_future(prompt.answer())
    await wait_for(prompt.view.isVisible)
    button.click()
    return await answer


def test_a_typo_is_named_with_its_file_and_line_and_start_goes_on(tmp_path: Path, run: Any) -> None:
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    prompt = SettingsProblemsPrompt(_problems(tmp_path, _TYPO), open_url=open_url)
    view = prompt.view
    text = _texts(view)
    assert str(tmp_path / "settings.toml") in view.file_label.text()
    assert "Line 2: voice.enabeld is not a setting ARIA knows" in text
    assert "did you mean voice.enabled?" in text
    assert "Line 3: voice.push_to_talk" in text
    assert "2 settings need a look" in text

    async def scenario() -> bool:
        answer = asyncio.ensure_future(prompt.answer())
        await wait_for(view.isVisible)
        view.open_button.click()  # the window stays: fix the file, then start
        assert view.isVisible()
        assert "open in your editor" in view.status.text()
        view.start_button.click()
        return await answer

    assert run(scenario()) is True
    assert [url.toLocalFile() for url in opened] == [str(tmp_path / "settings.toml")]


def test_a_broken_file_is_named_and_quit_stops_there(tmp_path: Path, run: Any) -> None:
    prompt = SettingsProblemsPrompt(_problems(tmp_path, _BROKEN), open_url=lambda _url: False)
    view = prompt.view
    assert "ARIA cannot read its settings file" in _texts(view)
    assert "Line 1, column 7: The settings file cannot be read" in _texts(view)
    view.open_button.click()
    assert "No program to open it was found" in view.status.text()
    assert run(_click_when_shown(prompt, view.quit_button)) is False


def test_closing_the_window_starts_with_defaults(tmp_path: Path, run: Any) -> None:
    prompt = SettingsProblemsPrompt(_problems(tmp_path, _TYPO))

    async def scenario() -> bool:
        answer = asyncio.ensure_future(prompt.answer())
        await wait_for(prompt.view.isVisible)
        prompt.view.close()
        return await answer

    assert run(scenario()) is True


def test_the_settings_service_reads_a_broken_file_and_never_writes_over_it(
    isolated_env: Path,
) -> None:
    service = LocalSettingsService()
    service.path.parent.mkdir(parents=True, exist_ok=True)
    service.path.write_text(_BROKEN, encoding="utf-8")
    values = {info.key: info.value for info in service.fields("voice.")}
    assert values["voice.push_to_talk"] == "hold"  # the dialog opens, on the defaults
    assert service.check({"llm.ollama.model": "qwen3:4b"}) == {}  # the value itself is fine
    with pytest.raises(ConfigError) as info:
        service.apply({"llm.ollama.model": "qwen3:4b"})
    assert "not saved" in info.value.message
    assert "line 1, column 7" in info.value.message
    assert service.path.read_text(encoding="utf-8") == _BROKEN


def test_aria_desktop_shows_the_window_before_the_tray_and_quit_starts_nothing(
    isolated_env: Path, qapp: Any
) -> None:
    from aria_desktop.compose.desktop_services import LocalSettingsService
    from aria_desktop.gui.app import DesktopOptions, run_desktop

    connected: list[bool] = []
    seen: list[str] = []

    async def connector() -> Any:
        connected.append(True)
        raise AssertionError("ARIA must not start after Quit")

    def click_quit() -> None:
        views = [w for w in QApplication.topLevelWidgets() if isinstance(w, SettingsProblemsView)]
        shown = [v for v in views if v.isVisible()]
        if not shown:
            QTimer.singleShot(20, click_quit)
            return
        seen.append(_texts(shown[0]))
        shown[0].quit_button.click()

    QTimer.singleShot(0, click_quit)
    options = DesktopOptions(
        icons_dir=ICONS,
        use_tray=True,
        show_wizard=False,
        hotkeys=False,
        settings_problems=_problems(isolated_env, _TYPO),
    )
    assert run_desktop(connector, LocalSettingsService(), options) == 0
    assert connected == []
    assert "voice.enabeld" in seen[0]


def test_settings_problems_window_renders(tmp_path: Path, run: Any, theme: str, qapp: Any) -> None:
    ThemeManager(qapp).apply(theme)
    problems = _problems(tmp_path, _TYPO + "\n[voic]\nx = 1\n")
    prompt = SettingsProblemsPrompt(problems)
    view = prompt.view
    view.setWindowIcon(QApplication.windowIcon())
    view.move(120, 80)
    answer = asyncio.ensure_future(prompt.answer(), loop=asyncio.get_event_loop())
    settle(run, view)
    assert_fully_visible(view, [view.open_button, view.start_button, view.quit_button])
    screenshot("settings-problems", theme)
    broken = SettingsProblemsView(_problems(tmp_path, _BROKEN), str(tmp_path / "settings.toml"))
    broken.move(120, 80)
    view.start_button.click()
    broken.show()
    settle(run, broken)
    assert_fully_visible(broken, [broken.open_button, broken.start_button, broken.quit_button])
    screenshot("settings-problems-broken", theme)
    broken.close()
    process_events(run)
    assert run(answer) is True
    broken.deleteLater()
