"""The first-run wizard (non-modal): welcome, a model, voice, privacy, Home Assistant, finish.

Every page says what is true with the shipped defaults (voice is on, files are confined to
the folders listed, commands and computer control are off) and the last one says what to try
first; the ``WizardController`` tests the server, applies the choices and opens the chat.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
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

__all__ = [
    "FINISH_PAGE",
    "HOME_ASSISTANT_PAGE",
    "MODEL_PAGE",
    "PRIVACY_PAGE",
    "PRIVACY_VOICE",
    "VOICE_PAGE",
    "WELCOME_PAGE",
    "WizardView",
]

WELCOME_PAGE, MODEL_PAGE, VOICE_PAGE, PRIVACY_PAGE, HOME_ASSISTANT_PAGE, FINISH_PAGE = range(6)
FIRST_TRY = "Set a timer for 5 minutes"
"""The first thing the finish page (and the chat window after it) suggests: an everyday
command ARIA answers on this computer, so it works before any model is set up."""

_WELCOME = (
    "ARIA is an assistant that runs on your computer. Ask it by typing or by voice; it can "
    "set timers and reminders, keep lists, find and read your files, and answer with a "
    "language model you choose.",
    "This takes about a minute: pick a model (or skip that for now), check your microphone "
    "and see what stays on this computer. Everything here can be changed later in Settings.",
)
_PRIVACY_STORED = (
    "<b>Kept on this computer.</b> Your conversations, the facts ARIA remembers from them "
    "(it saves them as it goes; you can see and forget each one in the Memory window), your "
    "lists, reminders and knowledge base are in one database in ARIA's data folder. Keys and "
    "tokens go to the system keyring, never into the settings file."
)
_PRIVACY_LEAVES = (
    "<b>What leaves it.</b> Your messages go to the model you chose: Ollama at the address "
    "above (this computer or one on your network), or Claude in the cloud if you chose it. "
    "When a question needs a public web page ARIA reads that page. Nothing else is sent; "
    "there is no tracking."
)
PRIVACY_VOICE = (
    "<b>Voice.</b> The wake word and speech-to-text run on this computer; audio is never "
    "stored or sent anywhere."
)
_PRIVACY_HANDS = (
    "<b>Computer control</b> (moving the mouse and typing for you) and <b>running "
    "commands</b> are off until you turn them on. <b>Files:</b> ARIA may list, read and find "
    "files in the folders below; changing, moving or deleting (to the trash) waits for your "
    "approval."
)


def _page(title: str, subtitle: str, *parts: QWidget | QLayout) -> QWizardPage:
    """A wizard page with its title and the sentence under it, then ``parts`` top to bottom."""
    page = QWizardPage()
    page.setTitle(title)
    page.setSubTitle(subtitle)
    layout = QVBoxLayout(page)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    layout.addStretch(1)
    return page


def _indented(*parts: QWidget | QLayout) -> QVBoxLayout:
    """What belongs to the choice above it, indented under that choice."""
    layout = QVBoxLayout()
    layout.setContentsMargins(24, 0, 0, 6)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    return layout


def _error_label() -> QLabel:
    """Where a page says why it cannot go on (empty until then)."""
    return mark(wrapped_label(""), "error")


class WizardView(QWizard):
    """Layout only; ``WizardController`` tests the server and applies the choices."""

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_secondary_window(self, title="Welcome to ARIA", icon=icon)
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Start using ARIA")
        self.setButtonText(QWizard.WizardButton.CancelButton, "Set up later")
        self.resize(680, 560)
        self.page_validator: Callable[[int], bool] = lambda _page: True
        self.setPage(WELCOME_PAGE, self._welcome_page())
        self.setPage(MODEL_PAGE, self._model_page())
        self.setPage(VOICE_PAGE, self._voice_page())
        self.setPage(PRIVACY_PAGE, self._privacy_page())
        self.setPage(HOME_ASSISTANT_PAGE, self._homeassistant_page())
        self.setPage(FINISH_PAGE, self._finish_page())

    def _welcome_page(self) -> QWizardPage:
        return _page(
            "Welcome to ARIA",
            "Your assistant on this computer.",
            *map(wrapped_label, _WELCOME),
        )

    def _model_page(self) -> QWizardPage:
        """Ollama (found by itself, or at an address tested here), Claude, or no model yet."""
        self.server_status = wrapped_label("Looking for Ollama on this computer…")
        self.server_status.setObjectName("serverStatus")
        self.ollama_choice = QRadioButton("Ollama: a model on this computer or one nearby")
        self.url = QLineEdit("http://127.0.0.1:11434")
        self.url.setObjectName("wizardUrl")
        self.test_button = QPushButton("Test")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setMinimumWidth(240)
        row = QHBoxLayout()
        row.addWidget(self.url, 1)
        row.addWidget(self.test_button)
        form = QFormLayout()
        form.addRow("Address", row)
        form.addRow("Model", self.model)
        self.cloud_choice = QRadioButton("Claude: Anthropic's model in the cloud")
        self.cloud_key = secret_edit("Anthropic API key (kept in the system keyring)")
        self.cloud_error = _error_label()
        self.skip_choice = QRadioButton("Skip for now: use ARIA without a model")
        self.choices = QButtonGroup(self)
        for button in (self.ollama_choice, self.cloud_choice, self.skip_choice):
            self.choices.addButton(button)
        self.ollama_choice.setChecked(True)
        return _page(
            "Your language model",
            "ARIA answers questions with a language model. Everyday commands (timers, "
            "reminders, lists, the time) work without one.",
            self.server_status,
            self.ollama_choice,
            _indented(
                form,
                mark(
                    wrapped_label(
                        "On another computer? Let Ollama accept connections from your network "
                        "there and enter its address, for example http://192.168.1.20:11434."
                    ),
                    "muted",
                ),
            ),
            self.cloud_choice,
            _indented(
                self.cloud_key,
                mark(wrapped_label("Your conversations are then sent to Anthropic."), "muted"),
                self.cloud_error,
            ),
            self.skip_choice,
            _indented(
                mark(
                    wrapped_label(
                        "Set up a model any time later from the chat window or Settings."
                    ),
                    "muted",
                )
            ),
        )

    def _voice_page(self) -> QWizardPage:
        """Whether voice is on (it is by default), which microphone, and a test of it."""
        self.voice_enabled = QCheckBox("Use voice")
        self.voice_status = wrapped_label("")
        self.voice_status.setObjectName("voiceStatus")
        self.devices = DevicePickerView()
        """The microphone and speaker, a level meter and a Test (shared with settings)."""
        self.speech_server = QCheckBox()
        self.speech_server.setObjectName("speechServer")
        self.speech_server.hide()
        """Shown when a speech recognition server answers (the GPU machine's Whisper)."""
        self.speech_status = mark(wrapped_label(""), "muted")
        self.speech_status.setObjectName("speechStatus")
        self.voice_trial_button = QPushButton("Test my voice…")
        self.voice_trial_button.setToolTip(
            "Read three sentences; ARIA picks the model that hears you best"
        )
        self.voice_trial_status = mark(wrapped_label(""), "muted")
        self.voice_trial_status.setObjectName("voiceTrialStatus")
        trial = QHBoxLayout()
        trial.addWidget(self.voice_trial_button)
        trial.addWidget(self.voice_trial_status, 1)
        return _page(
            "Voice",
            "Talk to ARIA: say its wake word, or hold a key while you speak.",
            self.voice_enabled,
            self.voice_status,
            self.devices,
            trial,
            self.speech_server,
            _indented(self.speech_status),
        )

    def _privacy_page(self) -> QWizardPage:
        """What is stored where, what leaves the computer, and which folders ARIA may read."""
        self.file_roots = QLineEdit("~")
        self.file_roots.setObjectName("fileRoots")
        self.file_roots.setToolTip("Folders separated by commas; ~ is your home folder")
        self.add_folder_button = QPushButton("Add folder…")
        folders = QHBoxLayout()
        folders.addWidget(self.file_roots, 1)
        folders.addWidget(self.add_folder_button)
        self.shell_enabled = QCheckBox(
            "Let ARIA run commands (anything that changes, deletes, installs or goes online "
            "asks first)"
        )
        self.permissions_error = _error_label()
        self.privacy_voice = wrapped_label(PRIVACY_VOICE)
        """Where speech is recognised: on this computer, or on the user's speech server."""
        return _page(
            "Your privacy",
            "What ARIA keeps, what it sends, and what it may touch.",
            *map(wrapped_label, (_PRIVACY_STORED, _PRIVACY_LEAVES)),
            self.privacy_voice,
            wrapped_label(_PRIVACY_HANDS),
            folders,
            self.shell_enabled,
            self.permissions_error,
        )

    def _homeassistant_page(self) -> QWizardPage:
        """The Home Assistant address (with a Test button) and its access token."""
        self.ha_url = QLineEdit()
        self.ha_test_button = QPushButton("Test")
        row = QHBoxLayout()
        row.addWidget(self.ha_url, 1)
        row.addWidget(self.ha_test_button)
        self.ha_url.setPlaceholderText("http://homeassistant.local:8123 (empty: skip)")
        self.ha_token = secret_edit("Long-lived access token (kept in the system keyring)")
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

    def _finish_page(self) -> QWizardPage:
        """What was set up, the global keys, and what to try first."""
        self.summary = wrapped_label("")
        self.summary.setObjectName("wizardSummary")
        self.summary.setContentsMargins(0, 0, 0, 10)
        keys = QFormLayout()
        self.hotkeys: dict[str, QKeySequenceEdit] = {}
        for key, text in HOTKEYS:
            edit = hotkey_edit()
            self.hotkeys[key] = edit
            keys.addRow(text, edit)
        self.first_try = wrapped_label(
            f"Press “Start using ARIA” to open the chat window. Try “{FIRST_TRY}”: ARIA "
            "answers that on this computer, with or without a model."
        )
        self.first_try.setObjectName("firstTry")
        self.finish_error = _error_label()
        return _page(
            "ARIA is ready",
            "Here is what you set up.",
            self.summary,
            wrapped_label(
                "Keys that work everywhere on your desktop (press a combination to change "
                "one; clear it to turn it off):"
            ),
            keys,
            self.first_try,
            self.finish_error,
        )

    def validateCurrentPage(self) -> bool:
        """Ask the controller before moving on (so bad input is refused on its page)."""
        return self.page_validator(self.currentId()) and super().validateCurrentPage()
