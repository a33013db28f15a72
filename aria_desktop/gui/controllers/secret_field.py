"""One secret in the settings dialog: a password field with Store and Remove, and a status line.

The value goes straight to the keyring through the ``SettingsService`` (never into the settings
file, never shown again); the status says only where a stored value lives. Used for the
Anthropic API key and the Home Assistant token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtWidgets import QLabel, QLineEdit

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.error_text import for_people
from aria_desktop.domain.errors import AriaError

__all__ = ["SecretField"]


@dataclass(frozen=True, kw_only=True)
class SecretField:
    """Store, remove and describe the secret ``name``.

    Attributes:
        services: where secrets are kept.
        name: the secret's name (``anthropic_api_key``, ``homeassistant_token``).
        edit: the password field the user pastes into.
        error: the red line under it.
        status: the line saying where the secret lives.
        wording: status text by location (``keyring``, ``file``, ``env``, ``missing``).
        report: shows an error that belongs to no field.
    """

    services: SettingsService
    name: str
    edit: QLineEdit
    error: QLabel
    status: QLabel
    wording: Mapping[str, str]
    report: Callable[[str, str], None]

    def show_status(self) -> None:
        """Say where the secret lives (never its value)."""
        where = self.services.secret_status(self.name)
        self.status.setText(self.wording.get(where, self.wording["missing"]))

    def store(self) -> None:
        """Put the pasted value in the keyring, or say why it could not be stored."""
        value = self.edit.text().strip()
        if not value:
            self.error.setText("Paste it first.")
            self.error.show()
            return
        try:
            self.services.set_secret(self.name, value)
        except AriaError as exc:
            self.error.setText(for_people(exc.message, exc.hint))
            self.error.show()
            return
        self.edit.clear()
        self.error.hide()
        self.show_status()

    def remove(self) -> None:
        """Delete the stored secret."""
        try:
            self.services.delete_secret(self.name)
        except AriaError as exc:
            self.report(exc.message, exc.hint)
        self.show_status()
