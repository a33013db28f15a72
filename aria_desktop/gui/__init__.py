"""The desktop app: tray, chat window, memory browser, settings, first-run wizard, hotkeys.

The only package that imports PySide6, qasync and pynput. It talks to ARIA only through the
``core.ports.Assistant`` protocol (in-process orchestrator or a running daemon's API) and
changes settings only through ``core.ports.SettingsService``. Views (``gui.views``) lay
widgets out; controllers (``gui.controllers``) hold the behaviour; ``gui.bridge`` turns bus
events into Qt signals. Importing this package does not import Qt (``gui.app`` does).
"""

from __future__ import annotations
