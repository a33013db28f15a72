"""API keys and other secrets: environment, system keyring, or an opt-in private file.

Lookup order for ``get_secret``: an environment variable (``ARIA_ANTHROPIC_API_KEY`` before the
standard ``ANTHROPIC_API_KEY``; likewise for OpenAI), then the system keyring (service
``aria-desktop``, user name = the secret's name), then the plain-text fallback file
(``paths.secrets_file()``), which exists only if the user explicitly asked for it.

An environment secret is moved out of ``os.environ`` the moment it is read (``scrub_secret_env``
does this for every known name at start-up), so subprocesses (tools, shells, TTS engines) never
inherit it; the value is kept in this process's memory instead. Every secret value that passes
through here is registered with the log scrubber.

``set_secret`` never writes plain text on its own: when no usable keyring exists (the ``fail``
or ``null`` backend, a chainer with nothing to chain, a plain-text keyring) or the keyring
refuses (locked, D-Bus error), it raises ``SecretStoreError`` unless the caller passed
``allow_file_fallback=True`` (the CLI's ``--insecure-file``).

This is the only module that imports ``keyring``.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import tomllib
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from aria_desktop import paths
from aria_desktop.domain.errors import ConfigError, SecretStoreError
from aria_desktop.log import register_secret

if TYPE_CHECKING:
    # ``keyring`` (with importlib-metadata and its entry points) is imported by the functions
    # that use the keyring: most commands only scrub the environment (ARCHITECTURE.md:
    # start-up cost).
    import keyring.backend

__all__ = [
    "KNOWN_SECRETS",
    "SECRET_NAMES",
    "SERVICE",
    "SecretLocation",
    "delete_secret",
    "get_secret",
    "keyring_status",
    "scrub_secret_env",
    "secret_status",
    "set_secret",
]

_LOGGER = logging.getLogger(__name__)

SERVICE = paths.APP_NAME
"""Keyring service name."""

KNOWN_SECRETS: Mapping[str, tuple[str, ...]] = {
    "anthropic_api_key": ("ARIA_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    "openai_api_key": ("ARIA_OPENAI_API_KEY", "OPENAI_API_KEY"),
    "homeassistant_token": ("ARIA_HOMEASSISTANT_TOKEN",),
}
"""Secret name -> environment variables that may carry it, in priority order."""

SECRET_NAMES: tuple[str, ...] = tuple(KNOWN_SECRETS)
"""The secret names ``set_secret`` and friends accept (CLI choices)."""

SecretLocation = Literal["keyring", "file", "env", "missing"]

# Values taken from the environment (and removed from it), by secret name.
_env_values: dict[str, str] = {}
_keyring_warned = False


MCP_SECRET_RE = re.compile(r"^mcp_[a-z0-9_]{1,60}$")
"""Secrets the user names for MCP servers (``keyring:mcp_<name>`` in ``[mcp.servers.*]``)."""


def _check_name(name: str) -> None:
    if name not in KNOWN_SECRETS and not MCP_SECRET_RE.match(name):
        raise ConfigError(
            f"Unknown secret {name!r}.",
            hint=f"Known secrets: {', '.join(KNOWN_SECRETS)}, or mcp_<name> for MCP servers.",
        )


def _env_vars(name: str) -> tuple[str, ...]:
    """The environment variables that may carry a secret (``ARIA_SECRET_<NAME>`` for MCP ones)."""
    return KNOWN_SECRETS.get(name) or (f"ARIA_SECRET_{name.upper()}",)


def _take_from_env(name: str, env: MutableMapping[str, str] | Mapping[str, str]) -> str | None:
    """Pop the secret's variables from ``env`` (and ``os.environ``); remember the first value."""
    found: str | None = None
    for var in _env_vars(name):
        value = env.get(var)
        if isinstance(env, MutableMapping):
            env.pop(var, None)
        if env is not os.environ:
            os.environ.pop(var, None)  # children must not inherit it either way
        if value is not None and value.strip() and found is None:
            found = value.strip()
            _LOGGER.debug("secret %s taken from environment variable %s", name, var)
    if found is not None:
        register_secret(found)
        _env_values[name] = found
    return found


def scrub_secret_env(env: MutableMapping[str, str] | None = None) -> list[str]:
    """Move every known secret out of the environment into process memory.

    Call this first thing at start-up, before any thread or subprocess starts.

    Args:
        env: the environment; None means ``os.environ``.

    Returns:
        The names of the secrets that were found in the environment.
    """
    target = os.environ if env is None else env
    return [name for name in KNOWN_SECRETS if _take_from_env(name, target) is not None]


def get_secret(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Return a secret from the environment, the keyring or the fallback file, or None.

    Args:
        name: one of ``KNOWN_SECRETS``.
        env: the environment; None means ``os.environ``. Variables read are removed from it
            when it is mutable, and from ``os.environ`` in any case.

    Returns:
        The secret, or None when it is stored nowhere (or the keyring cannot be read).

    Raises:
        ConfigError: unknown name.
        SecretStoreError: the fallback file is readable by other users or unreadable.
    """
    _check_name(name)
    value = _take_from_env(name, os.environ if env is None else env)
    if value is None:
        value = _env_values.get(name)
    if value is None:
        value = _keyring_get(name)
    if value is None:
        value = _read_file().get(name)
    if value is not None:
        register_secret(value)
    return value


def secret_status(name: str, env: Mapping[str, str] | None = None) -> SecretLocation:
    """Where ``get_secret`` would find the secret: "env", "keyring", "file" or "missing".

    Reading the environment has the same effect as in ``get_secret`` (the variable moves into
    process memory), so asking for the status never leaves a key behind for children.
    """
    _check_name(name)
    if _take_from_env(name, os.environ if env is None else env) or name in _env_values:
        return "env"
    value = _keyring_get(name)
    if value is not None:
        register_secret(value)
        return "keyring"
    try:
        stored = _read_file().get(name)
    except SecretStoreError:
        return "file"  # present but unusable; get_secret will explain
    if stored is not None:
        register_secret(stored)
        return "file"
    return "missing"


def set_secret(name: str, value: str, *, allow_file_fallback: bool = False) -> SecretLocation:
    """Store a secret in the system keyring (or, only if allowed, in the private file).

    Args:
        name: one of ``KNOWN_SECRETS``.
        value: the secret; surrounding whitespace (a pasted newline) is removed.
        allow_file_fallback: if no keyring is usable, write ``paths.secrets_file()`` (mode
            0600) instead of failing.

    Returns:
        Where it was stored: "keyring" or "file".

    Raises:
        ConfigError: unknown name or empty value.
        SecretStoreError: no usable keyring and no permission to fall back, or the write
            failed.
    """
    _check_name(name)
    value = value.strip()
    if not value:
        raise ConfigError(f"The value for {name} is empty.", hint="Paste the whole key.")
    register_secret(value)
    reason = _unusable_reason()
    if reason is None:
        import keyring.errors

        try:
            keyring.set_password(SERVICE, name, value)
            if keyring.get_password(SERVICE, name) != value:
                raise keyring.errors.PasswordSetError("the keyring did not keep the value")
        except Exception as exc:  # any backend failure (D-Bus, locked, ...) means "not stored"
            reason = f"the keyring refused it ({type(exc).__name__}: {exc})"
            _LOGGER.warning("storing %s in the keyring failed: %s", name, reason)
        else:
            _LOGGER.info("secret %s stored in the system keyring", name)
            _remove_from_file(name)  # one source of truth
            return "keyring"
    file_path = paths.secrets_file()
    if not allow_file_fallback:
        raise SecretStoreError(
            f"No usable system keyring ({reason}); {name} was not stored.",
            hint=(
                "Install or unlock a keyring (e.g. gnome-keyring or KWallet) and try again, or "
                f"re-run with --insecure-file to store it in {file_path} readable only by you."
            ),
        )
    data = _read_file()
    data[name] = value
    _write_file(data)
    _LOGGER.warning("secret %s stored in plain text in %s (keyring: %s)", name, file_path, reason)
    return "file"


def delete_secret(name: str) -> bool:
    """Remove a secret from the keyring, the fallback file and process memory.

    Returns:
        True if it was stored anywhere.
    """
    _check_name(name)
    removed = _env_values.pop(name, None) is not None
    for var in _env_vars(name):
        removed = os.environ.pop(var, None) is not None or removed
    if _unusable_reason() is None:
        import keyring.errors

        try:
            if keyring.get_password(SERVICE, name) is not None:
                keyring.delete_password(SERVICE, name)
                removed = True
        except keyring.errors.PasswordDeleteError:
            pass
        except Exception as exc:
            raise SecretStoreError(
                f"Could not delete {name} from the keyring: {type(exc).__name__}: {exc}",
                hint="Unlock the keyring and try again.",
            ) from exc
    return _remove_from_file(name) or removed


def keyring_status() -> tuple[bool, str]:
    """Whether a usable keyring exists, and a description of it, for ``aria doctor``."""
    import keyring

    backend = keyring.get_keyring()
    reason = _unusable_reason()
    name = _backend_name(backend)
    return (reason is None, name if reason is None else reason)


# --- keyring ------------------------------------------------------------------------------------


def _backend_name(backend: keyring.backend.KeyringBackend) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def _unusable_reason() -> str | None:
    """Why the configured keyring cannot keep a secret safely, or None when it can."""
    import keyring

    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # backend initialisation itself failed
        return f"keyring initialisation failed: {type(exc).__name__}: {exc}"
    name = _backend_name(backend)
    module = type(backend).__module__
    if module in ("keyring.backends.fail", "keyring.backends.null"):
        return f"backend: {name}"
    if module == "keyring.backends.chainer":
        chained = [b for b in getattr(backend, "backends", []) if _unusable_for(b) is None]
        if not chained:
            return f"backend: {name} with no usable backends to chain"
    if "plaintext" in type(backend).__name__.lower():
        return f"backend: {name} stores plain text"
    return None


def _unusable_for(backend: keyring.backend.KeyringBackend) -> str | None:
    module = type(backend).__module__
    if module in ("keyring.backends.fail", "keyring.backends.null"):
        return module
    if "plaintext" in type(backend).__name__.lower():
        return "plaintext"
    return None


def _keyring_get(name: str) -> str | None:
    global _keyring_warned
    if _unusable_reason() is not None:
        return None
    import keyring

    try:
        value = keyring.get_password(SERVICE, name)
    except Exception as exc:  # locked, D-Bus gone, ...: carry on with the other sources
        if not _keyring_warned:
            _LOGGER.warning(
                "cannot read the system keyring (%s: %s); secrets stored there are unavailable",
                type(exc).__name__,
                exc,
            )
            _keyring_warned = True
        return None
    return value if isinstance(value, str) and value else None


# --- fallback file ------------------------------------------------------------------------------


def _read_file() -> dict[str, str]:
    path = paths.secrets_file()
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SecretStoreError(
            f"Cannot read {path}: {exc.strerror}", hint=f"Check the permissions of {path}."
        ) from exc
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SecretStoreError(
            f"{path} is accessible by other users (mode {stat.filemode(info.st_mode)}); "
            "ARIA will not read secrets from it.",
            hint=f"Run `chmod 600 {path}` (and consider rotating the keys in it).",
        )
    try:
        with path.open("rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        # Never echo the parser message: it may quote the secret.
        raise SecretStoreError(
            f"Cannot parse the secrets file {path} ({type(exc).__name__}).",
            hint=f"Delete {path} and store the keys again with `aria config set-secret`.",
        ) from None
    values = {k: v for k, v in data.items() if k in KNOWN_SECRETS and isinstance(v, str)}
    for value in values.values():
        register_secret(value)
    return values


def _remove_from_file(name: str) -> bool:
    try:
        data = _read_file()
    except SecretStoreError:
        return False
    if name not in data:
        return False
    del data[name]
    if data:
        _write_file(data)
    else:
        paths.secrets_file().unlink(missing_ok=True)
    return True


def _toml_basic_string(value: str) -> str:
    out = []
    for char in value:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _write_file(data: Mapping[str, str]) -> None:
    """Write the secrets file atomically; the temporary file is created 0600 from the start."""
    path = paths.secrets_file()  # paths creates the directory 0700
    text = "# ARIA secrets (plain text, readable only by you). Prefer the system keyring.\n"
    text += "".join(f"{k} = {_toml_basic_string(v)}\n" for k, v in sorted(data.items()))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise SecretStoreError(
            f"Could not write {path}: {exc.strerror}",
            hint=f"Check that {path.parent} is writable by you.",
        ) from exc
