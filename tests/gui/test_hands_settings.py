"""The file roots and the shell switch in the wizard and the settings dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QCheckBox

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.gui.views.wizard import FINISH_PAGE, PRIVACY_PAGE
from tests.fakes import FakeOllama
from tests.gui.conftest import wait_for
from tests.gui.test_settings_and_hotkeys import settings_file
from tests.gui.wizard_steps import go_to


def test_the_wizard_saves_the_file_roots_and_the_shell_switch(
    desktop_factory: Any, isolated_env: Path, ollama: FakeOllama, run: Any
) -> None:
    desktop = desktop_factory(None)
    LocalSettingsService().apply({"llm.ollama.url": ollama.url})
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.server_ok))
    assert view.file_roots.text() == "~"
    assert not view.shell_enabled.isChecked()
    go_to(view, PRIVACY_PAGE)
    view.file_roots.setText("~/Documents, ~/code")
    view.shell_enabled.setChecked(True)
    go_to(view, FINISH_PAGE)
    view.accept()
    data = settings_file(isolated_env)
    assert data["tools"]["files"]["roots"] == ["~/Documents", "~/code"]
    assert data["tools"]["shell"]["enabled"] is True


def test_the_settings_dialog_has_a_files_and_shell_tab(
    desktop_factory: Any, isolated_env: Path
) -> None:
    desktop = desktop_factory(None)
    desktop.settings.open()
    view = desktop.settings.view
    assert view is not None
    assert "Files & shell" in view.page_titles()
    assert "tools.files.roots" in view.generic
    assert "tools.shell.enabled" in view.generic
    switch = view.generic["tools.shell.enabled"]
    assert isinstance(switch, QCheckBox)
    switch.setChecked(True)
    assert desktop.settings.save()
    assert settings_file(isolated_env)["tools"]["shell"]["enabled"] is True
