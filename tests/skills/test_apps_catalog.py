"""The installed apps as ARIA reads them: real XDG ``.desktop`` files in temporary data folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aria_desktop.adapters.skills.applications import (
    XdgAppCatalog,
    application_dirs,
    exec_arguments,
)
from tests.skills.desktop_parts import write_app


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The user's data folder and one system data folder, and nothing else."""
    user, system = tmp_path / "home-share", tmp_path / "usr-share"
    monkeypatch.setenv("XDG_DATA_HOME", str(user))
    monkeypatch.setenv("XDG_DATA_DIRS", str(system))
    monkeypatch.delenv("XDG_CURRENT_DESKTOP", raising=False)
    return user, system


def _by_id(catalog: XdgAppCatalog) -> dict[str, object]:
    return {app.app_id: app for app in catalog.apps()}


def test_the_user_folder_comes_first_then_the_system_ones(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_DIRS": "/opt/share:/usr/share"}
    assert application_dirs(env) == [
        tmp_path / ".local/share/applications",
        Path("/opt/share/applications"),
        Path("/usr/share/applications"),
    ]
    assert application_dirs({"HOME": "/h"})[1:] == [
        Path("/usr/local/share/applications"),
        Path("/usr/share/applications"),
    ]


def test_an_entry_gives_its_names_keywords_and_the_command_without_field_codes(
    folders: tuple[Path, Path],
) -> None:
    _, system = folders
    write_app(
        system,
        "org.example.Browser",
        name="Example Browser",
        command="/bin/true --new-window %U",
        extra=(
            "GenericName=Web Browser\nName[de]=Beispiel-Browser\nGenericName[de_DE]=Webbrowser\n"
            "Keywords=web;internet;\nIcon=example\nPath=/tmp\n"
        ),
    )
    (app,) = XdgAppCatalog().apps()
    assert app.app_id == "org.example.Browser"
    assert app.name == "Example Browser"
    assert app.generic_name == "Web Browser"
    assert app.keywords == ("web", "internet")
    assert app.localized_names["de"] == "Beispiel-Browser"
    assert app.localized_generic_names["de"] == "Webbrowser"
    assert app.name_in("de") == "Beispiel-Browser"
    assert app.name_in("fr") == "Example Browser"
    assert app.command == ("/bin/true", "--new-window")
    assert app.working_dir == "/tmp"


@pytest.mark.parametrize(
    ("exec_line", "expected"),
    [
        ("firefox %u", ["firefox"]),
        ("app %F --x", ["app", "--x"]),
        ('"/opt/My App/run" --name=%c %i', ["/opt/My App/run", "--name=My App", "--icon", "ic"]),
        ('sh -c "echo \\\\"hi\\\\""', ["sh", "-c", 'echo "hi"']),
        ("app --percent=100%% %d %D %n %N %v %m", ["app", "--percent=100%"]),
        ("app --where=%k", ["app", "--where=/x.desktop"]),
        ('app "unclosed', []),
    ],
)
def test_exec_lines_are_split_as_the_specification_says(
    exec_line: str, expected: list[str]
) -> None:
    assert exec_arguments(exec_line, name="My App", icon="ic", location="/x.desktop") == expected


def test_entries_menus_hide_are_not_apps(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, system = folders
    write_app(system, "shown", name="Shown", command="/bin/true")
    write_app(system, "nodisplay", name="Helper", command="/bin/true", extra="NoDisplay=true\n")
    write_app(system, "hidden", name="Gone", command="/bin/true", extra="Hidden=true\n")
    write_app(system, "kde-only", name="KDE Thing", command="/bin/true", extra="OnlyShowIn=KDE;\n")
    write_app(
        system, "not-gnome", name="Not GNOME", command="/bin/true", extra="NotShowIn=GNOME;\n"
    )
    write_app(system, "tryexec", name="Absent", command="/bin/true", extra="TryExec=no-such-x\n")
    write_app(system, "no-program", name="Broken", command="/no/such/program --x")
    (system / "applications" / "link.desktop").write_text(
        "[Desktop Entry]\nType=Link\nName=A Link\nURL=https://example.org\n", encoding="utf-8"
    )
    (system / "applications" / "garbage.desktop").write_bytes(b"\xff\xfe not an entry")
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")
    assert sorted(_by_id(XdgAppCatalog())) == ["shown"]
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "KDE")
    assert sorted(_by_id(XdgAppCatalog())) == ["kde-only", "not-gnome", "shown"]


def test_the_users_entry_overrides_and_hides_the_systems(folders: tuple[Path, Path]) -> None:
    user, system = folders
    write_app(system, "editor", name="System Editor", command="/bin/true")
    write_app(user, "editor", name="My Editor", command="/bin/true")
    write_app(system, "game", name="Game", command="/bin/true")
    write_app(user, "game", name="Game", command="/bin/true", extra="Hidden=true\n")
    write_app(system, "kde/konsole", name="Konsole", command="/bin/true")
    apps = _by_id(XdgAppCatalog())
    assert sorted(apps) == ["editor", "kde-konsole"]
    assert apps["editor"].name == "My Editor"  # type: ignore[attr-defined]


def test_a_newly_installed_app_is_seen_without_a_restart(folders: tuple[Path, Path]) -> None:
    _, system = folders
    catalog = XdgAppCatalog()
    assert catalog.apps() == ()
    write_app(system, "new", name="New App", command="/bin/true")
    assert [app.name for app in catalog.apps()] == ["New App"]
    first = catalog.apps()
    assert catalog.apps() is first  # nothing changed: not read again
    os.remove(system / "applications" / "new.desktop")
    assert catalog.apps() == ()
