"""The installed applications, from their XDG ``.desktop`` entries, and starting one.

Entries are read from ``$XDG_DATA_HOME/applications`` (default ``~/.local/share``) and each
``$XDG_DATA_DIRS/applications`` (default ``/usr/local/share:/usr/share``), the user's first: an
entry there with the same desktop file ID overrides the system's, and ``Hidden=true`` removes it.
Menus hide ``NoDisplay`` entries and those ``OnlyShowIn``/``NotShowIn`` keep from this desktop
(``$XDG_CURRENT_DESKTOP``); so does ARIA. The folders are read again only when one changed
(an entry added, removed or replaced, as installers do), so asking the catalog for every
sentence costs a few ``stat`` calls.

An app starts as a menu starts it: field codes (``%u``, ``%F``…) dropped from ``Exec``, in a
session of its own, with no stdin/stdout/stderr of ARIA's and not as ARIA's child (a short
``sh`` in between exits at once, so the app is handed to init and never left a zombie).
"""

from __future__ import annotations

import asyncio
import configparser
import logging
import os
import shlex
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from aria_desktop.domain.desktop import AppEntry

__all__ = ["XdgAppCatalog", "XdgAppLauncher", "application_dirs", "exec_arguments"]

_LOGGER = logging.getLogger(__name__)
_GROUP = "Desktop Entry"
_TERMINALS = ("x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "xterm")
_LAUNCH_TIMEOUT_S = 5.0
_DETACH = '"$@" </dev/null >/dev/null 2>&1 &'
"""``sh -c`` script: start the app in the background and exit (the app goes to init)."""


def application_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """The ``applications`` folders, most important first (the user's, then the system's)."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    data_home = env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    data_dirs = env.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    folders = [data_home, *(d for d in data_dirs.split(":") if d)]
    return [Path(folder) / "applications" for folder in dict.fromkeys(folders)]


def _unescape(value: str) -> str:
    """The desktop-entry string escapes (backslash s, n, t, r and a doubled backslash)."""
    out, chars = [], iter(value)
    table = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append(table.get(following, "\\" + following))
        else:
            out.append(char)
    return "".join(out)


def _expand_codes(argument: str, *, name: str, icon: str, location: str) -> list[str]:
    """One ``Exec`` argument with its field codes replaced (``%i`` may become two)."""
    if argument == "%i":
        return ["--icon", icon] if icon else []
    out: list[str] = []
    index = 0
    while index < len(argument):
        char = argument[index]
        code = argument[index + 1] if char == "%" and index + 1 < len(argument) else ""
        if char != "%":
            out.append(char)
        elif code == "%":
            out.append("%")
        elif code == "c":
            out.append(name)
        elif code == "k":
            out.append(location)
        elif code == "i":
            out.append(icon)
        index += 2 if char == "%" else 1  # %f %u %F %U, deprecated and unknown codes: dropped
    expanded = "".join(out)
    return [expanded] if expanded else []


def exec_arguments(
    exec_line: str, *, name: str = "", icon: str = "", location: str = ""
) -> list[str]:
    """``Exec`` as a program and its arguments, with no field code left.

    ``firefox %u`` -> ``["firefox"]``; ``"/opt/My App/run" --name=%c`` -> the quoted path and
    ``--name=<Name>``. Quoting follows the specification (double quotes, backslash escapes).
    """
    try:
        words = shlex.split(_unescape(exec_line), posix=True)
    except ValueError:
        return []
    argv: list[str] = []
    for word in words:
        argv.extend(_expand_codes(word, name=name, icon=icon, location=location))
    return argv


def _localized(section: Mapping[str, str], key: str) -> dict[str, str]:
    """``Name[de_DE@euro]`` and friends by language (``de``); the first one wins."""
    found: dict[str, str] = {}
    for option, value in section.items():
        if option.startswith(key + "[") and option.endswith("]"):
            locale = option[len(key) + 1 : -1]
            language = locale.split("_")[0].split("@")[0].split(".")[0]
            found.setdefault(language, _unescape(value).strip())
    return found


def _list(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in _unescape(value).split(";") if part.strip())


@dataclass(frozen=True)
class _Read:
    """An entry as read: the app, or None when it is hidden here (and hides the ID)."""

    app: AppEntry | None


def _shown_here(section: Mapping[str, str], desktops: set[str]) -> bool:
    only = {d.lower() for d in _list(section.get("OnlyShowIn", ""))}
    never = {d.lower() for d in _list(section.get("NotShowIn", ""))}
    if only and not only & desktops:
        return False
    return not never & desktops


def _read_entry(path: Path, app_id: str, desktops: set[str]) -> _Read:
    parser = configparser.RawConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read(path, encoding="utf-8")
        section = dict(parser[_GROUP]) if parser.has_section(_GROUP) else {}
    except (configparser.Error, OSError, UnicodeDecodeError):
        _LOGGER.debug("Unreadable desktop entry %s", path, exc_info=True)
        return _Read(None)
    if section.get("Type", "Application") != "Application" or section.get("Hidden") == "true":
        return _Read(None)
    if section.get("NoDisplay") == "true" or not _shown_here(section, desktops):
        return _Read(None)
    try_exec = section.get("TryExec", "").strip()
    if try_exec and shutil.which(try_exec) is None:
        return _Read(None)
    name = _unescape(section.get("Name", "")).strip()
    argv = exec_arguments(
        section.get("Exec", ""), name=name, icon=section.get("Icon", ""), location=str(path)
    )
    if not name or not argv or shutil.which(argv[0]) is None:
        return _Read(None)
    if section.get("Terminal") == "true":
        terminal = next((t for t in _TERMINALS if shutil.which(t)), None)
        if terminal is None:
            return _Read(None)  # a terminal program with no terminal to show it in
        argv = [terminal, "-e", *argv]
    app = AppEntry(
        app_id=app_id,
        name=name,
        generic_name=_unescape(section.get("GenericName", "")).strip(),
        keywords=_list(section.get("Keywords", "")),
        localized_names=MappingProxyType(_localized(section, "Name")),
        localized_generic_names=MappingProxyType(_localized(section, "GenericName")),
        command=tuple(argv),
        working_dir=section.get("Path", "").strip(),
    )
    return _Read(app)


class XdgAppCatalog:
    """The app catalog port (``core/skills/apps.py``) over the XDG application folders."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        """Read the folders ``env`` names (default: this process's environment, when asked)."""
        self._env = env
        self._lock = threading.Lock()
        self._stamp: tuple[str, ...] | None = None
        self._apps: tuple[AppEntry, ...] = ()

    def apps(self) -> Sequence[AppEntry]:
        """Every app a menu shows here, by name; re-read only when a folder changed."""
        env = os.environ if self._env is None else self._env
        folders = application_dirs(env)
        stamp = (
            env.get("XDG_CURRENT_DESKTOP", ""),
            *(f"{folder}@{_tree_mtime(folder)!r}" for folder in folders),
        )
        with self._lock:
            if stamp != self._stamp:
                self._apps = self._scan(folders, env)
                self._stamp = stamp
            return self._apps

    @staticmethod
    def _scan(folders: Sequence[Path], env: Mapping[str, str]) -> tuple[AppEntry, ...]:
        desktops = {d.lower() for d in env.get("XDG_CURRENT_DESKTOP", "").split(":") if d}
        seen: dict[str, AppEntry | None] = {}
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*.desktop")):
                app_id = str(path.relative_to(folder).with_suffix("")).replace(os.sep, "-")
                if app_id not in seen:  # the first folder with an ID decides, even "hidden"
                    seen[app_id] = _read_entry(path, app_id, desktops).app
        apps = [app for app in seen.values() if app is not None]
        _LOGGER.debug("%d installed apps in %d folders", len(apps), len(folders))
        return tuple(sorted(apps, key=lambda app: (app.name.lower(), app.app_id)))


def _tree_mtime(folder: Path) -> float:
    """The latest change in ``folder`` and its sub-folders (0 when it does not exist)."""
    try:
        latest = folder.stat().st_mtime
    except OSError:
        return 0.0
    for sub in folder.iterdir() if folder.is_dir() else ():
        if sub.is_dir():
            latest = max(latest, _tree_mtime(sub))
    return latest


class XdgAppLauncher:
    """The app launcher port: starts an entry's command detached from ARIA."""

    async def launch(self, app: AppEntry) -> bool:
        """Start ``app``; False when its program is gone or the start failed."""
        return await asyncio.to_thread(self._launch, app)

    @staticmethod
    def _launch(app: AppEntry) -> bool:
        if not app.command or shutil.which(app.command[0]) is None:
            _LOGGER.warning("Cannot start %s: %s is not installed", app.app_id, app.command[:1])
            return False
        folder = app.working_dir if app.working_dir and os.path.isdir(app.working_dir) else None
        try:
            starter = subprocess.Popen(
                ["/bin/sh", "-c", _DETACH, "aria-open", *app.command],
                cwd=folder or os.path.expanduser("~"),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
            status = starter.wait(timeout=_LAUNCH_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            _LOGGER.warning("Could not start %s", app.app_id, exc_info=True)
            return False
        _LOGGER.info("Opened %s (%s)", app.name, app.app_id)
        return status == 0
