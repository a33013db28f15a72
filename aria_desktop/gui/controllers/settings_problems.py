"""Asks, before the tray appears, whether ARIA starts despite mistakes in its settings file.

``aria desktop`` loads its settings tolerantly (ARCHITECTURE.md: a start that never breaks)
and hands the problems here; ``SettingsProblemsPrompt.answer`` shows the window and waits for
the user's choice on the loop (never a nested event loop): start with the defaults where the
problems are, or quit. "Open settings file" hands the file to the desktop's editor and leaves
the window open, so the user can fix it and then start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Sequence

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QIcon

from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.gui.views.settings_problems import SettingsProblemsView

__all__ = ["SettingsProblemsPrompt"]

_LOGGER = logging.getLogger(__name__)


class SettingsProblemsPrompt:
    """The start-up window about settings problems, and the user's answer.

    Args:
        problems: what the tolerant load could not use (not empty).
        icon: the window's icon.
        open_url: opens a file in the desktop's program for it (``QDesktopServices.openUrl``;
            tests record the call instead of launching an editor).
    """

    def __init__(
        self,
        problems: Sequence[SettingsProblem],
        icon: QIcon | None = None,
        *,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
    ) -> None:
        self.file = next((p.file for p in problems if p.file), "")
        self.view = SettingsProblemsView(problems, self.file, icon)
        self._open_url = open_url
        self._choice: asyncio.Future[bool] | None = None
        self.view.open_file.connect(self.open_file)
        self.view.start.connect(lambda: self._decide(True))
        self.view.quit.connect(lambda: self._decide(False))

    def open_file(self) -> None:
        """Open the settings file in the desktop's editor; say so when nothing can."""
        if not self.file:
            return
        if self._open_url(QUrl.fromLocalFile(self.file)):
            self.view.show_status(
                "The file is open in your editor. Save your changes there, then choose "
                "Start with defaults: ARIA reads the file again as it starts, and only what "
                "is still wrong uses its default."
            )
        else:
            self.view.show_status(
                f"No program to open it was found. The file is {self.file}; open it in any "
                "text editor."
            )

    def _decide(self, start: bool) -> None:
        if self._choice is not None and not self._choice.done():
            self._choice.set_result(start)

    async def answer(self) -> bool:
        """Show the window until the user chooses: True to start, False to quit.

        Ctrl+C or SIGTERM meanwhile means quit, as everywhere in the app.
        """
        loop = asyncio.get_running_loop()
        self._choice = loop.create_future()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, self._decide, False)
        self.view.show()
        self.view.raise_()
        self.view.activateWindow()
        _LOGGER.info("Settings problems shown before start (%s)", self.file or "environment")
        try:
            start = await self._choice
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signum)
            self.view.hide()
            self.view.deleteLater()
        _LOGGER.info("Settings problems: %s", "started with defaults" if start else "quit")
        return start
