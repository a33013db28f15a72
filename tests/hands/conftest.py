"""A temporary home folder with secret stores, and a folder outside it, for the hands tests."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from aria_desktop.adapters.hands.files import SandboxedFiles
from aria_desktop.core.hands.toolkit import Hands
from aria_desktop.domain.sandbox import Sandbox


@dataclass
class Home:
    """The temporary home, the folder outside it, and files the tests check stay untouched."""

    root: Path
    home: Path
    outside: Path
    files: SandboxedFiles

    def outside_state(self) -> dict[str, bytes]:
        """Every file outside the home (and in its secret stores) with its bytes."""
        state = {}
        for folder in (self.outside, self.home / ".ssh", self.home / "aria-data"):
            for path in sorted(folder.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    state[str(path)] = path.read_bytes()
        return state


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return build_home(tmp_path)


def build_home(tmp_path: Path) -> Home:
    """Lay out the temporary home (documents, downloads, secret stores) and the outside."""
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    outside = root / "outside"
    (home / "Documents").mkdir(parents=True)
    (home / "Downloads").mkdir()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".bashrc").write_text("export X=1\n")
    (home / "aria-data").mkdir()
    (home / "aria-data" / "aria.db").write_text("db")
    (home / "Documents" / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (home / "Downloads" / "a.txt").write_text("a\n")
    (home / "Downloads" / "b.txt").write_text("b\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret\n")
    (root / "home-evil").mkdir()
    (root / "home-evil" / "x.txt").write_text("prefix trick\n")
    sandbox = Sandbox(home=str(home), roots=(str(home),), excluded=(str(home / "aria-data"),))
    files = SandboxedFiles(
        sandbox,
        read_max_bytes=64 * 1024,
        trash_home=str(home / ".local" / "share" / "Trash"),
    )
    return Home(root=root, home=home, outside=outside, files=files)


def make_hands(home: Home, *, shell_enabled: bool = True, output_dir: Path | None = None) -> Hands:
    """The file and shell tools over ``home`` (the shell runs in the home by default)."""
    from aria_desktop.adapters.hands.facts import LocalPathFacts
    from aria_desktop.adapters.hands.shell import ShellRunner
    from aria_desktop.core.hands.file_tools import FileTools
    from aria_desktop.core.hands.shell_tool import ShellConfig, ShellTools

    runner = ShellRunner(
        output_dir or home.root / "outputs", keep_bytes=4096, store_max_bytes=1_000_000
    )
    shell = ShellTools(
        runner,
        fs=home.files,
        facts=LocalPathFacts(home.files.guard.sandbox),
        config=ShellConfig(scratch=str(home.home / "aria-scratch"), default_timeout_s=20.0),
    )
    return Hands(
        files=FileTools(home.files, home=str(home.home)), shell=shell, shell_enabled=shell_enabled
    )
