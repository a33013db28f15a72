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
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from aria_desktop.domain.audio import WHISPER_LANGUAGES
from aria_desktop.domain.config import SettingInfo
from aria_desktop.gui.settings_catalog import (
    ADVANCED,
    FILE_ONLY,
    PAGES,
    SPECIAL,
    entry,
    live_note,
    section_title,
)
from aria_desktop.gui.theme import mark
from aria_desktop.gui.views._widgets import (
    HOTKEYS,
    hotkey_edit,
    init_secondary_window,
    secret_edit,
    wrapped_label,
)
from aria_desktop.gui.views.devices import DevicePickerView
from aria_desktop.gui.views.settings_fields import FieldWidget, make_field

__all__ = ["FieldWidget", "SettingsDialogView"]

# Free-text settings with well-known values: offered as completions.
_SUGGESTIONS: dict[str, tuple[str, ...]] = {
    "voice.stt.model": ("tiny.en", "base"),
    "voice.stt.language": WHISPER_LANGUAGES,
}
_PAGE_OF = {key: page.title for page in PAGES for key in page.keys}


def error_label() -> QLabel:
    """A hidden red line under a field, shown with the reason when its value is refused."""
    label = mark(wrapped_label(""), "error")
    label.hide()
    return label


def note(text: str) -> QLabel:
    """A grey line of help."""
    return mark(wrapped_label(text), "muted")


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
    """Layout only; ``SettingsController`` loads values, validates and saves.

    A sidebar of pages (``sections``, the list on the left) and the page on the right
    (``pages``); each page ends with when its changes apply.
    """

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_secondary_window(self, title="ARIA — Settings", icon=icon)
        self.resize(860, 680)
        self.errors: dict[str, QLabel] = {}
        self.generic: dict[str, FieldWidget] = {}
        self.folder_buttons: dict[str, QPushButton] = {}
        self.forms: dict[str, QFormLayout] = {}
        self.live_notes: dict[str, QLabel] = {}
        self.sections = QListWidget()
        self.sections.setObjectName("settingsSections")
        self.sections.setFixedWidth(170)
        self.sections.setSpacing(3)
        self.pages = QStackedWidget()
        self._add_page("Model", self._llm_tab())
        self.devices = DevicePickerView()
        self._add_page("Voice", self._form_page("Voice", self.devices))
        self._add_page("Hotkeys", self._hotkeys_tab())
        self._add_page("General", self._general_tab())
        for title in ("Privacy & memory", "Files & shell", "Computer control"):
            self._add_page(title, self._form_page(title))
        self._add_page("Home Assistant", self._homeassistant_tab())
        self._add_page("Local API", self._api_tab())
        self._add_page(ADVANCED, self._form_page(ADVANCED))
        self.sections.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.sections.setCurrentRow(0)
        self.form_error = mark(QLabel(""), "error")
        self.form_error.setObjectName("formError")
        self.form_error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        body = QHBoxLayout()
        body.addWidget(self.sections)
        body.addWidget(self.pages, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.form_error)
        layout.addWidget(self.buttons)

    def _add_page(self, title: str, page: QWidget) -> None:
        self.sections.addItem(title)
        self.pages.addWidget(page)

    def add_page(self, title: str, page: QWidget) -> None:
        """Add a page another window part owns (MCP's tool servers), before Advanced."""
        index = self.page_titles().index(ADVANCED)
        self.sections.insertItem(index, title)
        self.pages.insertWidget(index, page)

    def page_titles(self) -> list[str]:
        """The sidebar's pages, in order."""
        return [self.sections.item(i).text() for i in range(self.sections.count())]

    def show_page(self, title: str) -> QWidget:
        """Bring up the page called ``title`` (as if picked in the sidebar)."""
        self.sections.setCurrentRow(self.page_titles().index(title))
        page = self.pages.currentWidget()
        assert page is not None
        return page

    def _form_page(self, title: str, top: QWidget | None = None) -> QScrollArea:
        """A scrolling page whose form the generic fields of ``title`` fill."""
        content = QWidget()
        form = QFormLayout(content)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        if top is not None:
            form.addRow(top)
        self.forms[title] = form
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area.setWidget(content)
        return area

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
        page = self._form_page("Model")
        form = self.forms["Model"]
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
        self._field(form, "Claude API key", "secret.anthropic_api_key", key_widget)
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
                "Drag to reorder; untick one to leave it out. Claude, and an "
                "OpenAI-compatible server on another computer, send the conversation to "
                "the cloud."
            ),
        )
        self.fallback_on: dict[str, QCheckBox] = {}
        conditions = QVBoxLayout()
        for reason, text in (
            ("error", "When it fails"),
            ("context_overflow", "When the conversation is too long for it"),
            ("capability", "When it lacks a feature (seeing images, tools)"),
        ):
            box = QCheckBox(text)
            self.fallback_on[reason] = box
            conditions.addWidget(box)
        conditions_widget = QWidget()
        conditions.setContentsMargins(0, 0, 0, 0)
        conditions_widget.setLayout(conditions)
        self._field(form, "Try the next one", "llm.fallback_on", conditions_widget)
        return page

    def fill(self, infos: list[SettingInfo]) -> None:
        """One field per setting on its page, the widget its kind decides.

        The rest, and the tables edited in the settings file, go on the Advanced page; each
        page's last line says when its changes apply.
        """
        by_key = {info.key: info for info in infos}
        for page in PAGES:
            for key in page.keys:
                if key in by_key:
                    self._generic(self.forms[page.title], by_key[key])
        heading = ""
        advanced = self.forms[ADVANCED]
        advanced.addRow(note("Settings most people never need. Hover over one for its help."))
        for info in infos:
            if info.key in _PAGE_OF or info.key in SPECIAL:
                continue
            if section_title(info.key) != heading:
                heading = section_title(info.key)
                caption = QLabel(heading)
                caption.setStyleSheet("font-weight: 600; margin-top: 8px;")
                advanced.addRow(caption)
            if info.key in FILE_ONLY:
                advanced.addRow(entry(info.key).label, note("Edited in ARIA's settings file."))
                continue
            self._generic(advanced, info)
        for title, form in self.forms.items():
            keys = [k for k in by_key if _PAGE_OF.get(k, SPECIAL.get(k, ADVANCED)) == title]
            if keys:
                self.live_notes[title] = note(live_note(keys))
                form.addRow(self.live_notes[title])

    def _generic(self, form: QFormLayout, info: SettingInfo) -> None:
        shown = entry(info.key)
        widget = make_field(info, shown)
        if isinstance(widget, QLineEdit) and info.key in _SUGGESTIONS:
            widget.setCompleter(QCompleter(list(_SUGGESTIONS[info.key]), widget))
        self.generic[info.key] = widget
        cell: QWidget = widget
        if shown.picker:
            text = "Add folder…" if shown.picker == "folders" else "Folder…"
            self.folder_buttons[info.key] = QPushButton(text)
            cell = field_row(widget, self.folder_buttons[info.key])
        self._field(form, "" if isinstance(widget, QCheckBox) else shown.label, info.key, cell)
        if shown.help and form is not self.forms[ADVANCED]:
            form.addRow("", note(shown.help))

    def _homeassistant_tab(self) -> QWidget:
        page = self._form_page("Home Assistant")
        form = self.forms["Home Assistant"]
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
                "tokens."
            ),
        )
        return page

    def _hotkeys_tab(self) -> QWidget:
        page = self._form_page("Hotkeys")
        form = self.forms["Hotkeys"]
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
        page = self._form_page("Local API")
        form = self.forms["Local API"]
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
        page = self._form_page("General")
        form = self.forms["General"]
        self.start_at_login = QCheckBox("Start ARIA when I log in")
        self.start_at_login.setObjectName("startAtLogin")
        self._field(form, "", "gui.start_at_login", self.start_at_login)
        self.wizard_button = QPushButton("Run the first-run set-up again…")
        wizard_row = QHBoxLayout()
        wizard_row.addWidget(self.wizard_button)
        wizard_row.addStretch(1)
        form.addRow("", wizard_row)
        return page

    # --- helpers ------------------------------------------------------------------------------

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show each reason under its field; a summary at the bottom."""
        for key, label in self.errors.items():
            reason = errors.get(key, "")
            label.setText(reason)
            label.setVisible(bool(reason))
        if errors:
            count = len(errors)
            self.form_error.setText(
                f"Not saved: {count} value{'s' if count != 1 else ''} "
                f"need{'s' if count == 1 else ''} fixing."
            )
            first = next(iter(errors))
            widget = self.errors.get(first)
            if widget is not None:
                for index in range(self.pages.count()):
                    page: QWidget | None = self.pages.widget(index)
                    if page is not None and page.isAncestorOf(widget):
                        self.sections.setCurrentRow(index)
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
