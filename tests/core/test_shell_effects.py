"""The shell classifier on plain argv lists: every deleting or overwriting form asks, read-only
allow-listed commands run, secret stores are refused, unknown programs ask."""

from __future__ import annotations

import pytest

from aria_desktop.core.hands.classify import assess
from tests.hands.facts import HOME, DictFacts

FACTS = DictFacts(
    files=(f"{HOME}/notes.txt", f"{HOME}/Downloads/a.txt", f"{HOME}/Downloads/b.txt",
           f"{HOME}/code/app/main.py", f"{HOME}/report.pdf"),
    folders=(f"{HOME}/Downloads", f"{HOME}/code", f"{HOME}/code/app", f"{HOME}/aria-scratch"),
    links={f"{HOME}/keys": f"{HOME}/.ssh"},
)  # fmt: skip


def judge(argv: list[str], cwd: str = HOME) -> tuple[str, str, str]:
    result = assess(argv, cwd=cwd, facts=FACTS, scratch=f"{HOME}/aria-scratch")
    return result.verdict, result.rule, result.words()


DESTRUCTIVE = [
    ["rm", "notes.txt"],
    ["rm", "-rf", "Downloads"],
    ["/bin/rm", "-r", "--", "code"],
    ["rmdir", "Downloads"],
    ["unlink", "notes.txt"],
    ["shred", "-u", "notes.txt"],
    ["find", ".", "-name", "*.txt", "-delete"],
    ["find", "Downloads", "-type", "f", "-exec", "rm", "-f", "{}", ";"],
    ["rsync", "-a", "--delete", "code/", "Downloads/"],
    ["rsync", "-a", "--remove-source-files", "Downloads/", "code/"],
    ["git", "clean", "-fdx"],
    ["git", "-C", "code/app", "reset", "--hard", "HEAD~3"],
    ["git", "checkout", "--", "."],
    ["python3", "-c", "import shutil; shutil.rmtree('/home/ann/code')"],
    ["python", "-c", "import os; os.remove('notes.txt')"],
    ["node", "-e", "require('fs').rmSync('code', {recursive: true})"],
    ["perl", "-e", "unlink glob '*.txt'"],
    ["perl", "-pi", "-e", "s/a/b/", "notes.txt"],
    ["bash", "-c", "rm -rf ~/code"],
    ["sh", "-c", "echo hi > notes.txt"],
    ["xargs", "rm"],
    ["xargs", "-0", "rm", "-f"],
    ["truncate", "-s", "0", "notes.txt"],
    ["dd", "if=/dev/zero", "of=notes.txt", "bs=1k", "count=1"],
    ["mv", "Downloads/a.txt", "Downloads/b.txt"],
    ["mv", "notes.txt", "Downloads"],
    ["cp", "Downloads/a.txt", "notes.txt"],
    ["sed", "-i", "s/alpha/omega/", "notes.txt"],
    ["sort", "-o", "notes.txt", "notes.txt"],
    ["tee", "notes.txt"],
    ["sudo", "rm", "-rf", "/"],
    ["env", "LC_ALL=C", "rm", "notes.txt"],
    ["timeout", "10", "rm", "notes.txt"],
    ["nice", "-n", "5", "find", ".", "-delete"],
    ["gio", "trash", "notes.txt"],
    ["trash-put", "notes.txt"],
    ["gzip", "notes.txt"],
    ["mkfs.ext4", "/dev/sdb1"],
    ["ln", "-sf", "Downloads/a.txt", "notes.txt"],
    ["awk", '{ print > "notes.txt" }', "Downloads/a.txt"],
]


def test_the_deletion_corpus_is_big_enough() -> None:
    assert len(DESTRUCTIVE) >= 20


@pytest.mark.parametrize("argv", DESTRUCTIVE, ids=lambda a: " ".join(a)[:40])
def test_every_deleting_or_overwriting_form_needs_confirmation(argv: list[str]) -> None:
    verdict, rule, words = judge(argv)
    assert verdict in ("confirm", "deny"), (rule, words)
    assert rule != "shell:read-only"


@pytest.mark.parametrize(
    "argv",
    [
        ["ls", "-la"],
        ["cat", "notes.txt"],
        ["grep", "-rn", "TODO", "code"],
        ["find", "code", "-name", "*.py"],
        ["git", "status"],
        ["git", "-C", "code/app", "log", "--oneline", "-5"],
        ["wc", "-l", "notes.txt"],
        ["du", "-sh", "Downloads"],
        ["head", "-n", "3", "Downloads/a.txt"],
        ["sha256sum", "report.pdf"],
    ],
    ids=lambda a: " ".join(a),
)
def test_read_only_allow_listed_commands_run_without_asking(argv: list[str]) -> None:
    verdict, rule, _ = judge(argv)
    assert (verdict, rule) == ("allow", "shell:read-only")


@pytest.mark.parametrize(
    ("argv", "rule"),
    [
        (["make", "test"], "shell:unknown"),
        (["./build.sh"], "shell:unknown"),
        (["python3", "code/app/main.py"], "shell:unknown"),
        (["curl", "https://example.com"], "shell:network"),
        (["pip", "install", "requests"], "shell:installs"),
        (["python3", "-m", "pip", "install", "x"], "shell:installs"),
        (["chmod", "600", "notes.txt"], "shell:permissions"),
        (["python3", "-c", "print(1)"], "shell:inline_code"),
        (["cat", "/etc/hostname"], "shell:outside-roots"),
        (["cat", ".bashrc"], "shell:outside-roots"),
        (["touch", "aria-scratch/x"], "shell:writes_scratch"),
    ],
)
def test_other_effects_ask_and_name_their_kind(argv: list[str], rule: str) -> None:
    assert judge(argv)[:2] == ("confirm", rule)


@pytest.mark.parametrize(
    "argv",
    [["cat", "~/.ssh/id_rsa"], ["cat", "keys/id_rsa"], ["cp", "~/.gnupg/x", "."], ["ls", "x.kdbx"]],
)
def test_secret_stores_are_refused_even_for_reading(argv: list[str]) -> None:
    assert judge(argv)[:2] == ("deny", "shell:protected-path")


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "-c", "core.pager=rm -rf ~", "log"],
        ["git", "-c", "core.fsmonitor=./evil", "status"],
        ["git", "diff", "--output=notes.txt"],
        ["git", "grep", "-O", "vim", "todo"],
        ["rg", "--pre", "./evil.sh", "todo"],
        ["sort", "--compress-program=./evil", "notes.txt"],
    ],
    ids=lambda a: " ".join(a)[:40],
)
def test_read_only_programs_told_to_run_other_programs_ask(argv: list[str]) -> None:
    verdict, rule, _ = judge(argv)
    assert verdict == "confirm"
    assert rule != "shell:read-only"


def test_a_working_folder_outside_the_roots_is_refused() -> None:
    assert judge(["ls"], cwd="/etc")[:2] == ("deny", "shell:cwd")


def test_bad_argv_is_refused() -> None:
    assert judge([])[0] == "deny"
    assert judge(["ls", "a\x00b"])[0] == "deny"


def test_the_effect_is_said_in_words() -> None:
    _, _, words = judge(["rm", "Downloads/a.txt", "Downloads/b.txt", "notes.txt"])
    assert words == "deletes 3 files in ~"
    _, _, words = judge(["rm", "Downloads/a.txt", "Downloads/b.txt"])
    assert words == "deletes 2 files in ~/Downloads"
    _, _, words = judge(["mv", "Downloads/a.txt", "Downloads/b.txt"])
    assert "overwrites the existing ~/Downloads/b.txt" in words
