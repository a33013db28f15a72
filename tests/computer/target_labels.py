"""What the target app shows (shared by its tests and ``aria bench computer``; no Qt here)."""

from __future__ import annotations

MAIN_TITLE = "ARIA Target App"
VAULT_TITLE = "KeePassXC - Passwords.kdbx"

#: Button captions and the widget key the app reports when one is clicked.
BUTTONS = {
    "Send": "send",
    "Delete": "delete",
    "Save Draft": "save_draft",
    "Open Downloads": "open_downloads",
    "Cancel": "cancel",
    "Preview": "preview",
}
FIELDS = {"Full name": "name", "Email address": "email", "Password": "password", "City": "city"}
LIST_ITEMS = ("Apples", "Bananas", "Cherries", "Dates")
CHECKBOX = "Subscribe to newsletter"
VAULT_LABELS = ("Master password", "Unlock")

#: Every caption on screen (grounding accuracy is measured over these).
ALL_LABELS = (*BUTTONS, *FIELDS, *LIST_ITEMS, CHECKBOX, *VAULT_LABELS)
