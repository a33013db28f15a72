"""The desktop app: tray (or window), controllers, hotkeys, and the one quit path.

``run_desktop`` is the synchronous entry point used by ``aria desktop``: it creates the
QApplication and qasync's event loop, shows the tray icon first (start-up feels instant) and
then connects to ARIA in the background (building the orchestrator or attaching to a daemon).
Every way of quitting — the tray's Quit, SIGINT/SIGTERM, closing the window when there is no
tray, the session ending — sets one asyncio Event; the shutdown that follows closes the
windows, stops the hotkeys and the connection, then Qt quits (ARCHITECTURE.md: one loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from aria_desktop.core.ports import Assistant, SettingsService
from aria_desktop.domain.error_text import for_people
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.gui.bridge import EventBridge
from aria_desktop.gui.context import GuiContext
from aria_desktop.gui.controllers.chat import ChatController
from aria_desktop.gui.controllers.confirm import ConfirmController
from aria_desktop.gui.controllers.dictation import DictationController
from aria_desktop.gui.controllers.everyday import EverydayController
from aria_desktop.gui.controllers.everyday_sync import EverydaySync
from aria_desktop.gui.controllers.knowledge import KnowledgeController
from aria_desktop.gui.controllers.mcp import McpController
from aria_desktop.gui.controllers.mcp_questions import McpQuestionController
from aria_desktop.gui.controllers.memory import MemoryController
from aria_desktop.gui.controllers.quick_ask import QuickAskController
from aria_desktop.gui.controllers.settings import SettingsController
from aria_desktop.gui.controllers.settings_problems import SettingsProblemsPrompt
from aria_desktop.gui.controllers.tray import TrayController
from aria_desktop.gui.controllers.tray_skills import TraySkills
from aria_desktop.gui.controllers.wizard import WizardController
from aria_desktop.gui.escape import EscapeCloses
from aria_desktop.gui.hotkeys import GlobalHotkeys
from aria_desktop.gui.icons import IconSet
from aria_desktop.gui.keyspec import HotkeySpecError, parse_hotkey
from aria_desktop.gui.loop import AriaEventLoop
from aria_desktop.gui.tasks import TaskOwner, describe_error
from aria_desktop.gui.theme import ThemeManager
from aria_desktop.gui.views.actions import ActionSet
from aria_desktop.gui.views.chat_window import ChatWindowView
from aria_desktop.gui.views.everyday import EverydayView
from aria_desktop.gui.views.knowledge import KnowledgeView
from aria_desktop.gui.views.memory_browser import MemoryBrowserView
from aria_desktop.gui.views.overlay import ActingOverlayView
from aria_desktop.gui.views.quick_ask import QuickAskView
from aria_desktop.gui.views.tray import TrayView

__all__ = [
    "Connection",
    "Connector",
    "Desktop",
    "DesktopOptions",
    "create_application",
    "ensure_display",
    "run_desktop",
]

_LOGGER = logging.getLogger(__name__)
_START_ABORT_S = 30.0
"""How long a quit during start-up waits for the start to undo itself (bounded)."""

TRAY_WATCH_MS = 2_000
"""How often the no-tray fallback looks for a tray host that started after ARIA (ms)."""

NO_TRAY_MESSAGE = (
    "Your desktop has no system tray, so ARIA opened this window instead. Everything the tray "
    "menu offers is in the ARIA menu above. Closing this window quits ARIA."
)


@dataclass(frozen=True, kw_only=True)
class Connection:
    """A connected Assistant and how to let go of it.

    Attributes:
        assistant: what the GUI drives.
        label: where ARIA runs, for the status line ("in this app", "daemon at ...").
        aclose: releases it (stops the in-process orchestrator, or closes the API client).
    """

    assistant: Assistant
    label: str
    aclose: Callable[[], Awaitable[None]]


Connector = Callable[[], Awaitable[Connection]]


@dataclass(frozen=True, kw_only=True)
class DesktopOptions:
    """How the desktop app runs.

    Attributes:
        icons_dir: folder with ``aria.svg`` and ``state-<state>.svg``.
        use_tray: force the tray on/off; None uses it when the desktop has a tray host.
        show_wizard: force the first-run wizard; None shows it until it was completed once.
        hotkeys: grab the global hotkeys (also needs ``gui.hotkeys_enabled``).
        started_at: ``time.perf_counter()`` when the process started the command (start-up
            time is logged against it).
        settings_problems: what the tolerant settings load could not use; when there are any,
            a window names them before the tray appears (start with defaults, or quit).
    """

    icons_dir: Path
    use_tray: bool | None = None
    show_wizard: bool | None = None
    hotkeys: bool = True
    started_at: float = field(default_factory=time.perf_counter)
    settings_problems: tuple[SettingsProblem, ...] = ()


def ensure_display() -> None:
    """Refuse clearly when there is no graphical session (Qt would abort the process)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise AriaError(
        "No graphical display was found, so the desktop app cannot start.",
        hint="Run it inside your desktop session, or use `aria chat` / `aria daemon` instead.",
    )


class Desktop(QObject):
    """All windows and controllers of the desktop app, and its lifecycle."""

    ready = Signal()
    """Connected to ARIA (the Assistant is attached)."""

    def __init__(self, services: SettingsService | None, options: DesktopOptions) -> None:
        super().__init__()
        self.options = options
        self.services = services
        self.quit_requested = asyncio.Event()
        self.icons = IconSet(options.icons_dir)
        self.bridge = EventBridge(self)
        self.tasks = TaskOwner(self._report_error)
        self.context = GuiContext(self.bridge, self.tasks)
        self.actions = ActionSet(self)
        use_tray = options.use_tray
        if use_tray is None:
            use_tray = QSystemTrayIcon.isSystemTrayAvailable()
        self.tray_view = (
            TrayView(self.actions, self.icons.for_state("offline")) if use_tray else None
        )
        self.chat_view = ChatWindowView(self.actions, self.icons.app)
        self.chat = ChatController(self.chat_view, self.context)
        self.quick_ask_view = QuickAskView()
        self.quick_ask = QuickAskController(self.quick_ask_view, self.context)
        self.confirm = ConfirmController(self.context)
        self.mcp_questions = McpQuestionController(self.context)
        self.overlay = ActingOverlayView()
        self.tray = TrayController(
            self.actions, self.icons, self.context, self.overlay, self.tray_view
        )
        self.dictation = DictationController(self.bridge, self.tray.notify, self._dictation_key)
        self.memory = MemoryController(self.context, self.icons.app, self.tray.memory_status)
        self.memory.open_conversation.connect(self._open_conversation)
        self.knowledge = KnowledgeController(self.context, self.icons.app)
        self.everyday_sync = EverydaySync(self.context)
        self.everyday = EverydayController(
            self.everyday_sync, self.icons.app, self.icons.icons_dir / "check.svg"
        )
        self.tray_skills = TraySkills(self.everyday_sync, self.tray)
        self.settings = SettingsController(services, self.icons.app) if services else None
        self.mcp = McpController(self.context)
        self.wizard = (
            WizardController(services, self.icons.app, lambda: self.tray.capabilities.get("voice"))
            if services
            else None
        )
        if self.wizard is not None:
            self.wizard.completed_signal.connect(self._wizard_finished)
        self.hotkeys: GlobalHotkeys | None = None
        self._ptt_mode = "hold"
        # At login ARIA may start before the panel that hosts the tray: without a tray it
        # keeps looking (when the tray was not forced off) and moves in once one appears.
        self._tray_watch = QTimer(self)
        self._tray_watch.setInterval(TRAY_WATCH_MS)
        self._tray_watch.timeout.connect(self._look_for_tray)
        self.connection: Connection | None = None

        self.actions.open_chat.triggered.connect(self.open_chat)
        self.actions.quick_ask.triggered.connect(self.open_quick_ask)
        self.actions.settings.triggered.connect(self.open_settings)
        self.actions.memory.triggered.connect(self.open_memory)
        self.actions.knowledge.triggered.connect(self.knowledge.open)
        self.actions.everyday.triggered.connect(lambda: self.everyday.open())
        self.actions.quit.triggered.connect(self.request_quit)
        self.chat_view.close_requested.connect(self._on_chat_close)
        self.chat.action_requested.connect(self.run_action)
        self.quick_ask.action_requested.connect(self.run_action)
        self.tray.model_reach_changed.connect(self.chat.show_no_model)
        self.tray.model_reach_changed.connect(self.quick_ask.show_no_model)
        self.bridge.stream_lost.connect(self._on_stream_lost)
        if self.tray_view is not None:
            self.tray_view.icon.activated.connect(self._on_tray_activated)
        if self.settings is not None:
            self.settings.saved.connect(self._on_settings_saved)
            self.settings.run_wizard.connect(self.open_wizard)
        app = QApplication.instance()
        self.theme: ThemeManager | None = None
        if isinstance(app, QApplication):
            app.aboutToQuit.connect(self.request_quit)
            self.theme = ThemeManager(app, self)
            self.escape = EscapeCloses(app, (MemoryBrowserView, KnowledgeView, EverydayView), self)
            self.theme.changed.connect(lambda _dark: self.chat.redraw())
            self.apply_theme()

    # --- lifecycle ----------------------------------------------------------------------------

    def show_shell(self) -> None:
        """Show the tray icon, or the chat window when the desktop has no tray."""
        if self.tray_view is not None:
            self.tray_view.show()
        else:
            self.chat_view.show_banner(NO_TRAY_MESSAGE)
            self.open_chat()
            if self.options.use_tray is None:
                self._tray_watch.start()
        elapsed_ms = (time.perf_counter() - self.options.started_at) * 1000
        where = "tray icon" if self.tray_view is not None else "chat window (no tray host)"
        _LOGGER.info("ARIA desktop shown: %s after %.0f ms", where, elapsed_ms)

    async def run(self, connector: Connector) -> int:
        """Show the shell, connect, and serve until a quit is requested; returns exit status."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, self.request_quit)
        self.show_shell()
        self.start_hotkeys()
        connect_task = loop.create_task(self._connect(connector), name="aria-gui-connect")
        try:
            await self.quit_requested.wait()
        finally:
            # A quit while ARIA is still starting: the start gives back what it took (API
            # socket, voice, database and owner lock) before the loop ends.
            connect_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                _done, pending = await asyncio.wait([connect_task], timeout=_START_ABORT_S)
                if pending:
                    _LOGGER.warning("ARIA did not finish starting; quitting anyway")
            await self.shutdown()
            for signum in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signum)
        return 0

    async def _connect(self, connector: Connector) -> None:
        self.chat_view.status.setText("Connecting to ARIA…")
        try:
            connection = await connector()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not isinstance(exc, AriaError):
                _LOGGER.exception("Could not connect to ARIA")
            message, hint = describe_error(exc)
            self.context.detach(message)
            self.tray.set_offline(message)
            self.chat_view.status.setText(message)
            said = for_people(message, hint)
            self.chat_view.transcript.append_error(said)
            self.tray.notify("ARIA could not start", said, warning=True)
            if self.tray_view is not None:
                self.chat_view.bring_to_front()
            return
        self.connection = connection
        self.context.attach(connection.assistant)
        self.chat_view.setWindowTitle(f"ARIA — {connection.label}")
        self.ready.emit()
        _LOGGER.info(
            "ARIA desktop connected (%s) after %.0f ms",
            connection.label,
            (time.perf_counter() - self.options.started_at) * 1000,
        )
        if self._wizard_wanted():
            self.open_wizard()

    def _wizard_wanted(self) -> bool:
        if self.wizard is None:
            return False
        if self.options.show_wizard is not None:
            return self.options.show_wizard
        return not self.wizard.completed()

    def request_quit(self) -> None:
        """The one way to quit: everything else calls this."""
        if not self.quit_requested.is_set():
            _LOGGER.info("Quit requested")
            self.quit_requested.set()

    async def shutdown(self) -> None:
        """Close windows, stop hotkeys, events and tasks, then release the connection."""
        self._tray_watch.stop()
        if self.hotkeys is not None:
            self.hotkeys.stop()
        self.context.detach("ARIA has quit.")
        self.tray.set_offline("ARIA has quit.")
        self.confirm.close_all()
        self.mcp_questions.close_all()
        for widget in (self.quick_ask_view, self.overlay, self.dictation.view):
            widget.hide()
        self.memory.close()
        self.knowledge.close()
        self.everyday.close()
        if self.settings is not None:
            self.settings.close()
        if self.wizard is not None:
            self.wizard.close()
        self.chat_view.hide()
        if self.tray_view is not None:
            self.tray_view.hide()
        await self.bridge.aclose()
        for picker in (
            getattr(self.settings, "devices", None),
            getattr(self.wizard, "devices", None),
        ):
            if picker is not None:  # its microphone, and a device listing still running
                await picker.aclose()
        await self.tasks.cancel_all()
        connection, self.connection = self.connection, None
        if connection is not None:
            try:
                await connection.aclose()
            except Exception:
                _LOGGER.exception("Closing the connection to ARIA failed")

    # --- windows ------------------------------------------------------------------------------

    def open_chat(self) -> None:
        """Show the chat window."""
        self.chat_view.bring_to_front()
        self.chat_view.composer.setFocus()

    def open_quick_ask(self) -> None:
        """Show the quick-ask prompt."""
        self.quick_ask.open()

    def open_settings(self) -> None:
        """Show the settings dialog."""
        if self.settings is None:
            self.tray.notify("Settings", "Settings cannot be changed from this window.")
            return
        view = self.settings.open(self.hotkeys.status if self.hotkeys is not None else "")
        if self.context.connected:
            self.mcp.add_tab(view.add_page)

    def run_action(self, action: str) -> None:
        """An error card's or notice's button: "open_settings" or "set_up_model"."""
        if action == "set_up_model" and self.wizard is not None:
            self.open_wizard()  # the first run's model page: finds Ollama, tests, lists models
        else:
            self.open_settings()

    def open_memory(self) -> None:
        """Show the memory browser."""
        self.memory.open()

    def open_wizard(self) -> None:
        """Show the first-run wizard."""
        if self.wizard is not None:
            self.wizard.open()

    def _wizard_finished(self, suggestion: str) -> None:
        """The first run ends in the chat window, with something to try that works already."""
        self.apply_theme()
        self.start_hotkeys()
        self.open_chat()
        self.chat.suggest(suggestion)

    def _open_conversation(self, conversation_id: str) -> None:
        """Provenance: show the conversation a memory came from (list refreshed to hold it)."""
        self.open_chat()
        self.chat.open_conversation(conversation_id)
        self.chat.refresh_conversations()

    def _on_chat_close(self) -> None:
        _LOGGER.debug(
            "Chat window closed (%s)", "no tray: quit" if self.tray_view is None else "hide"
        )
        if self.tray_view is None:
            self.request_quit()
        else:
            self.chat_view.hide()

    def _on_tray_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        """A click toggles the chat window; a double-click always leaves it open.

        A double-click arrives as a click (toggle) then ``DoubleClick``: toggling on both
        would end with the window hidden again (seen with a real XEmbed tray host).
        """
        _LOGGER.debug("Tray icon activated: %s", reason.name)
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            if self.chat_view.isVisible():
                self.chat_view.hide()
            else:
                self.open_chat()
        elif reason == QSystemTrayIcon.ActivationReason.DoubleClick:
            self.open_chat()

    def _look_for_tray(self) -> None:
        if QSystemTrayIcon.isSystemTrayAvailable():
            self._tray_watch.stop()
            self.adopt_tray()

    def adopt_tray(self) -> None:
        """A tray host appeared after start (the panel started after ARIA): move into it.

        The chat window stays as the user left it, without the no-tray notice; from now on
        closing it keeps ARIA running in the tray, as when the tray was there from the start.
        """
        if self.tray_view is not None:
            return
        view = TrayView(self.actions, self.icons.for_state(self.tray.state))
        view.icon.activated.connect(self._on_tray_activated)
        self.tray_view = view
        self.tray.attach_tray(view)
        self.tray_skills.render()
        view.show()
        if self.chat_view.banner.text() == NO_TRAY_MESSAGE:
            self.chat_view.show_banner("")
        _LOGGER.info("A system tray appeared: ARIA's icon is in the tray now")
        self.tray.notify(
            "ARIA is in the system tray",
            "Closing the chat window now keeps ARIA running in the tray.",
        )

    def _on_stream_lost(self, message: str) -> None:
        self.context.detach(message)
        self.tray.set_offline(message)
        self.chat_view.status.setText(message)
        self.tray.notify("ARIA is offline", message, warning=True)

    def _report_error(self, message: str, hint: str) -> None:
        self.chat_view.status.setText(for_people(message, ""))
        self.tray.notify(for_people(message, ""), for_people("", hint), warning=True)

    def _on_settings_saved(self) -> None:
        self.apply_theme()
        self.start_hotkeys()

    def apply_theme(self) -> None:
        """Light, dark or the desktop's colours, as ``gui.theme`` says (applied at once)."""
        if self.theme is None or self.services is None:
            return
        values = {info.key: info.value for info in self.services.fields("gui.theme")}
        self.theme.apply(values.get("gui.theme", "system"))

    # --- hotkeys ------------------------------------------------------------------------------

    def hotkey_bindings(self) -> dict[str, str]:
        """``action -> hotkey text`` from the settings ("" when off)."""
        if self.services is None:
            return {}
        values = {info.key: info.value for info in self.services.fields("gui.")}
        modes = {info.key: info.value for info in self.services.fields("voice.push_to_talk")}
        self._ptt_mode = modes.get("voice.push_to_talk", "hold")
        if values.get("gui.hotkeys_enabled", "true") != "true":
            return {}
        return {
            "quick_ask": values.get("gui.hotkey_quick_ask", ""),
            "push_to_talk": values.get("gui.hotkey_push_to_talk", ""),
            "stop": values.get("gui.hotkey_stop", ""),
            "dictate": values.get("gui.hotkey_dictate", ""),
        }

    def start_hotkeys(self) -> None:
        """(Re)start the global hotkeys from the settings."""
        if not self.options.hotkeys:
            return
        if self.hotkeys is None:
            self.hotkeys = GlobalHotkeys(asyncio.get_running_loop(), self.on_hotkey)
        specs = {}
        for action, text in self.hotkey_bindings().items():
            try:
                specs[action] = parse_hotkey(text)
            except HotkeySpecError as exc:
                _LOGGER.warning("Hotkey for %s ignored: %s", action, exc)
        if not self.hotkeys.start(specs) and specs:
            self.tray.notify("Global hotkeys unavailable", self.hotkeys.status)
        quick = specs.get("quick_ask")
        stop = specs.get("stop")
        talk = specs.get("push_to_talk")
        self.actions.set_hotkey_hint(self.actions.quick_ask, quick.text if quick else "")
        self.actions.set_hotkey_hint(self.actions.stop_everything, stop.text if stop else "")
        self.actions.set_hotkey_hint(self.actions.push_to_talk, talk.text if talk else "")
        dictate = specs.get("dictate")
        self.actions.set_hotkey_hint(self.actions.dictate, dictate.text if dictate else "")

    def _dictation_key(self) -> str:
        """The dictation hotkey as shown, when the hotkeys work here ("" otherwise)."""
        if self.hotkeys is None or not self.hotkeys.working:
            return ""
        return self.hotkey_bindings().get("dictate", "")

    def on_hotkey(self, action: str, kind: str) -> None:
        """A global hotkey went down or up (on the loop's thread)."""
        if action == "quick_ask" and kind == "press":
            self.open_quick_ask()
        elif action == "stop" and kind == "press":
            self.tray.stop_everything()
        elif action == "dictate":
            self.tray.push_to_talk(kind, purpose="dictate")  # held: the release types
        elif action == "push_to_talk":
            # voice.push_to_talk: "hold" talks while the key is down; "toggle" starts on one
            # press and ends on the next (the pipeline also ends it on silence).
            if self._ptt_mode == "toggle":
                if kind == "press":
                    self.tray.push_to_talk("toggle")
            else:
                self.tray.push_to_talk(kind)


def _log_unhandled(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    """Exceptions escaping Qt slots go to the log, never to the user's terminal."""
    _LOGGER.error("Unhandled exception in the GUI", exc_info=(exc_type, exc, tb))


def create_application() -> tuple[QApplication, AriaEventLoop]:
    """The QApplication and qasync's loop (set as the thread's loop), ready to run."""
    ensure_display()
    # threads holding the GIL delay the loop less (ARCHITECTURE.md: one loop)
    sys.setswitchinterval(0.001)
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("ARIA")
    app.setApplicationDisplayName("ARIA")
    app.setDesktopFileName("aria-desktop")
    app.setQuitOnLastWindowClosed(False)
    loop = AriaEventLoop(app)
    asyncio.set_event_loop(loop)
    return app, loop


def run_desktop(
    connector: Connector, services: SettingsService | None, options: DesktopOptions
) -> int:
    """Run the desktop app until it quits; returns the exit status."""
    app, loop = create_application()
    previous_hook = sys.excepthook
    sys.excepthook = _log_unhandled
    try:
        desktop = Desktop(services, options)
        app.setWindowIcon(desktop.icons.app)
        with loop:
            if options.settings_problems:  # named before the tray appears
                prompt = SettingsProblemsPrompt(options.settings_problems, desktop.icons.app)
                if not loop.run_until_complete(prompt.answer()):
                    loop.run_until_complete(desktop.shutdown())
                    return 0
            return int(loop.run_until_complete(desktop.run(connector)))
    finally:
        sys.excepthook = previous_hook
        asyncio.set_event_loop(None)
