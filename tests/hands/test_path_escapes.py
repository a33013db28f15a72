"""The path-escape corpus: every way out of the allowed roots is refused, nothing outside is
read or written (a temporary home; ``..``, absolute paths, links, hard links, NUL bytes,
secret stores, a link swapped in between check and use)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.domain.errors import FileOperationError, PathRefusedError, ToolError
from tests.hands.conftest import Home

Case = Callable[[Home], Any]


def _link(home: Home, name: str, target: Path) -> None:
    (home.home / name).symlink_to(target)


def _read(raw: str) -> Case:
    return lambda h: h.files.read_text(raw)


def _linked(name: str, target: Callable[[Home], Path], then: Case) -> Case:
    def case(h: Home) -> Any:
        _link(h, name, target(h))
        return then(h)

    return case


def _hard_link(h: Home) -> Any:
    os.link(h.outside / "secret.txt", h.home / "Documents" / "hard.txt")
    return h.files.read_text("Documents/hard.txt")


def _hard_link_edit(h: Home) -> Any:
    os.link(h.outside / "secret.txt", h.home / "Documents" / "hard2.txt")
    change = h.files.plan_edit("Documents/hard2.txt", "outside", "inside")
    return h.files.apply(change)


def _hard_link_as(name: str, then: Callable[[Home, str], Any]) -> Case:
    def case(h: Home) -> Any:
        os.link(h.outside / "secret.txt", h.home / "Documents" / name)
        return then(h, f"Documents/{name}")

    return case


def _write(raw: str, *, overwrite: bool = False) -> Case:
    return lambda h: h.files.apply(h.files.plan_write(raw, "pwned\n", overwrite=overwrite))


OUT: Callable[[Home], Path] = lambda h: h.outside  # noqa: E731
OUT_FILE: Callable[[Home], Path] = lambda h: h.outside / "secret.txt"  # noqa: E731
SSH: Callable[[Home], Path] = lambda h: h.home / ".ssh"  # noqa: E731

CORPUS: dict[str, Case] = {
    "dotdot-relative": _read("../outside/secret.txt"),
    "dotdot-after-tilde": _read("~/../outside/secret.txt"),
    "dotdot-chain": _read("Documents/../../outside/secret.txt"),
    "dotdot-deep-chain": _read("Documents/a/b/../../../../outside/secret.txt"),
    "absolute-outside": lambda h: h.files.read_text(str(h.outside / "secret.txt")),
    "absolute-system": _read("/etc/passwd"),
    "root-prefix-trick": lambda h: h.files.read_text(str(h.root / "home-evil" / "x.txt")),
    "nul-byte": _read("Documents/notes.txt\x00../../outside/secret.txt"),
    "nul-byte-write": _write("Documents/new\x00.txt"),
    "ssh-key": _read("~/.ssh/id_rsa"),
    "ssh-folder-list": lambda h: h.files.list_dir("~/.ssh"),
    "gnupg": _read("~/.gnupg/secring.gpg"),
    "keyring": _read("~/.local/share/keyrings/login.keyring"),
    "browser-profile": _read("~/.mozilla/firefox/abc.default/logins.json"),
    "chrome-profile": _read("~/.config/google-chrome/Default/Login Data"),
    "password-database": _read("~/Passwords.kdbx"),
    "aria-own-data": _read("~/aria-data/aria.db"),
    "hidden-dotfile": _read("~/.bashrc"),
    "symlinked-folder-out": _linked("out", OUT, _read("out/secret.txt")),
    "symlinked-file-out": _linked("s.txt", OUT_FILE, _read("s.txt")),
    "symlink-to-ssh": _linked("keys", SSH, _read("keys/id_rsa")),
    "symlinked-folder-list": _linked("out", OUT, lambda h: h.files.list_dir("out")),
    "symlinked-folder-find": _linked("out", OUT, lambda h: h.files.find("out", text="secret")),
    "hard-link-read": _hard_link,
    "hard-link-edit": _hard_link_edit,
    "write-through-symlinked-folder": _linked("out", OUT, _write("out/new.txt")),
    "write-onto-dangling-link": _linked(
        "dangling.txt", lambda h: h.outside / "created.txt", _write("dangling.txt", overwrite=True)
    ),
    "write-absolute-outside": lambda h: _write(str(h.outside / "new.txt"))(h),
    "edit-through-file-link": _linked(
        "e.txt", OUT_FILE, lambda h: h.files.plan_edit("e.txt", "outside", "inside")
    ),
    "trash-through-symlinked-folder": _linked(
        "out", OUT, lambda h: h.files.trash("out/secret.txt")
    ),
    "trash-outside-absolute": lambda h: h.files.trash(str(h.outside / "secret.txt")),
    "move-outside-in": lambda h: h.files.move(
        str(h.outside / "secret.txt"), "Documents/got.txt", overwrite=False
    ),
    "move-inside-out": lambda h: h.files.move(
        "Documents/notes.txt", "../outside/stolen.txt", overwrite=False
    ),
    "move-through-symlinked-folder": _linked(
        "out", OUT, lambda h: h.files.move("Documents/notes.txt", "out/stolen.txt", overwrite=False)
    ),
    "check-write-link-to-folder-out": _linked(
        "link-out", OUT, lambda h: h.files.check("link-out", write=True)
    ),
    "check-write-hard-link": _hard_link_as(
        "hard3.txt", lambda h, raw: h.files.check(raw, write=True)
    ),
    "overwrite-link-to-folder-out": _linked("link-out", OUT, _write("link-out", overwrite=True)),
    "overwrite-hard-link": _hard_link_as(
        "hard4.txt",
        lambda h, raw: h.files.apply(h.files.plan_write(raw, "pwned\n", overwrite=True)),
    ),
    "trash-the-root-itself": lambda h: h.files.trash("~"),
    "move-the-root-away": lambda h: h.files.move("~", "Documents/home", overwrite=False),
    "move-into-ssh": lambda h: h.files.move(
        "Documents/notes.txt", "~/.ssh/authorized_keys", overwrite=True
    ),
}


def _outside_listing(h: Home) -> set[str]:
    return {str(p) for p in h.outside.rglob("*")}


def test_the_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 25


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_escape_is_refused_and_nothing_outside_changes(home: Home, name: str) -> None:
    before, listing = home.outside_state(), _outside_listing(home)
    with pytest.raises(ToolError) as raised:
        CORPUS[name](home)
    assert isinstance(raised.value, (PathRefusedError, FileOperationError))
    if not isinstance(raised.value, PathRefusedError):
        # Only the dangling link is caught by O_EXCL/O_NOFOLLOW instead of the path rules.
        assert name == "write-onto-dangling-link", raised.value.message
    assert "secret" not in raised.value.message.lower() or "secret.txt" in raised.value.message
    assert home.outside_state() == before
    assert _outside_listing(home) == listing
    assert (home.home / "Documents" / "notes.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_a_folder_swapped_for_a_link_after_the_check_is_refused(home: Home) -> None:
    resolved = home.files.guard.resolve("Documents/notes.txt")
    (home.home / "Documents").rename(home.home / "Documents.bak")
    (home.home / "Documents").symlink_to(home.outside)
    (home.outside / "notes.txt").write_text("outside notes\n")
    with (
        pytest.raises(PathRefusedError, match="symbolic link"),
        home.files.guard.open_file(resolved),
    ):
        pass


def test_a_file_swapped_for_a_link_between_plan_and_apply_is_refused(home: Home) -> None:
    change = home.files.plan_edit("Documents/notes.txt", "beta", "BETA")
    target = home.home / "Documents" / "notes.txt"
    target.rename(home.home / "Documents" / "notes.bak")
    target.symlink_to(home.outside / "secret.txt")
    with pytest.raises(PathRefusedError):
        home.files.apply(change)
    assert (home.outside / "secret.txt").read_text() == "outside secret\n"


def test_find_does_not_walk_into_linked_folders(home: Home) -> None:
    _link(home, "out", home.outside)
    found = home.files.find("~", text="secret")
    assert found["matches"] == []
