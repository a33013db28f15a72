"""The desktop as the everyday skills see it: installed apps, media players, the volume.

Plain values the desktop adapters (``adapters/skills/applications.py``, ``mpris.py``,
``volume.py``) return and the skills in ``core/skills/`` decide on, so neither side knows the
other's types (ARCHITECTURE.md: everyday skills).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ["AppEntry", "PlaybackStatus", "PlayerState", "VolumeState"]

PlaybackStatus = Literal["Playing", "Paused", "Stopped"]


@dataclass(frozen=True, kw_only=True)
class AppEntry:
    """One installed application, from its XDG ``.desktop`` entry.

    Attributes:
        app_id: the desktop file ID (``org.gnome.Calculator``), unique on the machine.
        name: ``Name`` (the name menus show).
        generic_name: ``GenericName`` ("Web Browser"), "" when absent.
        keywords: ``Keywords`` (search words the entry offers).
        localized_names: ``Name[xx]`` by language (``de``: "Taschenrechner"), so "öffne den
            Taschenrechner" finds the calculator and the reply names it so.
        localized_generic_names: ``GenericName[xx]`` by language.
        command: the program and its arguments, field codes (``%u``, ``%f``…) already removed.
        working_dir: ``Path`` (where the program starts), "" for the home folder.
    """

    app_id: str
    name: str
    generic_name: str = ""
    keywords: tuple[str, ...] = ()
    localized_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    localized_generic_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    command: tuple[str, ...] = ()
    working_dir: str = ""

    def name_in(self, language: str) -> str:
        """The name menus show in ``language`` (``Name[de]``), else ``Name``."""
        return self.localized_names.get(language.split("-")[0]) or self.name


@dataclass(frozen=True, kw_only=True)
class PlayerState:
    """A media player on the session bus (MPRIS) and what it is doing.

    Attributes:
        bus_name: its bus name (``org.mpris.MediaPlayer2.vlc``): how it is addressed.
        identity: the name it gives itself ("VLC media player"), shown and spoken.
        status: Playing, Paused or Stopped.
        title: the track's ``xesam:title`` ("" when it does not say).
        artists: the track's ``xesam:artist``.
        can_control: whether it takes commands at all (``CanControl``).
    """

    bus_name: str
    identity: str
    status: PlaybackStatus = "Stopped"
    title: str = ""
    artists: tuple[str, ...] = ()
    can_control: bool = True


@dataclass(frozen=True, kw_only=True)
class VolumeState:
    """The default speaker's volume.

    Attributes:
        percent: 0-100 (the sound server's scale: 100 is the device's full volume).
        muted: whether it is muted.
    """

    percent: int
    muted: bool = False
