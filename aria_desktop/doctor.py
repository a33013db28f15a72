"""``aria doctor``: checks the set-up and says how to fix what is wrong.

Each check returns OK, WARN (works, with less) or FAIL (ARIA cannot work until fixed) and a
one-line fix. Checks never raise: a check that crashes is itself reported as FAIL. Like ``cli``
and ``bootstrap`` this module may touch any adapter; later capabilities add their checks here.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import logging
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from aria_desktop import keystore, paths
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

__all__ = ["CheckResult", "run_checks"]

_LOGGER = logging.getLogger(__name__)
_PROBE_TIMEOUT_S = 4.0

Status = Literal["OK", "WARN", "FAIL"]


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """One line of the doctor's report."""

    name: str
    status: Status
    detail: str
    fix: str = ""


def _check_config(settings: Settings) -> CheckResult:
    path = paths.settings_file()
    if path.exists():
        return CheckResult(name="config", status="OK", detail=f"{path} is valid")
    return CheckResult(
        name="config",
        status="OK",
        detail=f"no settings file yet; using defaults ({path})",
        fix="aria config set KEY VALUE creates it",
    )


def _check_sqlite(settings: Settings) -> list[CheckResult]:
    from aria_desktop.bootstrap import database_path
    from aria_desktop.storage.connection import sqlite_info
    from aria_desktop.storage.owner_lock import read_owner

    info = sqlite_info()
    results = [
        CheckResult(
            name="sqlite",
            status="OK" if info.fts5 else "FAIL",
            detail=f"SQLite {info.sqlite_version} via {info.driver}; "
            f"FTS5 {'available' if info.fts5 else 'MISSING'}",
            fix="" if info.fts5 else "reinstall ARIA: bash packaging/setup.sh start",
        ),
        CheckResult(
            name="sqlite-vec",
            status="OK" if info.vec_version else "WARN",
            detail=f"sqlite-vec {info.vec_version}"
            if info.vec_version
            else f"cannot load sqlite-vec: {info.vec_error}",
            fix=""
            if info.vec_version
            else "pip install sqlite-vec==0.1.9 (memory search then works lexically only)",
        ),
    ]
    db_path = database_path(settings)
    owner = read_owner(db_path)
    if owner is not None and owner.pid != os.getpid():
        where = f" (API port {owner.port})" if owner.port else ""
        results.append(
            CheckResult(
                name="database",
                status="OK",
                detail=f"{db_path} is owned by running ARIA pid {owner.pid}{where}",
            )
        )
    else:
        results.append(CheckResult(name="database", status="OK", detail=str(db_path)))
    return results


async def _check_backends(settings: Settings) -> list[CheckResult]:
    from aria_desktop.bootstrap import build_router

    router = build_router(settings)
    results: list[CheckResult] = []
    reachable = 0
    try:
        for name in ("ollama", "openai"):
            backend = router.backend(name)
            if backend is None:
                continue
            try:
                async with asyncio.timeout(_PROBE_TIMEOUT_S):
                    models = await backend.list_models()
            except (AriaError, TimeoutError) as exc:
                url = settings.llm.ollama.url if name == "ollama" else settings.llm.openai.url
                results.append(
                    CheckResult(
                        name=name,
                        status="WARN",
                        detail=f"not reachable at {url}: {exc or 'timed out'}",
                        fix=(
                            "start Ollama on your GPU machine (`ollama serve`, with "
                            "OLLAMA_HOST=0.0.0.0 for remote use) and run "
                            f"`aria config set llm.{name}.url http://HOST:PORT`"
                        ),
                    )
                )
                continue
            reachable += 1
            names = [m.name for m in models]
            wanted = backend.model
            has_model = wanted in names or f"{wanted}:latest" in names
            results.append(
                CheckResult(
                    name=name,
                    status="OK" if has_model else "WARN",
                    detail=f"reachable; models: {', '.join(names[:8]) or 'none'}",
                    fix=""
                    if has_model
                    else f"model {wanted!r} is missing: `ollama pull {wanted}` on that machine, "
                    f"or `aria config set llm.{name}.model NAME`",
                )
            )
        key_status = keystore.secret_status("anthropic_api_key")
        if key_status == "missing":
            results.append(
                CheckResult(
                    name="anthropic",
                    status="WARN",
                    detail="no API key: no cloud fallback",
                    fix="aria config set-secret anthropic_api_key",
                )
            )
        else:
            reachable += 1
            results.append(
                CheckResult(
                    name="anthropic",
                    status="OK",
                    detail=f"API key from {key_status}; model {settings.llm.anthropic.model}",
                )
            )
    finally:
        await router.aclose()
    if reachable == 0:
        results.append(
            CheckResult(
                name="llm",
                status="FAIL",
                detail="no language model backend is usable",
                fix="point ARIA at Ollama (`aria config set llm.ollama.url http://HOST:11434`) "
                "or add a cloud key (`aria config set-secret anthropic_api_key`)",
            )
        )
    return results


def _check_keyring() -> CheckResult:
    usable, detail = keystore.keyring_status()
    return CheckResult(
        name="keyring",
        status="OK" if usable else "WARN",
        detail=detail,
        fix=""
        if usable
        else "install/unlock a keyring (gnome-keyring, KWallet), or store keys with "
        "`aria config set-secret NAME --insecure-file`",
    )


def _check_audit() -> CheckResult:
    from aria_desktop.bootstrap import open_audit_log

    report = open_audit_log().verify()
    if report.ok:
        return CheckResult(
            name="audit log", status="OK", detail=f"{report.records} records, intact"
        )
    return CheckResult(
        name="audit log",
        status="FAIL",
        detail=f"record {report.first_bad_seq}: {report.reason}",
        fix=f"the audit log was altered; inspect {paths.audit_log_path()} (aria audit verify)",
    )


def _check_display() -> CheckResult:
    display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if display or sys.platform in {"win32", "darwin"}:
        return CheckResult(name="display", status="OK", detail=f"graphical session {display or ''}")
    return CheckResult(
        name="display",
        status="WARN",
        detail="no graphical session (DISPLAY/WAYLAND_DISPLAY unset)",
        fix="the tray app and computer use need a desktop session; chat, API and voice work",
    )


def _check_tesseract() -> CheckResult:
    found = shutil.which("tesseract")
    if found:
        return CheckResult(name="tesseract", status="OK", detail=found)
    return CheckResult(
        name="tesseract",
        status="WARN",
        detail="not installed: ARIA cannot read the screen",
        fix="sudo apt-get install tesseract-ocr tesseract-ocr-eng",
    )


def _check_audio(settings: Settings) -> list[CheckResult]:
    if importlib.util.find_spec("sounddevice") is None:
        return [
            CheckResult(
                name="audio",
                status="WARN",
                detail="sounddevice not installed",
                fix="pip install 'aria-desktop[voice]' (and apt-get install libportaudio2)",
            )
        ]
    from aria_desktop.voice.devices import find_device, list_devices

    try:
        devices = list_devices()
    except AriaError as exc:  # PortAudio missing or no audio system: a normal state
        return [CheckResult(name="audio", status="WARN", detail=exc.message, fix=exc.hint)]
    inputs = [d for d in devices if d.inputs > 0]
    outputs = [d for d in devices if d.outputs > 0]
    if not devices:
        return [
            CheckResult(
                name="audio",
                status="WARN",
                detail="no sound device (no microphone, no speaker)",
                fix="connect a headset or speakers and a microphone to talk to ARIA; typed chat "
                "works without them",
            )
        ]
    if not inputs:
        return [
            CheckResult(
                name="audio",
                status="WARN",
                detail=f"no microphone ({len(outputs)} output devices)",
                fix="connect a microphone to talk to ARIA; typed chat works without one",
            )
        ]
    results = []
    for spec, output in (
        (settings.voice.input_device, False),
        (settings.voice.output_device, True),
    ):
        kind = "speaker" if output else "microphone"
        try:
            device = find_device(spec, output=output)
        except AriaError as exc:
            results.append(CheckResult(name=kind, status="WARN", detail=exc.message, fix=exc.hint))
        else:
            results.append(CheckResult(name=kind, status="OK", detail=device.name))
    return results


def _check_voice_models(settings: Settings) -> list[CheckResult]:
    from aria_desktop.voice.piper_tts import piper_voice_path
    from aria_desktop.voice.wakeword import resolve_wake_model
    from aria_desktop.voice.whisper_models import describe_whisper_model, is_english_only

    voice = settings.voice
    checks: list[tuple[str, str, Callable[[], object]]] = []
    if voice.wake.enabled and voice.wake.engine == "local":
        for model in (voice.wake.model, *voice.wake.custom_models):
            checks.append(("wake word", model, functools.partial(resolve_wake_model, model)))
    if voice.stt.engine == "local":
        language = voice.stt.language or (
            "English" if is_english_only(voice.stt.model) else "detected per command"
        )
        checks.append(
            (
                "speech-to-text",
                f"{voice.stt.model} (language: {language})",
                lambda: describe_whisper_model(voice.stt.model, cache_dir=paths.model_cache_dir()),
            )
        )
    if voice.tts.engine == "local":
        checks.append(
            (
                "text-to-speech",
                voice.tts.voice or "packaged",
                lambda: piper_voice_path(voice.tts.voice),
            )
        )
    missing = {
        "whisper runtime": "faster_whisper",
        "text-to-speech runtime": "piper",
        "wake word runtime": "openwakeword",
    }
    results = []
    for label, module in missing.items():
        if importlib.util.find_spec(module) is None:
            results.append(
                CheckResult(
                    name="voice models",
                    status="WARN",
                    detail=f"{label} ({module}) is not installed",
                    fix="pip install 'aria-desktop[voice]'",
                )
            )
    for label, model, check in checks:
        try:
            path = check()
        except AriaError as exc:
            results.append(CheckResult(name=label, status="WARN", detail=exc.message, fix=exc.hint))
        else:
            results.append(CheckResult(name=label, status="OK", detail=f"{model}: {path}"))
    for stage, engine, uri in (
        ("wake word", voice.wake.engine, voice.wake.wyoming_uri),
        ("speech-to-text", voice.stt.engine, voice.stt.wyoming_uri),
        ("text-to-speech", voice.tts.engine, voice.tts.wyoming_uri),
    ):
        if engine == "wyoming":
            results.append(CheckResult(name=stage, status="OK", detail=f"Wyoming server {uri}"))
    return results


async def _check_memory(settings: Settings) -> list[CheckResult]:
    """Whether memory search can use vectors, and if not, why (it still works by keywords)."""
    from aria_desktop.bootstrap import build_embedder
    from aria_desktop.storage.connection import sqlite_info

    choice = settings.memory.embedder
    lexical_fix = "memory still works with keyword search only"
    if choice == "none":
        return [
            CheckResult(
                name="memory",
                status="WARN",
                detail="no embedder (memory.embedder = none): keyword search only",
                fix="aria config set memory.embedder local",
            )
        ]
    info = await asyncio.to_thread(sqlite_info)
    if not info.vec_available:
        return [
            CheckResult(
                name="memory",
                status="WARN",
                detail=f"keyword search only: sqlite-vec unavailable ({info.vec_error})",
                fix="pip install sqlite-vec==0.1.9; " + lexical_fix,
            )
        ]
    embedder = build_embedder(settings)
    if embedder is None:  # pragma: no cover - "none" handled above
        return []
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S * 4):
            vectors = await embedder.embed(["ARIA doctor embedding check"])
        dim = len(vectors[0]) // 4
    except (AriaError, TimeoutError) as exc:
        hint = getattr(exc, "hint", "") or lexical_fix
        return [
            CheckResult(
                name="memory",
                status="WARN",
                detail=f"keyword search only: {exc or 'the embedder timed out'}",
                fix=hint,
            )
        ]
    finally:
        await embedder.aclose()
    extraction = "on" if settings.memory.auto_extract else "off"
    if settings.memory.ask_first:
        extraction += " (ask first)"
    return [
        CheckResult(
            name="memory",
            status="OK",
            detail=f"hybrid search with {embedder.name} ({dim}-d); fact extraction {extraction}",
        )
    ]


async def run_checks(settings: Settings) -> list[CheckResult]:
    """Run every check; a check that crashes is reported as FAIL, never raised."""
    results: list[CheckResult] = []

    async def guarded(name: str, check: Callable[[], Awaitable[list[CheckResult]]]) -> None:
        try:
            results.extend(await check())
        except Exception as exc:
            _LOGGER.exception("doctor check %s crashed", name)
            results.append(
                CheckResult(name=name, status="FAIL", detail=f"check failed: {exc}", fix="")
            )

    async def wrap(result: Callable[[], CheckResult]) -> list[CheckResult]:
        return [result()]

    await guarded("config", lambda: wrap(lambda: _check_config(settings)))
    await guarded("sqlite", lambda: asyncio.to_thread(_check_sqlite, settings))
    await guarded("llm", lambda: _check_backends(settings))
    await guarded("keyring", lambda: wrap(_check_keyring))
    await guarded("audit log", lambda: asyncio.to_thread(lambda: [_check_audit()]))
    await guarded("display", lambda: wrap(_check_display))
    await guarded("tesseract", lambda: wrap(_check_tesseract))
    await guarded("audio", lambda: asyncio.to_thread(_check_audio, settings))
    await guarded("voice models", lambda: asyncio.to_thread(_check_voice_models, settings))
    await guarded("memory", lambda: _check_memory(settings))
    await guarded("local API", lambda: asyncio.to_thread(_check_api, settings))
    await guarded("computer use", lambda: asyncio.to_thread(_check_computer, settings))
    await guarded("desktop app", lambda: asyncio.to_thread(_check_desktop_app))
    return results


def _check_desktop_app() -> list[CheckResult]:
    """The tray app's libraries, icons, global hotkeys and start-at-login entry."""
    results: list[CheckResult] = []
    missing = [
        name for name in ("PySide6", "qasync", "pynput") if importlib.util.find_spec(name) is None
    ]
    if missing:
        return [
            CheckResult(
                name="desktop app",
                status="WARN",
                detail=f"not installed ({', '.join(missing)} missing)",
                fix="pip install 'aria-desktop[gui]' (bash packaging/setup.sh start does it)",
            )
        ]
    try:
        icons = paths.resource_path("icons")
        absent = [
            name
            for name in ("aria.svg", "state-idle.svg", "state-error.svg", "state-offline.svg")
            if not (icons / name).is_file()
        ]
    except FileNotFoundError:
        absent = ["icons/"]
    results.append(
        CheckResult(
            name="desktop app",
            status="FAIL" if absent else "OK",
            detail=f"icons missing: {', '.join(absent)}" if absent else "PySide6, qasync, pynput",
            fix="reinstall ARIA: bash packaging/setup.sh start" if absent else "",
        )
    )
    from aria_desktop.gui.hotkeys import session_problem

    problem = session_problem()
    results.append(
        CheckResult(
            name="global hotkeys",
            status="WARN" if problem else "OK",
            detail=problem or f"X11 display {os.environ.get('DISPLAY')}",
            fix="use the tray menu (or the chat window's ARIA menu) instead" if problem else "",
        )
    )
    results.append(_check_system_tray())
    from aria_desktop.cli._desktop_services import autostart_path

    entry = autostart_path()
    results.append(
        CheckResult(
            name="start at login",
            status="OK",
            detail=f"on ({entry})" if entry.exists() else "off",
            fix="" if entry.exists() else "turn it on in Settings > General",
        )
    )
    return results


_NO_TRAY_FIX = (
    "nothing to do: the chat window opens instead, and ARIA moves into a tray that appears "
    "later (add a tray/StatusNotifier applet to your panel to have the icon)"
)


def _check_system_tray(display: str | None = None) -> CheckResult:
    """Whether a system tray host exists for the tray icon (else the chat window opens).

    Qt shows the icon through a StatusNotifier host on D-Bus when one is registered, or else
    through the freedesktop XEmbed tray: the owner of the ``_NET_SYSTEM_TRAY_S<screen>`` X
    selection.
    """
    if _has_status_notifier_host():
        return CheckResult(name="system tray", status="OK", detail="StatusNotifier host (D-Bus)")
    display = display or os.environ.get("DISPLAY")
    if not display:
        return CheckResult(
            name="system tray", status="WARN", detail="no X11 display", fix=_NO_TRAY_FIX
        )
    if importlib.util.find_spec("Xlib") is None:
        return CheckResult(
            name="system tray",
            status="WARN",
            detail="not checked: python-xlib is not installed",
            fix="pip install 'aria-desktop[computer]'",
        )
    try:
        from Xlib import display as xdisplay

        connection = xdisplay.Display(display)
        try:
            screen = connection.get_default_screen()
            selection = connection.intern_atom(f"_NET_SYSTEM_TRAY_S{screen}")
            owner = getattr(connection.get_selection_owner(selection), "id", 0)
        finally:
            connection.close()
    except Exception as exc:
        return CheckResult(
            name="system tray",
            status="WARN",
            detail=f"cannot connect to the X display {display}: {exc}",
            fix="check DISPLAY and XAUTHORITY (xhost/xauth)",
        )
    if owner:
        return CheckResult(
            name="system tray", status="OK", detail=f"XEmbed tray host on display {display}"
        )
    return CheckResult(
        name="system tray",
        status="WARN",
        detail=f"no system tray on display {display}",
        fix=_NO_TRAY_FIX,
    )


def _has_status_notifier_host() -> bool:
    """A StatusNotifierWatcher owns its name on the session bus (``dbus-send``, bounded)."""
    tool = shutil.which("dbus-send")
    if tool is None or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    import subprocess

    try:
        result = subprocess.run(
            [
                tool, "--session", "--print-reply", "--reply-timeout=2000",
                "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:org.kde.StatusNotifierWatcher",
            ],
            capture_output=True,
            text=True,
            timeout=5,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return "boolean true" in result.stdout


# --- local HTTP API, daemon, automations ------------------------------------------------------


def _check_api(settings: Settings) -> list[CheckResult]:
    """Token file privacy, the owner (if any) answering, the port free, automations valid."""
    import socket
    import stat

    from aria_desktop.api.server import is_loopback
    from aria_desktop.owner import automation_specs
    from aria_desktop.settings import resolve_database_path
    from aria_desktop.storage.owner_lock import read_owner

    results: list[CheckResult] = []
    api = settings.api
    if not is_loopback(api.host):
        status: Status = "WARN" if api.allow_remote else "FAIL"
        results.append(
            CheckResult(
                name="api address",
                status=status,
                detail=f"api.host = {api.host} is reachable from other computers",
                fix="Use 127.0.0.1 unless you need remote access (then keep the token secret)."
                if api.allow_remote
                else "Set api.host = 127.0.0.1, or api.allow_remote = true on purpose.",
            )
        )
    token_path = paths.api_token_path()
    if token_path.exists():
        mode = stat.S_IMODE(token_path.stat().st_mode)
        dir_mode = stat.S_IMODE(token_path.parent.stat().st_mode)
        private = not (mode & 0o077) and not (dir_mode & 0o077)
        results.append(
            CheckResult(
                name="api token",
                status="OK" if private else "FAIL",
                detail=f"{token_path} (file {mode:o}, folder {dir_mode:o})",
                fix="" if private else "Run `aria token rotate` (it writes a private file).",
            )
        )
    else:
        results.append(
            CheckResult(
                name="api token",
                status="OK",
                detail="not created yet (made at the first start of ARIA)",
            )
        )
    owner = read_owner(resolve_database_path(settings))
    if owner is not None:
        detail = f"ARIA runs as pid {owner.pid}"
        results.append(
            CheckResult(
                name="owner",
                status="OK" if owner.port else "WARN",
                detail=detail + (f", API on port {owner.port}" if owner.port else ", no API yet"),
                fix="" if owner.port else "It may still be starting; check `aria status`.",
            )
        )
    elif api.port:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", api.port))
                free = True
            except OSError:
                free = False
        results.append(
            CheckResult(
                name="api port",
                status="OK" if free else "WARN",
                detail=f"port {api.port} is " + ("free" if free else "taken by another program"),
                fix="" if free else "Choose another with `aria config set api.port PORT`.",
            )
        )
    specs = automation_specs(settings)
    results.append(
        CheckResult(
            name="automations",
            status="OK",
            detail=", ".join(f"{s.name} ({s.schedule or 'webhook'})" for s in specs)
            or "none configured",
        )
    )
    return results


# --- computer use ------------------------------------------------------------------------------


def _check_computer(settings: Settings) -> list[CheckResult]:
    """Screen capture, OCR language data, window facts and input permissions."""
    from aria_desktop.computer.screen import MssScreen, display_problem

    results: list[CheckResult] = []
    problem = display_problem()
    if problem:
        return [
            CheckResult(
                name="computer use",
                status="WARN",
                detail=f"unavailable: {problem}",
                fix="run ARIA inside your desktop session to let it see and operate the screen",
            )
        ]
    try:
        screen = MssScreen()
        bounds = screen.monitor_rect(0)
        screen.grab(type(bounds)(bounds.x, bounds.y, 1, 1))
        monitors = len(screen.monitors()) - 1
        results.append(
            CheckResult(
                name="screen capture",
                status="OK",
                detail=f"{bounds.width}x{bounds.height} px, {monitors} monitor(s)",
            )
        )
    except AriaError as exc:
        results.append(
            CheckResult(
                name="screen capture",
                status="WARN",
                detail=exc.message,
                fix=exc.hint or "check DISPLAY and XAUTHORITY",
            )
        )
    results.append(_check_ocr_languages())
    results.append(_check_input())
    results.append(
        CheckResult(
            name="computer control",
            status="OK",
            detail="on at start"
            if settings.computer.enabled
            else "off until you turn it on (tray menu, API, or computer.enabled)",
        )
    )
    return results


def _check_ocr_languages() -> CheckResult:
    import subprocess

    if shutil.which("tesseract") is None:
        return CheckResult(
            name="ocr",
            status="WARN",
            detail="Tesseract missing: ARIA cannot read the screen",
            fix="sudo apt-get install tesseract-ocr tesseract-ocr-eng",
        )
    try:
        output = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=10
        ).stdout
        listed = [line.strip() for line in output.splitlines()[1:] if line.strip()]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CheckResult(name="ocr", status="WARN", detail=f"tesseract failed: {exc}")
    if "eng" not in listed:
        return CheckResult(
            name="ocr",
            status="WARN",
            detail="no English language data for Tesseract",
            fix="sudo apt-get install tesseract-ocr-eng",
        )
    langs = [lang for lang in listed if lang != "osd"]
    return CheckResult(name="ocr", status="OK", detail=f"languages: {', '.join(langs[:8])}")


def _check_input() -> CheckResult:
    """Whether synthetic input is permitted (X11 XTEST extension, pyautogui importable)."""
    if importlib.util.find_spec("pyautogui") is None:
        return CheckResult(
            name="input",
            status="WARN",
            detail="pyautogui not installed: ARIA cannot click or type",
            fix="pip install 'aria-desktop[computer]'",
        )
    try:
        from Xlib import display as xdisplay

        connection = xdisplay.Display()
        try:
            has_xtest = connection.has_extension("XTEST")
        finally:
            connection.close()
    except Exception as exc:
        return CheckResult(
            name="input",
            status="WARN",
            detail=f"cannot connect to the X display: {exc}",
            fix="check DISPLAY and XAUTHORITY (xhost/xauth)",
        )
    if not has_xtest:
        return CheckResult(
            name="input",
            status="WARN",
            detail="the X server refuses synthetic input (no XTEST extension)",
            fix="enable the XTEST extension of your X server (Xorg: it is on by default)",
        )
    return CheckResult(name="input", status="OK", detail="synthetic mouse and keyboard allowed")
