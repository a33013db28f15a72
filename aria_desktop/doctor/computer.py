"""Doctor checks of computer use.

Tesseract and its language data, screen capture, synthetic input permissions, and whether
control is on at start.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess

from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

__all__ = ["check_computer", "check_tesseract"]

_TESSERACT_FIX = "sudo apt-get install tesseract-ocr tesseract-ocr-eng"


def check_tesseract() -> CheckResult:
    """The Tesseract OCR program is installed (ARIA reads the screen with it)."""
    found = shutil.which("tesseract")
    if found:
        return ok("tesseract", found)
    return warn("tesseract", "not installed: ARIA cannot read the screen", _TESSERACT_FIX)


def check_computer(settings: Settings) -> list[CheckResult]:
    """Screen capture, OCR language data, window facts and input permissions."""
    from aria_desktop.adapters.computer.screen import MssScreen, display_problem

    problem = display_problem()
    if problem:
        return [
            warn(
                "computer use",
                f"unavailable: {problem}",
                "run ARIA inside your desktop session to let it see and operate the screen",
            )
        ]
    from aria_desktop.adapters.computer.screen import desktop_session

    if desktop_session() == "sway":
        return [*_check_wlroots(), _check_ocr_languages(), _password_fields(), _control(settings)]
    results: list[CheckResult] = []
    try:
        screen = MssScreen()
        bounds = screen.monitor_rect(0)
        screen.grab(type(bounds)(bounds.x, bounds.y, 1, 1))
        monitors = len(screen.monitors()) - 1
        results.append(
            ok("screen capture", f"{bounds.width}x{bounds.height} px, {monitors} monitor(s)")
        )
    except AriaError as exc:
        results.append(
            warn("screen capture", exc.message, exc.hint or "check DISPLAY and XAUTHORITY")
        )
    results.append(_check_ocr_languages())
    results.append(_check_input())
    results.append(_password_fields())
    results.append(_control(settings))
    return results


def _password_fields() -> CheckResult:
    """Whether the accessibility service can say that the focused field is a password field."""
    from aria_desktop.adapters.computer.accessibility import AccessibilityProbe

    probe = AccessibilityProbe()
    try:
        if probe.reachable():
            return ok("password fields", "told by the desktop's accessibility service (AT-SPI)")
    finally:
        probe.close()
    return warn(
        "password fields",
        "the accessibility service does not answer: ARIA tells a password field only by the "
        "labels next to it before typing or dictating",
        "install at-spi2-core (sudo apt-get install at-spi2-core); desktops start it at login",
    )


def _control(settings: Settings) -> CheckResult:
    return ok(
        "computer control",
        "on at start"
        if settings.computer.enabled
        else "off until you turn it on (tray menu, API, or computer.enabled)",
    )


def _check_wlroots() -> list[CheckResult]:
    """Capture, window facts and input on sway: grim, sway's IPC, virtual pointer, wtype."""
    import shutil

    from aria_desktop.adapters.computer.sway import SwayIpc, SwayWindows
    from aria_desktop.adapters.computer.wayland_pointer import VirtualPointer
    from aria_desktop.adapters.computer.wlr_screen import GrimScreen

    results: list[CheckResult] = []
    try:
        screen = GrimScreen(SwayIpc())
        bounds = screen.monitor_rect(0)
        screen.grab(type(bounds)(bounds.x, bounds.y, 1, 1))
        outputs = len(screen.monitors()) - 1
        results.append(
            ok(
                "screen capture",
                f"{bounds.width}x{bounds.height} logical px, {outputs} output(s), through grim "
                "(wlroots screencopy)",
            )
        )
    except AriaError as exc:
        results.append(warn("screen capture", exc.message, exc.hint))
    try:
        count = len(SwayWindows().windows())
        results.append(ok("window facts", f"{count} window(s), from sway's IPC"))
    except AriaError as exc:
        results.append(warn("window facts", exc.message, exc.hint))
    pointer = VirtualPointer()
    try:
        pointer.probe()
    except AriaError as exc:
        results.append(warn("input", exc.message, exc.hint))
    else:
        if shutil.which("wtype") is None:
            results.append(
                warn(
                    "input",
                    "the pointer works (virtual pointer), but keys cannot be typed",
                    "sudo apt-get install wtype",
                )
            )
        else:
            results.append(
                ok("input", "pointer through the virtual pointer protocol, keys through wtype")
            )
    finally:
        pointer.close()
    return results


def _check_ocr_languages() -> CheckResult:
    """Tesseract has English language data."""
    if shutil.which("tesseract") is None:
        return warn("ocr", "Tesseract missing: ARIA cannot read the screen", _TESSERACT_FIX)
    try:
        output = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=10
        ).stdout
        listed = [line.strip() for line in output.splitlines()[1:] if line.strip()]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return warn("ocr", f"tesseract failed: {exc}")
    if "eng" not in listed:
        return warn(
            "ocr",
            "no English language data for Tesseract",
            "sudo apt-get install tesseract-ocr-eng",
        )
    langs = [lang for lang in listed if lang != "osd"]
    return ok("ocr", f"languages: {', '.join(langs[:8])}")


def _check_input() -> CheckResult:
    """Whether synthetic input is permitted (X11 XTEST extension, pyautogui importable)."""
    if importlib.util.find_spec("pyautogui") is None:
        return warn(
            "input",
            "pyautogui not installed: ARIA cannot click or type",
            "pip install 'aria-desktop[computer]'",
        )
    try:
        from Xlib import display as xdisplay

        connection = xdisplay.Display()
        try:
            has_xtest = connection.has_extension("XTEST")
        finally:
            connection.close()
    except Exception as exc:
        return warn(
            "input",
            f"cannot connect to the X display: {exc}",
            "check DISPLAY and XAUTHORITY (xhost/xauth)",
        )
    if not has_xtest:
        return warn(
            "input",
            "the X server refuses synthetic input (no XTEST extension)",
            "enable the XTEST extension of your X server (Xorg: it is on by default)",
        )
    return ok("input", "synthetic mouse and keyboard allowed")
