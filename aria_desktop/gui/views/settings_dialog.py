"""The settings dialog (non-modal): one tab per area, errors shown next to the field."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.domain.audio import WHISPER_LANGUAGES
from aria_desktop.domain.config import SettingInfo
from aria_desktop.gui.views._widgets import (
    HOTKEYS,
    hotkey_edit,
    init_secondary_window,
    secret_edit,
    wrapped_label,
)

__all__ = ["FieldWidget", "SettingsDialogView"]

FieldWidget = QLineEdit | QCheckBox
_ERROR_STYLE = "color: #b42318; font-size: 11px;"
# Free-text settings with well-known values: offered as completions, explained in a note.
_SUGGESTIONS: dict[str, tuple[str, ...]] = {
    "voice.stt.model": ("tiny.en", "base"),
    "voice.stt.language": WHISPER_LANGUAGES,
}
_NOTES = {
    "voice.stt.model": "tiny.en: English, fastest. base: multilingual, about three times "
    "slower. Or the folder of a CTranslate2 Whisper model.",
    "voice.stt.language": "Empty: English with tiny.en, detected with base. Or a language "
    "code such as de, fr, es.",
    "homeassistant.url": "Empty: ARIA does not use Home Assistant.",
    "homeassistant.immediate_domains": "These act at once; any other domain asks first. Locks, "
    "alarms, covers, scripts, scenes and automations always ask.",
}
_PLACEHOLDERS = {
    "voice.stt.language": "automatic",
    "homeassistant.url": "http://homeassistant.local:8123",
}
_NOTES["tools.files.roots"] = (
    "Folders ARIA's file and shell tools may use, comma-separated (~ is your home). Hidden "
    "folders, ~/.ssh, ~/.gnupg, keyrings, browser profiles and password databases stay out "
    "of reach."
)
_NOTES["tools.shell.enabled"] = (
    "Commands run without asking only when they just read inside these folders; anything that "
    "changes, deletes, installs or goes online asks you first, showing the exact command."
)
_FOLDER_KEYS = ("voice.stt.model",)


def error_label() -> QLabel:
    """A hidden red line under a field, shown with the reason when its value is refused."""
    label = wrapped_label("", _ERROR_STYLE)
    label.hide()
    return label


def note(text: str) -> QLabel:
    """A grey explanatory paragraph."""
    return wrapped_label(text, "color: #4b5563;")


def field_row(field: QWidget, *buttons: QWidget) -> QWidget:
    """``field`` taking the spare width with its ``buttons`` beside it, as one form cell.

    No margins, so the row lines up with the single-widget fields above and below it.
    """
    row_widget = QWidget()
    row = QHBoxLayout(row_widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(field, 1)
    for button in buttons:
        row.addWidget(button)
    return row_widget


class SettingsDialogView(QDialog):
    """Layout only; ``SettingsController`` loads values, validates and saves."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_secondary_window(self, title="ARIA — Settings", icon=icon)
        self.resize(720, 600)
        self.errors: dict[str, QLabel] = {}
        self.generic: dict[str, FieldWidget] = {}
        self.folder_buttons: dict[str, QPushButton] = {}
        self.tabs = QTabWidget()
        self.tabs.addTab(self._llm_tab(), "Language model")
        self.voice_page = self._section_page()
        self.tabs.addTab(self.voice_page, "Voice")
        self.tabs.addTab(self._hotkeys_tab(), "Hotkeys")
        self.computer_page = self._section_page()
        self.tabs.addTab(self.computer_page, "Computer use")
        self.tools_page = self._section_page()
        self.tabs.addTab(self.tools_page, "Files && shell")
        self.privacy_page = self._section_page()
        self.tabs.addTab(self.privacy_page, "Privacy")
        self.tabs.addTab(self._api_tab(), "API")
        self.tabs.addTab(self._homeassistant_tab(), "Home Assistant")
        self.tabs.addTab(self._general_tab(), "General")
        self.form_error = QLabel("")
        self.form_error.setObjectName("formError")
        self.form_error.setStyleSheet(_ERROR_STYLE + "font-size: 12px;")
        self.form_error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.form_error)
        layout.addWidget(self.buttons)

    # --- tabs ---------------------------------------------------------------------------------

    def _field(self, form: QFormLayout, label: str, key: str, widget: QWidget) -> None:
        container = QWidget()
        container.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        column = QVBoxLayout(container)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        self.errors[key] = error_label()
        column.addWidget(self.errors[key])
        form.addRow(label, container)

    def _llm_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.ollama_url = QLineEdit()
        self.ollama_url.setObjectName("ollamaUrl")
        self.ollama_url.setPlaceholderText("http://127.0.0.1:11434")
        self.test_button = QPushButton("Test connection")
        self.test_button.setObjectName("testConnection")
        url_widget = field_row(self.ollama_url, self.test_button)
        self._field(form, "Ollama address", "llm.ollama.url", url_widget)
        self.test_result = QLabel("")
        self.test_result.setObjectName("testResult")
        self.test_result.setWordWrap(True)
        form.addRow("", self.test_result)
        self.model = QComboBox()
        self.model.setObjectName("modelPicker")
        self.model.setEditable(True)
        self.model.setMinimumWidth(260)
        self._field(form, "Model", "llm.ollama.model", self.model)
        self.anthropic_key = secret_edit("sk-ant-…  (stored in the system keyring)")
        self.store_key_button = QPushButton("Store key")
        self.remove_key_button = QPushButton("Remove")
        key_widget = field_row(self.anthropic_key, self.store_key_button, self.remove_key_button)
        self._field(form, "Anthropic API key", "secret.anthropic_api_key", key_widget)
        self.key_status = QLabel("")
        form.addRow("", self.key_status)
        self.chain = QListWidget()
        self.chain.setObjectName("fallbackOrder")
        self.chain.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.chain.setMaximumHeight(86)
        self._field(form, "Fallback order", "llm.chains", self.chain)
        form.addRow(
            "",
            note(
                "Drag to reorder; untick a backend to leave it out. Claude (anthropic), "
                "and an OpenAI-compatible server on another computer, send the "
                "conversation to the cloud."
            ),
        )
        self.fallback_on: dict[str, QCheckBox] = {}
        conditions = QHBoxLayout()
        for reason, text in (
            ("error", "on errors"),
            ("context_overflow", "when the conversation is too long"),
            ("capability", "when a model lacks a feature"),
        ):
            box = QCheckBox(text)
            self.fallback_on[reason] = box
            conditions.addWidget(box)
        conditions_widget = QWidget()
        conditions.setContentsMargins(0, 0, 0, 0)
        conditions_widget.setLayout(conditions)
        self._field(form, "Fall back", "llm.fallback_on", conditions_widget)
        form.addRow("", note("Model changes apply the next time ARIA starts."))
        return page

    def _section_page(self) -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        return area

    def fill_section(self, page: QScrollArea, infos: list[SettingInfo], missing: str) -> None:
        """Build one generic field per setting of a capability (its schema decides the keys)."""
        content = QWidget()
        form = QFormLayout(content)
        if not infos:
            form.addRow(note(missing))
        for info in infos:
            label = info.key.split(".", 1)[1].replace("_", " ").replace(".", " › ")
            widget: FieldWidget
            if info.type_name == "bool":
                widget = QCheckBox()
                widget.setChecked(info.value == "true")
            else:
                widget = QLineEdit(info.value)
                widget.setPlaceholderText(_PLACEHOLDERS.get(info.key, info.default))
                if info.key in _SUGGESTIONS:
                    widget.setCompleter(QCompleter(list(_SUGGESTIONS[info.key]), widget))
            widget.setToolTip(f"{info.key} ({info.type_name}); default: {info.default}")
            self.generic[info.key] = widget
            shown: QWidget = widget
            if info.key in _FOLDER_KEYS:
                self.folder_buttons[info.key] = QPushButton("Folder…")
                shown = field_row(widget, self.folder_buttons[info.key])
            self._field(form, label.capitalize(), info.key, shown)
            if info.key in _NOTES:
                form.addRow("", note(_NOTES[info.key]))
        page.setWidget(content)

    def _homeassistant_tab(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        form = QFormLayout()
        self.ha_token = secret_edit("Long-lived access token (stored in the system keyring)")
        self.ha_token.setObjectName("haToken")
        self.store_ha_token_button = QPushButton("Store token")
        self.remove_ha_token_button = QPushButton("Remove")
        token_row = field_row(
            self.ha_token, self.store_ha_token_button, self.remove_ha_token_button
        )
        self._field(form, "Access token", "secret.homeassistant_token", token_row)
        self.ha_token_status = QLabel("")
        form.addRow("", self.ha_token_status)
        self.ha_test_button = QPushButton("Test connection")
        self.ha_test_result = wrapped_label("")
        form.addRow("", field_row(self.ha_test_result, self.ha_test_button))
        form.addRow(
            "",
            note(
                "Make the token in Home Assistant: your profile › Security › Long-lived access "
                "tokens. ARIA reads states freely; lights, media and climate act at once; "
                "locks, alarms, covers and anything else wait for your approval."
            ),
        )
        self.homeassistant_page = self._section_page()
        column.addWidget(self.homeassistant_page, 1)
        column.addLayout(form)
        return page

    def _hotkeys_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.hotkeys_enabled = QCheckBox("Use global hotkeys")
        form.addRow("", self.hotkeys_enabled)
        self.hotkey_edits: dict[str, QKeySequenceEdit] = {}
        for key, text in HOTKEYS:
            edit = hotkey_edit()
            self.hotkey_edits[key] = edit
            self._field(form, text, key, edit)
        self.hotkey_status = note("")
        form.addRow("", self.hotkey_status)
        return page

    def _api_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.addRow(
            note(
                "Programs on this computer use this token to talk to ARIA's local "
                "HTTP API. Anyone with it can use ARIA as you."
            )
        )
        self.api_token = QLineEdit()
        self.api_token.setObjectName("apiToken")
        self.api_token.setReadOnly(True)
        self.api_token.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_token_button = QPushButton("Show")
        self.show_token_button.setCheckable(True)
        self.copy_token_button = QPushButton("Copy")
        self.rotate_token_button = QPushButton("Rotate…")
        widget = field_row(
            self.api_token,
            self.show_token_button,
            self.copy_token_button,
            self.rotate_token_button,
        )
        self._field(form, "API token", "api.token", widget)
        return page

    def _general_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.start_at_login = QCheckBox("Start ARIA when I log in")
        self.start_at_login.setObjectName("startAtLogin")
        self._field(form, "", "gui.start_at_login", self.start_at_login)
        self.wizard_button = QPushButton("Run the first-run set-up again…")
        form.addRow("", self.wizard_button)
        form.addRow(
            "",
            note(
                "Your settings file can also be edited by hand; "
                "`aria config path` shows where it is."
            ),
        )
        return page

    # --- helpers ------------------------------------------------------------------------------

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show each reason under its field; a summary at the bottom."""
        for key, label in self.errors.items():
            reason = errors.get(key, "")
            label.setText(reason)
            label.setVisible(bool(reason))
        if errors:
            self.form_error.setText(f"Not saved: {len(errors)} value(s) need fixing.")
            first = next(iter(errors))
            widget = self.errors.get(first)
            if widget is not None:
                for index in range(self.tabs.count()):
                    page: QWidget | None = self.tabs.widget(index)
                    if page is not None and page.isAncestorOf(widget):
                        self.tabs.setCurrentIndex(index)
                        break
        else:
            self.form_error.setText("")

    def chain_item_flags(self) -> Qt.ItemFlag:
        """Flags of a fallback-order row: checkable and draggable."""
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsUserCheckable
            | Qt.ItemFlag.ItemIsDragEnabled
        )
