"""The file operations inside the roots: listing, reading (caps, binary), writing without
clobbering, exact unique edits with a diff, moving, the freedesktop trash, finding."""

from __future__ import annotations

import configparser
import os
from urllib.parse import unquote

import pytest

from aria_desktop.domain.errors import FileOperationError
from tests.hands.conftest import Home


def test_listing_hides_dot_items_and_secret_stores(home: Home) -> None:
    listing = home.files.list_dir("~")
    names = [entry["name"] for entry in listing["entries"]]
    assert names == ["Documents", "Downloads"]  # folders first; aria-data excluded
    assert listing["not_shown"] == 3  # .ssh, .bashrc, aria-data


def test_reading_text_is_capped_and_continues_at_an_offset(home: Home) -> None:
    big = home.home / "Documents" / "big.txt"
    big.write_text("x" * (100 * 1024))
    first = home.files.read_text("Documents/big.txt")
    assert len(first["text"]) == 64 * 1024
    assert "offset=65536" in first["truncated"]
    rest = home.files.read_text("Documents/big.txt", offset=65536)
    assert len(rest["text"]) == 100 * 1024 - 65536
    assert "truncated" not in rest


def test_binary_files_are_refused_with_the_reason(home: Home) -> None:
    (home.home / "Documents" / "photo.jpg").write_bytes(b"\xff\xd8\xff\x00\x10JFIF")
    with pytest.raises(FileOperationError, match="binary file"):
        home.files.read_text("Documents/photo.jpg")
    (home.home / "Documents" / "latin1.txt").write_bytes(b"caf\xe9 au lait")
    with pytest.raises(FileOperationError, match="not UTF-8"):
        home.files.read_text("Documents/latin1.txt")


def test_writing_creates_but_never_silently_overwrites(home: Home) -> None:
    change = home.files.plan_write("Documents/new.txt", "hello\n", overwrite=False)
    assert change.created
    assert "+hello" in change.diff
    home.files.apply(change)
    assert (home.home / "Documents" / "new.txt").read_text() == "hello\n"
    with pytest.raises(FileOperationError, match="already exists"):
        home.files.plan_write("Documents/new.txt", "other\n", overwrite=False)
    # A plan made while the file was absent does not clobber a file that appeared since.
    late = home.files.plan_write("Documents/late.txt", "mine\n", overwrite=False)
    (home.home / "Documents" / "late.txt").write_text("theirs\n")
    with pytest.raises(FileOperationError, match="changed after"):
        home.files.apply(late)
    assert (home.home / "Documents" / "late.txt").read_text() == "theirs\n"


def test_an_edit_replaces_the_unique_text_and_returns_a_diff(home: Home) -> None:
    change = home.files.plan_edit("Documents/notes.txt", "beta\n", "BETA\n")
    assert "-beta" in change.diff
    assert "+BETA" in change.diff
    assert (home.home / "Documents" / "notes.txt").read_text() == "alpha\nbeta\ngamma\n"
    home.files.apply(change)
    assert (home.home / "Documents" / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"


def test_an_ambiguous_edit_says_where_and_changes_nothing(home: Home) -> None:
    (home.home / "Documents" / "todo.txt").write_text("- [ ] a\n- [ ] b\nnote\n- [ ] c\n")
    with pytest.raises(FileOperationError, match=r"occurs 3 times .*lines 1, 2, 4"):
        home.files.plan_edit("Documents/todo.txt", "- [ ]", "- [x]")
    with pytest.raises(FileOperationError, match="does not occur"):
        home.files.plan_edit("Documents/todo.txt", "missing", "x")


def test_an_edit_planned_on_a_file_that_changed_since_is_not_applied(home: Home) -> None:
    change = home.files.plan_edit("Documents/notes.txt", "beta", "BETA")
    (home.home / "Documents" / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\n")
    with pytest.raises(FileOperationError, match="changed after"):
        home.files.apply(change)
    assert "delta" in (home.home / "Documents" / "notes.txt").read_text()


def test_moving_renames_and_refuses_to_clobber(home: Home) -> None:
    home.files.move("Downloads/a.txt", "Documents/a-renamed.txt", overwrite=False)
    assert (home.home / "Documents" / "a-renamed.txt").read_text() == "a\n"
    with pytest.raises(FileOperationError, match="already exists"):
        home.files.move("Downloads/b.txt", "Documents/notes.txt", overwrite=False)
    assert (home.home / "Downloads" / "b.txt").exists()
    result = home.files.move("Downloads/b.txt", "Documents/notes.txt", overwrite=True)
    assert result["replaced_item_trashed"] == "~/Documents/notes.txt"
    trash = home.home / ".local" / "share" / "Trash"
    assert (trash / "files" / "notes.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_trashing_follows_the_freedesktop_spec_and_is_restorable(home: Home) -> None:
    (home.home / "Downloads" / "my file.txt").write_text("keep me\n")
    first = home.files.trash("Downloads/my file.txt")
    (home.home / "Downloads" / "my file.txt").write_text("second\n")
    second = home.files.trash("Downloads/my file.txt")
    assert first["trash_name"] != second["trash_name"]
    trash = home.home / ".local" / "share" / "Trash"
    for entry, text in ((first, "keep me\n"), (second, "second\n")):
        name = entry["trash_name"]
        assert (trash / "files" / name).read_text() == text
        info = configparser.ConfigParser(interpolation=None)
        info.read(trash / "info" / f"{name}.trashinfo")
        original = unquote(info["Trash Info"]["Path"])
        assert original == str(home.home / "Downloads" / "my file.txt")
        assert "%20" in info["Trash Info"]["Path"]
        assert len(info["Trash Info"]["DeletionDate"]) == 19
    assert not (home.home / "Downloads" / "my file.txt").exists()
    # Restoring is a rename back to the recorded path.
    os.rename(trash / "files" / first["trash_name"], home.home / "Downloads" / "my file.txt")
    assert (home.home / "Downloads" / "my file.txt").read_text() == "keep me\n"


def test_trashing_a_link_moves_the_link_not_its_target(home: Home) -> None:
    (home.home / "Downloads" / "shortcut").symlink_to(home.home / "Documents" / "notes.txt")
    home.files.trash("Downloads/shortcut")
    assert (home.home / "Documents" / "notes.txt").exists()
    assert (home.home / ".local" / "share" / "Trash" / "files" / "shortcut").is_symlink()


def test_finding_by_name_and_by_content(home: Home) -> None:
    (home.home / "Documents" / "sub").mkdir()
    (home.home / "Documents" / "sub" / "Report.PDF").write_bytes(b"%PDF\x00")
    (home.home / "Documents" / "sub" / "plan.md").write_text("one\nBudget for 2026\n")
    by_name = home.files.find("~", name="*.pdf")
    assert [m["path"] for m in by_name["matches"]] == ["~/Documents/sub/Report.PDF"]
    by_text = home.files.find("Documents", text="budget")
    assert by_text["matches"] == [
        {"path": "~/Documents/sub/plan.md", "lines": ["2: Budget for 2026"]}
    ]
    assert home.files.find("~", text="PRIVATE KEY")["matches"] == []  # ~/.ssh is skipped
