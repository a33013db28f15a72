"""Where ARIA keeps its files.

Every on-disk location goes through this module, so a portable install or a test can move all
of them with three environment variables (``ARIA_CONFIG_DIR``, ``ARIA_DATA_DIR``,
``ARIA_STATE_DIR``; ``ARIA_RUNTIME_DIR`` moves the runtime directory too, ``ARIA_CACHE_DIR``
the cache). This is the only
module that imports ``platformdirs``.

Directories are created on demand with mode 0700: they hold conversations, the audit log and
possibly secrets, which no other local user should read. Existing directories are left as the
user made them.

The audit checkpoint deliberately lives in a different directory (the state directory) than the
audit log (the data directory): someone who truncates or replaces the log's directory does not
take the checkpoint with it, so the truncation stays detectable.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

import platformdirs

__all__ = [
    "APP_NAME",
    "api_token_path",
    "audit_checkpoint_path",
    "audit_log_path",
    "cache_dir",
    "config_dir",
    "data_dir",
    "database_path",
    "default_log_file",
    "ensure_private_dir",
    "model_cache_dir",
    "ocr_cache_dir",
    "resource_path",
    "runtime_dir",
    "secrets_file",
    "settings_file",
    "state_dir",
]

_LOGGER = logging.getLogger(__name__)

APP_NAME = "aria-desktop"
"""Application name used for platform directories and the keyring service."""

_PRIVATE_DIR_MODE = 0o700


def _platform_dirs() -> platformdirs.PlatformDirs:
    return platformdirs.PlatformDirs(APP_NAME, appauthor=False)


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) if needed; a newly created leaf gets mode 0700.

    ``mkdir(mode=...)`` is filtered by the umask, so the mode is set explicitly afterwards. A
    directory that already exists keeps its mode: the user may have chosen it on purpose.

    Args:
        path: the directory to create.

    Returns:
        ``path``, for chaining.
    """
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=_PRIVATE_DIR_MODE)
        os.chmod(path, _PRIVATE_DIR_MODE)
        _LOGGER.debug("created directory %s", path)
    return path


def _from_env(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    return Path(value).expanduser().absolute()


def config_dir() -> Path:
    """Directory of ``settings.toml`` (and the opt-in secrets file); ``ARIA_CONFIG_DIR`` wins."""
    path = _from_env("ARIA_CONFIG_DIR") or Path(_platform_dirs().user_config_dir)
    return ensure_private_dir(path)


def data_dir() -> Path:
    """Directory of the database and the audit log; ``ARIA_DATA_DIR`` wins."""
    path = _from_env("ARIA_DATA_DIR") or Path(_platform_dirs().user_data_dir)
    return ensure_private_dir(path)


def state_dir() -> Path:
    """Directory of logs and the audit checkpoint; ``ARIA_STATE_DIR`` wins."""
    path = _from_env("ARIA_STATE_DIR") or Path(_platform_dirs().user_state_dir)
    return ensure_private_dir(path)


def runtime_dir() -> Path:
    """Directory of sockets, the owner lock file and other per-boot files.

    ``ARIA_RUNTIME_DIR`` wins. Without ``XDG_RUNTIME_DIR`` platformdirs falls back to a
    directory under /tmp and warns; the warning is silenced here because the fallback is fine
    for us (the directory is created 0700).
    """
    path = _from_env("ARIA_RUNTIME_DIR")
    if path is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = Path(_platform_dirs().user_runtime_dir)
    return ensure_private_dir(path)


def settings_file() -> Path:
    """The user's settings file, ``<config_dir>/settings.toml`` (may not exist yet)."""
    return config_dir() / "settings.toml"


def secrets_file() -> Path:
    """The opt-in plain-text secrets file, ``<config_dir>/secrets.toml`` (mode 0600).

    Used only when the user explicitly asks for it (``--insecure-file``) because no system
    keyring is usable.
    """
    return config_dir() / "secrets.toml"


def database_path() -> Path:
    """The SQLite database, ``<data_dir>/aria.db``."""
    return data_dir() / "aria.db"


def audit_log_path() -> Path:
    """The hash-chained audit log, ``<data_dir>/audit/audit.jsonl``."""
    return ensure_private_dir(data_dir() / "audit") / "audit.jsonl"


def audit_checkpoint_path() -> Path:
    """The audit checkpoint, ``<state_dir>/audit.checkpoint``.

    Kept in a different directory than the log so that truncating the log (or replacing its
    directory) does not also roll back the checkpoint.
    """
    return state_dir() / "audit.checkpoint"


def default_log_file() -> Path:
    """The application log used when ``log.file`` is empty, ``<state_dir>/aria.log``."""
    return state_dir() / "aria.log"


def _package_dir() -> Path:
    return Path(__file__).resolve().parent


def _checkout_resources_dir() -> Path | None:
    """``<repo>/resources`` when running from a source checkout (or an editable install).

    The repository root is recognised by its ``pyproject.toml``: without that marker a
    ``resources`` directory next to an installed package would be some other project's
    (``site-packages/resources``), not ours.
    """
    root = _package_dir().parent
    candidate = root / "resources"
    if (root / "pyproject.toml").is_file() and candidate.is_dir():
        return candidate
    return None


def resource_path(name: str) -> Path:
    """Path of a file shipped in ``resources/`` (icons, sounds, default settings, licences).

    Lookup order: the ``resources/`` directory of a source checkout first, so developers see
    their edits without reinstalling; then ``aria_desktop/resources/`` inside the installed
    package (the wheel must map the top-level ``resources/`` there). Zipped installs are not
    supported: resources must be real files because some consumers (Qt, audio players) need
    paths.

    Args:
        name: a relative path inside ``resources/``, e.g. ``"default-settings.toml"``.

    Returns:
        The absolute path of the existing file or directory.

    Raises:
        ValueError: ``name`` is absolute or climbs out of ``resources/``.
        FileNotFoundError: the resource is in neither place (a broken install).
    """
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ValueError(f"resource name must be a relative path inside resources/: {name!r}")
    candidates = [
        base / relative
        for base in (_checkout_resources_dir(), _package_dir() / "resources")
        if base is not None
    ]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    searched = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"resource {name!r} not found (looked in: {searched})")


def api_token_path() -> Path:
    """The local API's bearer token, ``<config_dir>/api/token`` (0600 in a 0700 folder).

    It lives with the settings, not in the runtime directory, because scripts and Home
    Assistant keep using it across restarts until it is rotated.
    """
    return config_dir() / "api" / "token"


def _cache_root() -> Path:
    return _from_env("ARIA_CACHE_DIR") or Path(_platform_dirs().user_cache_dir)


def cache_dir() -> Path:
    """Directory of files ARIA can rebuild (prepared models); ``ARIA_CACHE_DIR`` wins."""
    return ensure_private_dir(_cache_root())


def ocr_cache_dir() -> Path:
    """Where text read by OCR from scanned pages is kept, ``<cache_dir>/ocr``.

    Not created here: the first page read creates it, private (the texts are the user's
    documents).
    """
    return _cache_root() / "ocr"


def model_cache_dir() -> Path:
    """Where prepared voice models live, ``<cache_dir>/models`` (not created here).

    Only models that need preparing use it (Whisper base is joined from two packages into it,
    145 MB), so it is created by whoever writes there first, not at every start.
    """
    return _cache_root() / "models"
