"""First-run wizard behaviour: a model, voice, privacy and folders, Home Assistant, keys.

Finishing writes every choice at once and emits ``completed_signal`` with the first thing to
try; the desktop then opens the chat window with that suggestion, so the first run ends in a
window where something works (ARIA answers everyday commands without any model).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QLineEdit

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.error_text import for_people
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.voice_trial import SpeechCandidate
from aria_desktop.gui.controllers.devices import DevicePicker
from aria_desktop.gui.controllers.voice_trial import VoiceTrialController
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.controllers.wizard_model import LOCAL_OLLAMA, ModelPage, model_changes
from aria_desktop.gui.controllers.wizard_speech import SpeechPage, where
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.wizard import (
    FINISH_PAGE,
    FIRST_TRY,
    HOME_ASSISTANT_PAGE,
    MODEL_PAGE,
    PRIVACY_PAGE,
    VOICE_PAGE,
    WizardView,
)

__all__ = ["WizardController", "home_relative"]

_LOGGER = logging.getLogger(__name__)
VoiceStatus = Callable[[], CapabilityStatus | None]


def home_relative(folder: str) -> str:
    """``/home/ana/Documents`` -> ``~/Documents``: the way the settings write folders."""
    home = str(Path.home())
    if folder == home:
        return "~"
    if folder.startswith(home + os.sep):
        return "~" + folder[len(home) :]
    return folder


def _wake_phrase(model: str) -> str:
    """``hey_jarvis`` -> "Hey Jarvis"; a custom model file is "your wake word"."""
    if not model or "/" in model or model.endswith(".onnx"):
        return "your wake word"
    return model.replace("_", " ").title()


class WizardController(WindowController[WizardView]):
    """Shows the wizard and writes the choices through the SettingsService."""

    completed_signal = Signal(str)
    """Finished: the first thing to try in the chat window."""

    def __init__(
        self, services: SettingsService, icon: QIcon, voice_status: VoiceStatus | None = None
    ) -> None:
        super().__init__(icon)
        self.services = services
        self.tasks = TaskOwner(lambda message, hint: None)
        self.model_page = ModelPage(services, self.tasks)
        self.speech_page = SpeechPage(services, self.tasks)
        self._voice_status = voice_status or (lambda: None)
        self._values: dict[str, str] = {}
        self.folder_dialog: QFileDialog | None = None
        self.devices: DevicePicker | None = None
        self.voice_trial: VoiceTrialController | None = None
        self.speech_model: SpeechCandidate | None = None
        """The model "Test my voice" picked and the person kept (None: unchanged)."""

    @property
    def server_ok(self) -> bool:
        """Whether the last probe reached an Ollama server."""
        return self.model_page.server_ok

    def completed(self) -> bool:
        """Whether the wizard was finished or skipped before."""
        values = {info.key: info.value for info in self.services.fields("gui.")}
        return values.get("gui.first_run_done") == "true"

    def open(self) -> WizardView:
        """Show the wizard at its welcome and look for Ollama on this computer."""
        if self.view is None:
            view = WizardView(self._icon)
            view.page_validator = self._validate_page
            sound = self.services.sound_check()
            self.devices = DevicePicker(sound, view.devices)
            self.voice_trial = VoiceTrialController(
                self.services, sound, self._icon, on_chosen=self._voice_trial_done
            )
            view.voice_trial_button.clicked.connect(self.test_voice)
            self.model_page.connect(view)
            view.ha_test_button.clicked.connect(self.test_homeassistant)
            view.voice_enabled.toggled.connect(lambda _on: self._show_voice())
            view.add_folder_button.clicked.connect(self.choose_folder)
            view.currentIdChanged.connect(self._entered)
            view.accepted.connect(self._finish)
            view.rejected.connect(self._skip)
            self.view = view
        view = self.view
        self._values = values = {info.key: info.value for info in self.services.fields()}
        for key, edit in view.hotkeys.items():
            edit.setKeySequence(
                QKeySequence.fromString(
                    values.get(key, ""), QKeySequence.SequenceFormat.PortableText
                )
            )
        configured = values.get("llm.ollama.url", LOCAL_OLLAMA)
        view.url.setText(configured)
        view.model.setCurrentText(values.get("llm.ollama.model", ""))
        view.ha_url.setText(values.get("homeassistant.url", ""))
        view.voice_enabled.setChecked(values.get("voice.enabled", "true") == "true")
        self.speech_page.load(view, values)
        self.speech_model = None
        view.voice_trial_status.setText("")
        if self.devices is not None:
            self.devices.load(
                values.get("voice.input_device", ""), values.get("voice.output_device", "")
            )
        view.file_roots.setText(values.get("tools.files.roots", "~"))
        view.shell_enabled.setChecked(values.get("tools.shell.enabled") == "true")
        view.restart()
        self.model_page.show_choice(view)
        self._show_voice()
        view.show()
        view.raise_()
        self.model_page.look_quietly(view, configured)
        return view

    def test(self, url: str) -> None:
        """Probe an Ollama address and show the result."""
        assert self.view is not None
        self.model_page.test(self.view, url)

    # --- voice --------------------------------------------------------------------------------

    def _show_voice(self) -> None:
        """Say truly what voice does with the settings as they are (on by default)."""
        view = self.view
        assert view is not None
        values = self._values
        talk_key = values.get("gui.hotkey_push_to_talk", "")
        hold = f"while you hold {talk_key}" if talk_key else ""
        if not view.voice_enabled.isChecked():
            text = "Voice is off: ARIA reads what you type. Tick “Use voice” to talk to it."
        elif values.get("voice.wake.enabled", "true") == "true":
            phrase = _wake_phrase(values.get("voice.wake.model", ""))
            text = f"Voice is on: ARIA listens on this computer for “{phrase}”" + (
                f", and {hold}." if hold else "."
            )
        else:
            text = f"Voice is on: ARIA listens {hold or 'when you ask it from the tray menu'}."
        status = self._voice_status()
        if view.voice_enabled.isChecked() and status is not None and not status.available:
            text += f" It cannot start on this computer yet: {status.reason}"
        view.voice_status.setText(text)
        view.devices.setEnabled(view.voice_enabled.isChecked())

    def test_voice(self) -> None:
        """Open "Test my voice" with the microphone picked on this page."""
        view = self.view
        assert view is not None
        if self.voice_trial is not None and self.devices is not None:
            self.voice_trial.open(view, self.devices.microphone())

    def _voice_trial_done(self, candidate: SpeechCandidate) -> None:
        self.speech_model = candidate
        if self.view is not None:
            self.view.voice_trial_status.setText(
                f"ARIA will use {candidate.label}: it heard you best."
            )

    def _speech_model_changes(self) -> dict[str, str]:
        if self.speech_model is None:
            return {}
        return {
            "voice.stt.model": self.speech_model.model,
            "voice.stt.beam_size": str(self.speech_model.beam_size),
        }

    # --- folders ------------------------------------------------------------------------------

    def choose_folder(self) -> None:
        """Open a folder picker; the chosen folder joins the list ARIA may read."""
        view = self.view
        assert view is not None
        dialog = QFileDialog(view, "A folder ARIA may read", str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.add_folder)
        self.folder_dialog = dialog
        dialog.open()

    def add_folder(self, folder: str) -> None:
        """Add ``folder`` to the folders ARIA may read (once)."""
        view = self.view
        assert view is not None
        roots = [r.strip() for r in view.file_roots.text().split(",") if r.strip()]
        folder = home_relative(folder)
        if folder and folder not in roots:
            roots.append(folder)
        view.file_roots.setText(", ".join(roots))

    # --- Home Assistant -----------------------------------------------------------------------

    def test_homeassistant(self) -> None:
        """Reach Home Assistant with the address and token typed (or the stored token)."""
        view = self.view
        assert view is not None
        url = view.ha_url.text().strip()
        view.ha_status.setText(f"Looking for Home Assistant at {url} …")
        self.tasks.spawn(
            self._test_homeassistant(url, view.ha_token.text()), name="aria-gui-wizard-ha"
        )

    async def _test_homeassistant(self, url: str, token: str) -> None:
        assert self.view is not None
        result = await self.services.check_homeassistant(url, token)
        self.view.ha_status.setText(("Found it. " if result.ok else "") + result.message)

    def _validate_homeassistant(self) -> bool:
        """A valid address (or none); a pasted token goes to the keyring now."""
        view = self.view
        assert view is not None
        url = view.ha_url.text().strip()
        errors = self.services.check({"homeassistant.url": url})
        if errors:
            view.ha_status.setText(" ".join(errors.values()))
            return False
        return not url or self._store_pasted("homeassistant_token", view.ha_token, view.ha_status)

    def _store_pasted(self, name: str, edit: QLineEdit, problem: QLabel) -> bool:
        """Put a pasted secret in the keyring (nothing pasted: nothing to do); False if refused."""
        value = edit.text().strip()
        if not value:
            return True
        try:
            self.services.set_secret(name, value)
        except AriaError as exc:
            problem.setText(for_people(exc.message, exc.hint))
            return False
        edit.clear()
        return True

    # --- pages and finishing ------------------------------------------------------------------

    def _validate_page(self, page: int) -> bool:
        view = self.view
        assert view is not None
        if page == MODEL_PAGE:
            if not self.model_page.validate(view):
                return False
            if view.cloud_choice.isChecked():
                return self._store_pasted("anthropic_api_key", view.cloud_key, view.cloud_error)
        checks = {
            PRIVACY_PAGE: (self._tools, view.permissions_error),
            FINISH_PAGE: (self._hotkeys, view.finish_error),
        }
        if page == HOME_ASSISTANT_PAGE:
            return self._validate_homeassistant()
        if page in checks:
            changes, problem = checks[page]
            errors = self.services.check(changes())
            if errors:
                problem.setText(" ".join(errors.values()))
                return False
        return True

    def _model_urls(self) -> list[str]:
        """The model servers chosen so far: where a speech server may run too."""
        view = self.view
        assert view is not None
        urls = [self._values.get("llm.openai.url", "")]
        if view.ollama_choice.isChecked():
            urls.insert(0, view.url.text().strip())
        return urls

    def _entered(self, page: int) -> None:
        """The voice page looks for a speech server; privacy and finish say what was chosen."""
        view = self.view
        if view is None:
            return
        if page == VOICE_PAGE:
            self.speech_page.look(view, self._model_urls())
        if page == PRIVACY_PAGE:
            view.privacy_voice.setText(self.speech_page.privacy_text(view))
        if page != FINISH_PAGE:
            return
        if view.skip_choice.isChecked():
            model = "No model yet: ARIA answers everyday commands on this computer."
        elif view.cloud_choice.isChecked():
            model = "Model: Claude, in the cloud."
        else:
            name = view.model.currentText().strip() or "the one Ollama offers"
            model = f"Model: {name} on Ollama at {view.url.text().strip()}."
        voice = "Voice: off."
        if view.voice_enabled.isChecked():
            server = self.speech_page.chosen_uri(view)
            voice = f"Voice: on, speech recognised on {where(server)}." if server else "Voice: on."
            if self.speech_model is not None:
                voice += f" Speech model: {self.speech_model.label} (it heard you best)."
        roots = view.file_roots.text().strip() or "~"
        folders = f"Folders ARIA may read: {'your home folder' if roots == '~' else roots}."
        view.summary.setText("\n".join((model, voice, folders)))

    def _devices(self) -> dict[str, str]:
        """The microphone and speaker picked on the voice page."""
        if self.devices is None:
            return {}
        return {
            "voice.input_device": self.devices.microphone(),
            "voice.output_device": self.devices.speaker(),
        }

    def _tools(self) -> dict[str, str]:
        assert self.view is not None
        roots = ",".join(r.strip() for r in self.view.file_roots.text().split(",") if r.strip())
        return {
            "tools.files.roots": roots or "~",
            "tools.shell.enabled": "true" if self.view.shell_enabled.isChecked() else "false",
        }

    def _hotkeys(self) -> dict[str, str]:
        assert self.view is not None
        return {
            key: edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
            for key, edit in self.view.hotkeys.items()
        }

    def _finish(self) -> None:
        view = self.view
        assert view is not None
        values = {info.key: info.value for info in self.services.fields("llm.")}
        changes = {
            **model_changes(view, values),
            "voice.enabled": "true" if view.voice_enabled.isChecked() else "false",
            **self.speech_page.changes(view),
            **self._speech_model_changes(),
            **self._devices(),
            "homeassistant.url": view.ha_url.text().strip(),
            "gui.first_run_done": "true",
            **self._tools(),
            **self._hotkeys(),
        }
        try:
            self.services.apply(changes)
        except AriaError as exc:
            _LOGGER.warning("First-run choices not saved: %s", exc)
            view.finish_error.setText(f"Not saved: {exc.message}")
            view.show()
            return
        self.completed_signal.emit(FIRST_TRY)

    def _skip(self) -> None:
        try:
            self.services.apply({"gui.first_run_done": "true"})
        except AriaError as exc:
            _LOGGER.warning("Could not record that the wizard was skipped: %s", exc)
