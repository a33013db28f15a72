"""The first-run wizard (non-modal): model server, cloud fallback, permissions, hotkeys."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from aria_desktop.gui.views._widgets import (
    HOTKEYS,
    hotkey_edit,
    init_secondary_window,
    secret_edit,
    wrapped_label,
)

__all__ = ["WizardView"]

_ERROR_STYLE = "color: #b42318;"
_PERMISSION_PARAGRAPHS = (
    "<b>Microphone.</b> With voice installed, ARIA can listen for its wake word or while you "
    "hold the push-to-talk key. Audio is processed on your machines and not stored.",
    "<b>Computer control.</b> ARIA can move the mouse and type for you. Every action passes "
    "safety rules, risky ones wait for your approval, and a Stop button and hotkey stop it at "
    "once.",
    "Turn either on later from the tray menu (Mute microphone, Computer control) or in Settings.",
    "<b>Files.</b> ARIA may list, read and find files in these folders; changing, moving or "
    "deleting (to the trash) waits for your approval.",
)
"""What the permissions page says, paragraph by paragraph, above the folders and commands."""


def _titled(title: str, subtitle: str) -> QWizardPage:
    """An empty wizard page with its title and the sentence under it."""
    page = QWizardPage()
    page.setTitle(title)
    page.setSubTitle(subtitle)
    return page


def _page(title: str, subtitle: str, *parts: QWidget | QLayout) -> QWizardPage:
    """A wizard page with its title and the sentence under it, then ``parts`` top to bottom."""
    page = _titled(title, subtitle)
    layout = QVBoxLayout(page)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    layout.addStretch(1)
    return page


class WizardView(QWizard):
    """Layout only; ``WizardController`` tests the server and applies the choices."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_secondary_window(self, title="Welcome to ARIA", icon=icon)
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.resize(640, 480)
        self.page_validator: Callable[[int], bool] = lambda _page: True
        self.addPage(self._server_page())
        self.addPage(self._cloud_page())
        self.addPage(self._homeassistant_page())
        self.addPage(self._permissions_page())
        self.addPage(self._hotkeys_page())

    def _server_page(self) -> QWizardPage:
        """The Ollama address (with a Test button) and the model to use."""
        self.server_status = wrapped_label("Looking for Ollama on this computer…")
        self.server_status.setObjectName("serverStatus")
        self.url = QLineEdit("http://127.0.0.1:11434")
        self.url.setObjectName("wizardUrl")
        self.test_button = QPushButton("Test")
        row = QHBoxLayout()
        row.addWidget(self.url, 1)
        row.addWidget(self.test_button)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setMinimumWidth(240)
        form = QFormLayout()
        form.addRow("Ollama address", row)
        form.addRow("Model", self.model)
        return _page(
            "Your language model",
            "ARIA talks to Ollama, on this computer or on a GPU machine nearby.",
            self.server_status,
            form,
            wrapped_label(
                "On another machine? Start it with OLLAMA_HOST=0.0.0.0 and enter "
                "its address, e.g. http://192.168.1.20:11434."
            ),
        )

    def _cloud_page(self) -> QWizardPage:
        """Whether Claude answers when the local model cannot, and its API key."""
        self.use_cloud = QCheckBox("Use Claude when the local model cannot answer")
        self.cloud_key = secret_edit("Anthropic API key (stored in the system keyring)")
        self.cloud_error = wrapped_label("", _ERROR_STYLE)
        return _page(
            "Cloud fallback (optional)",
            "When the local model is unreachable or cannot do something, ARIA can "
            "ask Claude instead. The conversation then leaves your network.",
            self.use_cloud,
            self.cloud_key,
            self.cloud_error,
        )

    def _permissions_page(self) -> QWizardPage:
        """What the microphone, computer control, files and commands may do."""
        self.file_roots = QLineEdit("~")
        self.file_roots.setToolTip("Comma-separated folders; ~ is your home folder")
        self.shell_enabled = QCheckBox(
            "Let ARIA run commands (anything that changes, deletes, installs or goes online "
            "asks first)"
        )
        self.permissions_error = wrapped_label("", _ERROR_STYLE)
        return _page(
            "Microphone, computer control, files and commands",
            "All are off or confined. ARIA never listens, touches your computer or runs a "
            "command until you turn it on.",
            *map(wrapped_label, _PERMISSION_PARAGRAPHS),
            self.file_roots,
            self.shell_enabled,
            self.permissions_error,
        )

    def _hotkeys_page(self) -> QWizardPage:
        """One editor per hotkey (cleared: off), and where an error on finishing shows."""
        keys = _titled("Hotkeys", "Press a combination to change one; clear it to turn it off.")
        self.hotkeys: dict[str, QKeySequenceEdit] = {}
        form = QFormLayout(keys)
        for key, text in HOTKEYS:
            edit = hotkey_edit()
            self.hotkeys[key] = edit
            form.addRow(text, edit)
        self.finish_error = wrapped_label("", _ERROR_STYLE)
        form.addRow(self.finish_error)
        return keys

    def _homeassistant_page(self) -> QWizardPage:
        """The Home Assistant address (with a Test button) and its access token."""
        self.ha_url = QLineEdit()
        self.ha_test_button = QPushButton("Test")
        row = QHBoxLayout()
        row.addWidget(self.ha_url, 1)
        row.addWidget(self.ha_test_button)
        self.ha_url.setPlaceholderText("http://homeassistant.local:8123 (empty: skip)")
        self.ha_token = secret_edit("Long-lived access token (stored in the system keyring)")
        form = QFormLayout()
        form.addRow("Address", row)
        form.addRow("Access token", self.ha_token)
        self.ha_status = wrapped_label(
            "Make the token in Home Assistant: your profile › Security › Long-lived access tokens."
        )
        return _page(
            "Home Assistant (optional)",
            "ARIA can read your Home Assistant and switch things for you. Lights, media and "
            "climate act at once; locks, alarms, garage doors and anything else wait for your "
            "approval.",
            form,
            self.ha_status,
        )

    def validateCurrentPage(self) -> bool:
        """Ask the controller before moving on (so bad input is refused on its page)."""
        return self.page_validator(self.currentId()) and super().validateCurrentPage()
