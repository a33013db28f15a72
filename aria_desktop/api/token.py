"""The API's bearer token: one random secret in a file only the user can read.

The file is created at first start (0600, in a 0700 directory) and replaced atomically on
rotation. The server re-reads it whenever the file changes (a ``stat`` per request, about a
microsecond), so ``aria token rotate`` locks out the old token at once, even while ARIA runs.
The token is never logged, never put in argv and never in a child's environment; clients read
the same file.
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
import stat
import tempfile
from pathlib import Path

from aria_desktop.domain.errors import ApiAuthError

__all__ = ["TokenFile"]

_LOGGER = logging.getLogger(__name__)
_TOKEN_BYTES = 32


class TokenFile:
    """The token file at ``path`` (its directory is made private: 0700).

    Args:
        path: the file, e.g. ``<config_dir>/api/token``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cached: bytes | None = None
        self._signature: tuple[int, int, int] | None = None

    def _private_dir(self) -> None:
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if stat.S_IMODE(directory.stat().st_mode) != 0o700:
            os.chmod(directory, 0o700)

    def _write(self, token: str) -> None:
        self._private_dir()
        fd, tmp = tempfile.mkstemp(prefix=".token.", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(token + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._signature = None

    def ensure(self) -> None:
        """Create the token if there is none; replace one that others could read."""
        self._private_dir()
        try:
            mode = stat.S_IMODE(self.path.stat().st_mode)
        except FileNotFoundError:
            self._write(secrets.token_urlsafe(_TOKEN_BYTES))
            _LOGGER.info("Created the API token file %s", self.path)
            return
        if mode & 0o077:
            _LOGGER.warning(
                "The API token file %s was readable by others (mode %o); issued a new token",
                self.path,
                mode,
            )
            self._write(secrets.token_urlsafe(_TOKEN_BYTES))

    def rotate(self) -> str:
        """Replace the token; the old one stops working at once. Returns the new token."""
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        self._write(token)
        _LOGGER.info("The API token was rotated")
        return token

    def read(self) -> str:
        """The token, for clients.

        Raises:
            ApiAuthError: the file is missing, unreadable or readable by other users.
        """
        try:
            info = self.path.stat()
            if stat.S_IMODE(info.st_mode) & 0o077:
                raise ApiAuthError(
                    f"The API token file {self.path} is readable by other users.",
                    hint="Run `aria token rotate` to replace it with a private one.",
                )
            token = self.path.read_text(encoding="ascii").strip()
        except OSError as exc:
            raise ApiAuthError(
                f"Could not read the API token file {self.path}: {exc.strerror or exc}.",
                hint="Start ARIA once (`aria daemon`) to create it, or run `aria token rotate`.",
            ) from None
        if not token:
            raise ApiAuthError(
                f"The API token file {self.path} is empty.", hint="Run `aria token rotate`."
            )
        return token

    def matches(self, candidate: bytes) -> bool:
        """Whether ``candidate`` is the current token (constant-time; re-reads on change)."""
        expected = self._current()
        if not expected:
            return False
        return hmac.compare_digest(candidate, expected)

    def session_value(self) -> bytes | None:
        """The docs page's cookie value: derived from the token, never the token itself.

        A browser cannot send a bearer header when it opens ``/docs``; it keeps this value in
        an HttpOnly cookie instead. Rotating the token ends every such session.
        """
        token = self._current()
        if not token:
            return None
        return hmac.new(token, b"aria-docs-session", "sha256").hexdigest().encode()

    def matches_session(self, candidate: bytes) -> bool:
        """Whether ``candidate`` is the current docs session value (constant-time)."""
        expected = self.session_value()
        return expected is not None and hmac.compare_digest(candidate, expected)

    def _current(self) -> bytes | None:
        """The current token's bytes (re-read when the file changed), None when unreadable."""
        try:
            info = self.path.stat()
        except OSError:
            self._cached, self._signature = None, None
            return None
        signature = (info.st_ino, info.st_mtime_ns, info.st_size)
        if signature != self._signature:
            try:
                self._cached = self.path.read_bytes().strip()
            except OSError:
                self._cached = None
            self._signature = signature
        return self._cached
