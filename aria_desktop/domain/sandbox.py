"""Where the file and shell tools may reach: the pure path rules, no I/O.

The allowed roots, the secret stores inside them and the lexical checks (NUL bytes, ``..``,
root + separator containment) are decided here once, for the file tools' adapter
(``adapters/hands/files.py``, which resolves links and opens by directory descriptors), the shell
classifier (``core/hands/effects.py``) and ``aria tools check path`` (ARCHITECTURE.md: safety).
Every function takes absolute, already normalised strings so it can be tested with plain lists.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

__all__ = [
    "PASSWORD_DB_SUFFIXES",
    "SECRET_STORES",
    "Sandbox",
    "inside",
    "lexical_problem",
    "protected",
    "refusal",
    "shorten",
]

SECRET_STORES = (
    ".ssh",
    ".gnupg",
    ".pki",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".mozilla",
    ".thunderbird",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    ".config/keepassxc",
    ".config/Bitwarden",
    ".config/1Password",
    ".aws",
    ".kube",
    ".docker",
    "snap/firefox",
    "snap/chromium",
    "snap/thunderbird",
    ".var/app",
)
"""Secret stores below the home folder, refused even when dot-folders are allowed."""

PASSWORD_DB_SUFFIXES = (
    ".kdbx",
    ".kdb",
    ".psafe3",
    ".opvault",
    ".agilekeychain",
    ".keychain",
    ".keychain-db",
    ".1pif",
)
"""Password-manager database files, refused wherever they are."""

_MAX_PATH_CHARS = 4096


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """The folders the tools may use.

    Attributes:
        home: the user's home folder (absolute, links resolved); ``~`` expands to it.
        roots: allowed folders (absolute, links resolved); relative paths start at the first.
        excluded: folders never reachable (secret stores, ARIA's own data), absolute.
        allow_hidden: dot-folders and dot-files below a root are reachable.
    """

    home: str
    roots: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    allow_hidden: bool = False

    def expand(self, raw: str, *, base: str | None = None) -> str:
        """``raw`` as an absolute normalised path (``~`` expanded, relative to ``base``).

        Call :func:`lexical_problem` first: ``..`` would be folded here.
        """
        if raw == "~" or raw.startswith("~/"):
            raw = self.home + raw[1:]
        if not posixpath.isabs(raw):
            start = base or (self.roots[0] if self.roots else self.home)
            raw = posixpath.join(start, raw)
        return posixpath.normpath(raw).replace("//", "/")


def lexical_problem(raw: str) -> str | None:
    """Why ``raw`` is refused before it is resolved (None: it may be resolved)."""
    if not raw:
        return "the path is empty"
    if "\x00" in raw:
        return "the path contains a NUL byte"
    if len(raw) > _MAX_PATH_CHARS:
        return f"the path is longer than {_MAX_PATH_CHARS} characters"
    if ".." in raw.split("/"):
        return "the path contains '..' (give the folder itself instead)"
    return None


def inside(path: str, root: str) -> bool:
    """``path`` is ``root`` or below it (compared against root + separator, never a prefix)."""
    if root == "/":
        return path.startswith("/")
    return path == root or path.startswith(root.rstrip("/") + "/")


def _root_of(path: str, roots: tuple[str, ...]) -> str | None:
    matches = [root for root in roots if inside(path, root)]
    return max(matches, key=len) if matches else None


def refusal(path: str, sandbox: Sandbox) -> str | None:
    """Why the resolved absolute ``path`` is out of reach (None: it is allowed)."""
    root = _root_of(path, sandbox.roots)
    if root is None:
        allowed = ", ".join(shorten(r, sandbox.home) for r in sandbox.roots) or "none"
        return f"{shorten(path, sandbox.home)} is outside the allowed folders ({allowed})"
    secret = protected(path, sandbox)
    if secret:
        return secret
    if not sandbox.allow_hidden:
        relative = path[len(root) :].strip("/")
        hidden = [part for part in relative.split("/") if part.startswith(".")]
        if hidden:
            return (
                f"{shorten(path, sandbox.home)} is inside a hidden item ({hidden[0]}); "
                "hidden files and folders are not reachable"
            )
    return None


def protected(path: str, sandbox: Sandbox) -> str | None:
    """Why ``path`` is a secret store, a password database or excluded (None: it is not).

    Checked wherever the path is, inside the roots or not: the shell classifier refuses these
    outright where it only asks about other paths outside the roots.
    """
    for store in (*(posixpath.join(sandbox.home, s) for s in SECRET_STORES), *sandbox.excluded):
        if inside(path, store):
            where = shorten(store, sandbox.home)
            return f"{shorten(path, sandbox.home)} is in a protected folder ({where})"
    if path.lower().endswith(PASSWORD_DB_SUFFIXES):
        return f"{shorten(path, sandbox.home)} is a password-manager database"
    return None


def shorten(path: str, home: str) -> str:
    """``path`` with the home folder written as ``~`` (for messages the user reads)."""
    if inside(path, home):
        return "~" + path[len(home.rstrip("/")) :]
    return path
