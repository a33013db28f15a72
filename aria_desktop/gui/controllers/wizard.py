"""First-run wizard behaviour: find Ollama, offer cloud and Home Assistant, pick hotkeys."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon, QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.errors import AriaError
from aria_desktop.gui.controllers.settings import join_chains, split_chains
from aria_desktop.gui.controllers.window import WindowController
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.wizard import WizardView

__all__ = ["WizardController"]

_LOGGER = logging.getLogger(__name__)
_LOCAL_OLLAMA = "http://127.0.0.1:11434"
_SERVER_PAGE, _CLOUD_PAGE, _HA_PAGE, _PERMISSIONS_PAGE, _HOTKEYS_PAGE = range(5)


class WizardController(WindowController[WizardView]):
    """Shows the wizard and writes the choices through the SettingsService."""

    completed_signal = Signal()

    def __init__(self, services: SettingsService, icon: QIcon) -> None:
        super().__init__(icon)
        self.services = services
        self.tasks = TaskOwner(lambda message, hint: None)
        self.server_ok = False

    def completed(self) -> bool:
        """Whether the wizard was finished or skipped before."""
        values = {info.key: info.value for info in self.services.fields("gui.")}
        return values.get("gui.first_run_done") == "true"

    def open(self) -> WizardView:
        """Show the wizard and look for Ollama on this computer."""
        if self.view is None:
            view = WizardView(self._icon)
            view.page_validator = self._validate_page
            view.test_button.clicked.connect(lambda: self.test(view.url.text().strip()))
            view.ha_test_button.clicked.connect(self.test_homeassistant)
            view.accepted.connect(self._finish)
            view.rejected.connect(self._skip)
            self.view = view
        view = self.view
        values = {info.key: info.value for info in self.services.fields()}
        for key, edit in view.hotkeys.items():
            edit.setKeySequence(
                QKeySequence.fromString(
                    values.get(key, ""), QKeySequence.SequenceFormat.PortableText
                )
            )
        configured = values.get("llm.ollama.url", _LOCAL_OLLAMA)
        view.url.setText(configured)
        view.model.setCurrentText(values.get("llm.ollama.model", ""))
        view.ha_url.setText(values.get("homeassistant.url", ""))
        view.use_cloud.setChecked(
            "anthropic" in split_chains(values.get("llm.chains", "")).get("chat", [])
        )
        view.file_roots.setText(values.get("tools.files.roots", "~"))
        view.shell_enabled.setChecked(values.get("tools.shell.enabled") == "true")
        view.restart()
        view.show()
        view.raise_()
        self.test(configured)
        return view

    def test(self, url: str) -> None:
        """Probe an Ollama address and show the result."""
        assert self.view is not None
        self.view.server_status.setText(f"Looking for Ollama at {url} …")
        self.tasks.spawn(self._test(url), name="aria-gui-wizard-test")

    async def _test(self, url: str) -> None:
        view = self.view
        assert view is not None
        result = await self.services.check_ollama(url)
        self.server_ok = result.ok
        if result.ok:
            view.server_status.setText(f"Found it. {result.message}")
            current = view.model.currentText()
            view.model.clear()
            view.model.addItems(list(result.models))
            if current in result.models or not result.models:
                view.model.setCurrentText(current)
        else:
            view.server_status.setText(
                f"{result.message}\nEnter the address of the machine that runs Ollama and press "
                "Test."
            )

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
            problem.setText(f"{exc.message} {exc.hint}".strip())
            return False
        edit.clear()
        return True

    def _validate_page(self, page: int) -> bool:
        view = self.view
        assert view is not None
        if page == _SERVER_PAGE:
            errors = self.services.check(
                {
                    "llm.ollama.url": view.url.text().strip(),
                    "llm.ollama.model": view.model.currentText().strip(),
                }
            )
            if errors:
                view.server_status.setText(" ".join(errors.values()))
                return False
        cloud_key = view.cloud_key if view.use_cloud.isChecked() else None
        if page == _CLOUD_PAGE and cloud_key is not None:
            return self._store_pasted("anthropic_api_key", cloud_key, view.cloud_error)
        if page == _HA_PAGE and not self._validate_homeassistant():
            return False
        if page == _PERMISSIONS_PAGE:
            errors = self.services.check(self._tools())
            if errors:
                view.permissions_error.setText(" ".join(errors.values()))
                return False
        if page == _HOTKEYS_PAGE:
            errors = self.services.check(self._hotkeys())
            if errors:
                view.finish_error.setText(" ".join(errors.values()))
                return False
        return True

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
        chains = split_chains(values.get("llm.chains", "chat=ollama"))
        chat = [b for b in chains.get("chat", ["ollama"]) if b != "anthropic"] or ["ollama"]
        if view.use_cloud.isChecked():
            chat.append("anthropic")
        chains["chat"] = chat
        changes = {
            "llm.ollama.url": view.url.text().strip(),
            "llm.ollama.model": view.model.currentText().strip(),
            "llm.chains": join_chains(chains),
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
        self.completed_signal.emit()

    def _skip(self) -> None:
        try:
            self.services.apply({"gui.first_run_done": "true"})
        except AriaError as exc:
            _LOGGER.warning("Could not record that the wizard was skipped: %s", exc)
