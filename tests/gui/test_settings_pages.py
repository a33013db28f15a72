"""The settings dialog as people see it: a sidebar of pages that fit, human labels, choices
as drop-downs of the allowed values, numbers with units and bounds, every setting reachable,
the voice page's device picker; each page rendered light and dark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
)

from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.gui.settings_catalog import ENTRIES, FILE_ONLY, PAGES, SPECIAL
from aria_desktop.settings.keys import leaf_map
from tests.gui.test_render import assert_fully_visible, screenshot, settle
from tests.gui.test_settings_and_hotkeys import settings_file

TITLES = [
    "Model",
    "Voice",
    "Hotkeys",
    "General",
    "Privacy & memory",
    "Files & shell",
    "Computer control",
    "Home Assistant",
    "Local API",
    "Advanced",
]


def test_each_page_opens_and_fits(desktop_factory: Any, run: Any, theme: str) -> None:
    """One dialog, every page shown in turn (one composed desktop per theme: fast)."""
    desktop = desktop_factory(None)
    view = desktop.settings.open("Global hotkeys: Ctrl+Alt+Space (quick ask)")
    view.move(210, 90)
    assert view.page_titles() == TITLES
    for title in TITLES:
        page = view.show_page(title)
        settle(run, view)
        screenshot("settings-" + title.lower().replace(" & ", "-").replace(" ", "-"), theme)
        assert isinstance(page, QScrollArea)
        content = page.widget()
        assert content is not None
        assert content.minimumSizeHint().width() <= page.viewport().width(), title  # no sideways
        assert_fully_visible(view, [view.buttons, view.sections])
        for field in [w for w in view.generic.values() if page.isAncestorOf(w)]:
            # A long page scrolls down; across, every field fits and none is squeezed.
            name = f"{title}: {field.accessibleName()}"
            left = field.mapTo(content, QPoint(0, 0)).x()
            assert left >= 0, name
            assert left + field.width() <= page.viewport().width(), name
            assert field.width() >= field.minimumSizeHint().width(), name
            assert field.height() >= field.minimumSizeHint().height(), name
        texts = [label.text() for label in page.findChildren(QLabel)]
        assert not [t for t in texts if "`" in t or "aria config" in t], title
        assert not [t for t in texts if any(key in t for key in ENTRIES)], title  # no keys


def test_choices_are_drop_downs_of_the_allowed_values_and_numbers_have_units(
    desktop_factory: Any,
) -> None:
    view = desktop_factory(None).settings.open()
    push = view.generic["voice.push_to_talk"]
    assert isinstance(push, QComboBox)
    assert [push.itemData(i) for i in range(push.count())] == ["hold", "toggle"]
    engine = view.generic["voice.stt.engine"]
    assert isinstance(engine, QComboBox)
    assert [engine.itemData(i) for i in range(engine.count())] == ["local", "wyoming"]
    assert [push.itemText(i) for i in range(push.count())] == ["Hold", "Toggle"]
    silence = view.generic["voice.vad.silence_s"]
    assert isinstance(silence, QDoubleSpinBox)
    assert silence.suffix() == " s"
    assert silence.minimum() > 0  # the schema refuses 0
    port = view.generic["api.port"]
    assert isinstance(port, QSpinBox)
    assert (port.minimum(), port.maximum()) == (0, 65535)
    assert isinstance(view.generic["voice.enabled"], QCheckBox)


def test_every_setting_of_the_schema_is_reachable(desktop_factory: Any) -> None:
    view = desktop_factory(None).settings.open()
    shown = set(view.generic) | set(SPECIAL) | set(FILE_ONLY) | set(view.errors)
    assert set(leaf_map()) - shown == set()
    assert {key for page in PAGES for key in page.keys} <= set(view.generic)


def test_a_changed_choice_and_number_are_saved_and_the_note_says_when_they_apply(
    desktop_factory: Any, isolated_env: Path
) -> None:
    controller = desktop_factory(None).settings
    view = controller.open()
    assert controller.changes() == {}  # nothing changes by opening (numbers keep their text)
    push = view.generic["voice.push_to_talk"]
    assert isinstance(push, QComboBox)
    push.setCurrentIndex(push.findData("toggle"))
    silence = view.generic["voice.vad.silence_s"]
    assert isinstance(silence, QDoubleSpinBox)
    silence.setValue(1.2)
    assert controller.save() is True
    voice = settings_file(isolated_env)["voice"]
    assert voice["push_to_talk"] == "toggle"
    assert voice["vad"]["silence_s"] == 1.2
    assert LocalSettingsService().fields("voice.push_to_talk")[0].value == "toggle"
    notes = view.live_notes
    assert notes["Model"].text() == "Changes apply as soon as you save."
    assert "except “Use voice”" in notes["Voice"].text()
    assert notes["Files & shell"].text() == "Changes on this page apply the next time ARIA starts."


def test_add_folder_adds_a_picked_folder_to_a_list_of_folders(
    desktop_factory: Any, isolated_env: Path
) -> None:
    controller = desktop_factory(None).settings
    view = controller.open()
    assert view.folder_buttons["tools.files.roots"].text() == "Add folder…"
    folder = isolated_env / "Documents"
    folder.mkdir()
    dialog = controller.choose_folder("tools.files.roots")
    dialog.fileSelected.emit(str(folder))
    dialog.reject()
    roots = view.generic["tools.files.roots"]
    assert isinstance(roots, QLineEdit)
    assert roots.text() == f"~, {folder}"
