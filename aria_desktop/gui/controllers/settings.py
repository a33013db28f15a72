"""Settings behaviour: load values, validate in the form, save through the SettingsService."""

from __future__ import annotations

import logging
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QIcon, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLineEdit, QListWidgetItem

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.config import SettingInfo
from aria_desktop.domain.error_text import for_people, with_hint
from aria_desktop.domain.errors import AriaError
from aria_desktop.gui.controllers.devices import DevicePicker
from aria_desktop.gui.controllers.secret_field import SecretField
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.settings_catalog import entry
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.question import ask_before
from aria_desktop.gui.views.settings_dialog import SettingsDialogView
from aria_desktop.gui.views.settings_fields import read_field, write_field

__all__ = ["BACKEND_LABELS", "SettingsController", "join_chains", "split_chains"]

_LOGGER = logging.getLogger(__name__)
BACKEND_LABELS = {
    "ollama": "Ollama (local)",
    "anthropic": "Claude (cloud)",
    "openai": "OpenAI-compatible server",
}
_KEY_WORDING = {
    "keyring": "A key is stored in the system keyring.",
    "file": "A key is stored in ARIA's private secrets file.",
    "env": "A key comes from the environment (ANTHROPIC_API_KEY).",
    "missing": "No key stored: Claude cannot be used.",
}
_TOKEN_WORDING = {
    "keyring": "A token is stored in the system keyring.",
    "file": "A token is stored in ARIA's private secrets file.",
    "env": "The token comes from the environment (ARIA_HOMEASSISTANT_TOKEN).",
    "missing": "No token stored: ARIA cannot reach Home Assistant.",
}


def split_chains(text: str) -> dict[str, list[str]]:
    """``chat=ollama,anthropic;vision=anthropic`` -> mapping (the ``aria config`` syntax)."""
    chains: dict[str, list[str]] = {}
    for part in text.split(";"):
        agent, _, backends = part.partition("=")
        if agent.strip():
            chains[agent.strip()] = [b.strip() for b in backends.split(",") if b.strip()]
    return chains


def join_chains(chains: dict[str, list[str]]) -> str:
    """The inverse of ``split_chains``."""
    return ";".join(f"{agent}={','.join(backends)}" for agent, backends in chains.items())


class SettingsController(WindowController[SettingsDialogView]):
    """Opens the dialog; Save writes only what changed, after the service validated it."""

    saved = Signal()
    run_wizard = Signal()

    def __init__(self, services: SettingsService, icon: QIcon) -> None:
        super().__init__(icon)
        self.services = services
        self.values: dict[str, SettingInfo] = {}
        self.tasks = TaskOwner(self._report)

    # --- open / load --------------------------------------------------------------------------

    def open(self, hotkey_status: str = "") -> SettingsDialogView:
        """Show the dialog with the current values (re-read from disk)."""
        if self.view is None:
            self.view = self._build()
        view = self.view
        try:
            self.load()
        except AriaError as exc:
            view.form_error.setText(refusal_text(exc))
        view.hotkey_status.setText(hotkey_status)
        self._bring_up(view)
        return view

    def _build(self) -> SettingsDialogView:
        view = SettingsDialogView(self._icon)
        view.fill(self.services.fields())
        self.devices = DevicePicker(self.services.sound_check(), view.devices)
        self.anthropic_key, self.ha_token = (
            SecretField(
                services=self.services,
                name=name,
                edit=edit,
                error=view.errors[f"secret.{name}"],
                status=status,
                wording=wording,
                report=self._report,
            )
            for name, edit, status, wording in (
                ("anthropic_api_key", view.anthropic_key, view.key_status, _KEY_WORDING),
                ("homeassistant_token", view.ha_token, view.ha_token_status, _TOKEN_WORDING),
            )
        )
        cloud, token = self.anthropic_key, self.ha_token
        view.buttons.accepted.connect(self.save)
        view.buttons.rejected.connect(view.hide)
        view.test_button.clicked.connect(self.test_connection)
        view.store_key_button.clicked.connect(cloud.store)
        view.remove_key_button.clicked.connect(cloud.remove)
        view.store_ha_token_button.clicked.connect(token.store)
        view.remove_ha_token_button.clicked.connect(token.remove)
        view.ha_test_button.clicked.connect(self.test_homeassistant)
        view.show_token_button.toggled.connect(self._show_token)
        view.copy_token_button.clicked.connect(self._copy_token)
        view.rotate_token_button.clicked.connect(self._ask_rotate)
        view.wizard_button.clicked.connect(self.run_wizard.emit)
        for key, button in view.folder_buttons.items():
            button.clicked.connect(lambda _checked=False, key=key: self.choose_folder(key))
        return view

    def choose_folder(self, key: str) -> QFileDialog:
        """Pick a folder for ``key`` in a window-modal dialog (no nested loop).

        A list of folders gets the picked one added; a single folder is replaced.
        """
        view = self.view
        assert view is not None
        dialog = QFileDialog(view, f"Choose a folder: {entry(key).label}")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        field = view.generic[key]
        if isinstance(field, QLineEdit) and entry(key).picker == "folders":
            dialog.fileSelected.connect(lambda path: field.setText(_added(field.text(), path)))
        elif isinstance(field, QLineEdit):
            dialog.fileSelected.connect(field.setText)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def load(self) -> None:
        """Put the current values into the form."""
        view = self.view
        assert view is not None
        self.values = {info.key: info for info in self.services.fields()}
        value = self._value
        view.ollama_url.setText(value("llm.ollama.url"))
        if view.model.findText(value("llm.ollama.model")) < 0:
            view.model.addItem(value("llm.ollama.model"))
        view.model.setCurrentText(value("llm.ollama.model"))
        chain = split_chains(value("llm.chains")).get("chat", [])
        view.chain.clear()
        for backend in [*chain, *(b for b in BACKEND_LABELS if b not in chain)]:
            item = QListWidgetItem(BACKEND_LABELS.get(backend, backend))
            item.setData(Qt.ItemDataRole.UserRole, backend)
            item.setFlags(view.chain_item_flags())
            item.setCheckState(
                Qt.CheckState.Checked if backend in chain else Qt.CheckState.Unchecked
            )
            view.chain.addItem(item)
        reasons = value("llm.fallback_on").split(",")
        for reason, box in view.fallback_on.items():
            box.setChecked(reason in reasons)
        view.hotkeys_enabled.setChecked(value("gui.hotkeys_enabled") == "true")
        for key, edit in view.hotkey_edits.items():
            edit.setKeySequence(
                QKeySequence.fromString(value(key), QKeySequence.SequenceFormat.PortableText)
            )
        view.start_at_login.setChecked(value("gui.start_at_login") == "true")
        for key, widget in view.generic.items():
            write_field(widget, value(key))
        self.devices.load(value("voice.input_device"), value("voice.output_device"))
        self.anthropic_key.show_status()
        self.ha_token.show_status()
        view.api_token.setText(self.services.api_token())
        view.show_errors({})

    def _value(self, key: str) -> str:
        info = self.values.get(key)
        return info.value if info is not None else ""

    # --- validate / save ----------------------------------------------------------------------

    def collect(self) -> dict[str, str]:
        """Every editable key with the form's value, as text."""
        view = self.view
        assert view is not None
        form: dict[str, str] = {
            "llm.ollama.url": view.ollama_url.text().strip(),
            "llm.ollama.model": view.model.currentText().strip(),
            "llm.fallback_on": ",".join(
                r for r, box in view.fallback_on.items() if box.isChecked()
            ),
            "gui.hotkeys_enabled": _bool(view.hotkeys_enabled.isChecked()),
            "gui.start_at_login": _bool(view.start_at_login.isChecked()),
        }
        chains = split_chains(self._value("llm.chains"))
        chains["chat"] = [
            str(view.chain.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(view.chain.count())
            if view.chain.item(i).checkState() == Qt.CheckState.Checked
        ]
        form["llm.chains"] = join_chains(chains)
        for key, edit in view.hotkey_edits.items():
            form[key] = edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
        for key, widget in view.generic.items():
            form[key] = read_field(widget)
        form["voice.input_device"] = self.devices.microphone()
        form["voice.output_device"] = self.devices.speaker()
        return form

    def changes(self) -> dict[str, str]:
        """Only the values that differ from what is stored."""
        return {k: v for k, v in self.collect().items() if v != self._value(k)}

    def validate(self) -> dict[str, str]:
        """``key -> reason`` for every refused value (shown in the form)."""
        changes = self.changes()
        errors = self.services.check(changes) if changes else {}
        if "llm.chains" in changes and not split_chains(changes["llm.chains"]).get("chat"):
            errors["llm.chains"] = "Tick at least one backend, or ARIA cannot answer."
        assert self.view is not None
        self.view.show_errors(errors)
        return errors

    def save(self) -> bool:
        """Validate and write; the dialog stays open with the reasons when refused."""
        view = self.view
        assert view is not None
        if self.validate():
            return False
        changes = self.changes()
        if changes:
            try:
                self.services.apply(changes)
            except AriaError as exc:
                view.form_error.setText(f"Not saved: {refusal_text(exc)}")
                return False
            _LOGGER.info("Settings saved: %s", ", ".join(sorted(changes)))
        view.hide()
        self.saved.emit()
        return True

    # --- LLM ----------------------------------------------------------------------------------

    def test_connection(self) -> None:
        """Probe the Ollama address in the form and fill the model picker."""
        view = self.view
        assert view is not None
        url = view.ollama_url.text().strip()
        view.test_result.setStyleSheet("color: #4b5563;")
        view.test_result.setText(f"Testing {url} …")
        view.test_button.setEnabled(False)
        self.tasks.spawn(self._test(url), name="aria-gui-test-ollama")

    async def _test(self, url: str) -> None:
        view = self.view
        assert view is not None
        try:
            result = await self.services.check_ollama(url)
        finally:
            view.test_button.setEnabled(True)
        view.test_result.setStyleSheet("color: #1d6b3c;" if result.ok else "color: #b42318;")
        view.test_result.setText(result.message)
        if result.ok:
            current = view.model.currentText()
            view.model.clear()
            view.model.addItems(list(result.models))
            view.model.setCurrentText(current if current else (result.models or ("",))[0])

    # --- Home Assistant -----------------------------------------------------------------------

    def test_homeassistant(self) -> None:
        """Reach Home Assistant at the address in the form, with the pasted or stored token."""
        view = self.view
        assert view is not None
        url_field = view.generic.get("homeassistant.url")
        url = url_field.text().strip() if isinstance(url_field, QLineEdit) else ""
        view.ha_test_result.setStyleSheet("color: #4b5563;")
        view.ha_test_result.setText(f"Testing {url} …")
        view.ha_test_button.setEnabled(False)
        self.tasks.spawn(
            self._test_homeassistant(url, view.ha_token.text()), name="aria-gui-test-ha"
        )

    async def _test_homeassistant(self, url: str, token: str) -> None:
        view = self.view
        assert view is not None
        try:
            result = await self.services.check_homeassistant(url, token)
        finally:
            view.ha_test_button.setEnabled(True)
        view.ha_test_result.setStyleSheet("color: #1d6b3c;" if result.ok else "color: #b42318;")
        view.ha_test_result.setText(result.message)

    # --- API token ----------------------------------------------------------------------------

    def _show_token(self, shown: bool) -> None:
        view = self.view
        assert view is not None
        view.api_token.setEchoMode(
            QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        )
        view.show_token_button.setText("Hide" if shown else "Show")

    def _copy_token(self) -> None:
        assert self.view is not None
        clipboard = QGuiApplication.clipboard()
        clipboard.setText(self.view.api_token.text())

    def _ask_rotate(self) -> None:
        view = self.view
        assert view is not None
        ask_before(
            view,
            "Rotate API token",
            "Make a new API token? Programs using the old one stop working until they get "
            "the new one.",
            "Rotate",
            self.rotate_token,
            destructive=False,
        )

    def rotate_token(self) -> None:
        """Replace the API token and show the new one."""
        assert self.view is not None
        try:
            self.view.api_token.setText(self.services.rotate_api_token())
        except AriaError as exc:
            self._report(exc.message, exc.hint)

    def _report(self, message: str, hint: str) -> None:
        if self.view is not None:
            self.view.form_error.setText(for_people(message, hint))


_SETTING_NAMED = re.compile(r"Setting '(?P<key>[^']+)'(?: \((?:in|from) [^)]*\))? ?")


def refusal_text(exc: AriaError) -> str:
    """A refused setting in a window's words: the setting's label, never its key or a command.

    A setting's error names its key (for the CLI and the file); here the key becomes the
    label the dialog shows. The in-process error carries its plain clause (``plain``, without
    where the value came from); one that came over the API has only its message.
    """
    key, plain = str(getattr(exc, "key", "") or ""), str(getattr(exc, "plain", "") or "")
    if key and plain.startswith(key):
        said = f"“{entry(key).label}”{plain[len(key) :]}"
        return with_hint(said, "")
    named = _SETTING_NAMED.match(exc.message)
    if named:
        return for_people(f"“{entry(named['key']).label}” {exc.message[named.end() :]}", "")
    return for_people(exc.message, exc.hint)


def _added(folders: str, folder: str) -> str:
    """A comma-separated list of folders with ``folder`` added (once)."""
    items = [item.strip() for item in folders.split(",") if item.strip()]
    return ", ".join(items if folder in items else [*items, folder])


def _bool(value: bool) -> str:
    return "true" if value else "false"
