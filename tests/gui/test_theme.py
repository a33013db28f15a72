"""Light and dark: ``gui.theme`` switches the app's palette and its coloured parts at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.gui.theme import ROLE_PROPERTY, is_dark, wants_dark


@pytest.mark.parametrize(
    ("choice", "scheme", "palette_dark", "dark"),
    [
        ("light", Qt.ColorScheme.Dark, True, False),
        ("dark", Qt.ColorScheme.Light, False, True),
        ("system", Qt.ColorScheme.Dark, False, True),  # the desktop says dark, paints light
        ("system", Qt.ColorScheme.Light, True, False),
        ("system", Qt.ColorScheme.Unknown, True, True),  # says nothing: its palette decides
        ("system", Qt.ColorScheme.Unknown, False, False),
    ],
)
def test_the_theme_follows_the_choice_then_the_desktop(
    choice: str, scheme: Qt.ColorScheme, palette_dark: bool, dark: bool
) -> None:
    assert wants_dark(choice, scheme, palette_dark) is dark


def test_the_theme_setting_switches_the_palette_of_every_window(
    desktop_factory: Any, isolated_env: Path, qapp: QApplication
) -> None:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    try:
        LocalSettingsService().apply({"gui.theme": "dark"})
        desktop = desktop_factory(None)
        assert is_dark(qapp.palette())
        assert is_dark(desktop.chat_view.palette())
        banner = desktop.chat_view.banner
        assert banner.property(ROLE_PROPERTY) == "banner"
        assert "#3a321d" in qapp.styleSheet()  # the banner's dark colours, app-wide
        switched: list[bool] = []
        assert desktop.theme is not None
        desktop.theme.changed.connect(switched.append)
        LocalSettingsService().apply({"gui.theme": "light"})
        desktop.settings.saved.emit()  # what saving the settings dialog does
        assert not is_dark(qapp.palette())
        assert not is_dark(desktop.chat_view.transcript.palette())
        assert switched == [False]
        assert "#fff6db" in qapp.styleSheet()
        base = qapp.palette().color(QPalette.ColorRole.Base)
        assert base.lightness() > 200
    finally:
        qapp.setPalette(palette)
        qapp.setStyleSheet(sheet)
