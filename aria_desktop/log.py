"""Logging set-up and the secret scrubber.

Secrets must never reach a log file, not even through a third-party library that logs request
headers at DEBUG or an exception whose message quotes an API key. ``SecretScrubber`` is a
``logging.Filter`` that rewrites each record before any handler formats it: the merged message,
the exception text and the stack text are scrubbed of known secret shapes (API keys, bearer
tokens, ``Authorization``/``x-api-key`` headers, ``api_key=``/``token=``/``password=`` pairs,
passwords in URLs) and of every exact value registered with ``register_secret`` (the keystore
registers each secret it reads). Matches become ``[REDACTED]``.

``setup_logging`` installs the scrubber on every handler it creates; other code that creates a
handler calls ``install_scrubber(handler)``. ``scrub_text`` is the same scrubbing as a plain
function, for error messages and for the audit log's ``redact`` hook.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import re
import sys
import threading
from pathlib import Path

__all__ = [
    "REDACTED",
    "SecretScrubber",
    "clear_registered_secrets",
    "install_scrubber",
    "register_secret",
    "scrub_text",
    "setup_logging",
]

_LOGGER = logging.getLogger(__name__)

REDACTED = "[REDACTED]"
"""What every scrubbed secret is replaced with."""

_MIN_SECRET_LEN = 8
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_LOG_FILE_MAX_BYTES = 5 * 1024 * 1024
_LOG_FILE_BACKUPS = 3
_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"

# Key names whose value is a secret, in headers, dict reprs, JSON, query strings and kwargs.
# The left guard keeps "max_tokens"-like names out; a trailing name character is not allowed,
# so "history_token_budget=..." is not a secret pair either.
_SECRET_KEY_NAMES = (
    r"proxy-authorization|authorization|x-api-key|api[_-]?key|apikey|access[_-]?token"
    r"|refresh[_-]?token|auth[_-]?token|id[_-]?token|token|client[_-]?secret|secret"
    r"|password|passwd|pwd"
)
_KEY_VALUE_RE = re.compile(
    r"(?P<key>(?<![A-Za-z0-9])[\"']?(?:" + _SECRET_KEY_NAMES + r")[\"']?\s*[:=]\s*)"
    r"(?:(?P<q>[\"'])(?P<qval>(?:\\.|(?!(?P=q)).)*)(?P=q)"  # quoted value
    r"|(?P<val>(?:(?:bearer|basic|token|digest)\s+)?[^\s,;&}\])\"']+))",  # bare value
    re.IGNORECASE,
)
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Anthropic keys first (sk-ant-api03-...), then OpenAI-style sk-... / sk-proj-... keys.
    (re.compile(r"sk-ant-[A-Za-z0-9_\-]+"), REDACTED),
    (re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}"), REDACTED),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}"), "Bearer " + REDACTED),
    # Passwords in URLs: scheme://user:password@host
    (re.compile(r"(?i)([a-z][a-z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+@"), r"\1" + REDACTED + "@"),
    # Google-style ?key=... query parameters.
    (re.compile(r"(?i)([?&]key=)[^&\s\"']+"), r"\1" + REDACTED),
)


def _replace_key_value(match: re.Match[str]) -> str:
    quote = match.group("q")
    if quote:
        return f"{match.group('key')}{quote}{REDACTED}{quote}"
    return f"{match.group('key')}{REDACTED}"


class _Registry:
    """Exact secret values, compiled into one alternation; safe to use from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        with self._lock:
            if value in self._values:
                return
            self._values.add(value)
            ordered = sorted(self._values, key=len, reverse=True)  # longest match wins
            self._pattern = re.compile("|".join(re.escape(v) for v in ordered))

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._pattern = None

    def pattern(self) -> re.Pattern[str] | None:
        return self._pattern  # one reference read: atomic, never a half-built pattern


_REGISTRY = _Registry()


def register_secret(value: str | None) -> None:
    """Scrub this exact value from all future log output and ``scrub_text`` results.

    Values shorter than 8 characters are ignored: redacting every "1234" or "true" would
    mangle logs without protecting anything that deserves the name secret.

    Args:
        value: the secret (surrounding whitespace is ignored); None is accepted and ignored.
    """
    if value is None:
        return
    value = value.strip()
    if len(value) >= _MIN_SECRET_LEN:
        _REGISTRY.add(value)


def clear_registered_secrets() -> None:
    """Forget all registered values (tests; a secret deleted for good)."""
    _REGISTRY.clear()


def scrub_text(text: str) -> str:
    """Return ``text`` with registered secrets and known secret shapes replaced.

    Args:
        text: any text that might contain a secret.

    Returns:
        The text with each secret replaced by ``[REDACTED]``.
    """
    if not text:
        return text
    registered = _REGISTRY.pattern()
    if registered is not None:
        text = registered.sub(REDACTED, text)
    text = _KEY_VALUE_RE.sub(_replace_key_value, text)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class SecretScrubber(logging.Filter):
    """Logging filter that removes secrets from a record before any handler formats it.

    It never drops a record. It merges ``args`` into the message (so a secret hidden in an
    argument's ``repr`` is seen), renders the exception into ``exc_text`` and scrubs it (the
    standard ``Formatter`` uses ``exc_text`` as is), and scrubs ``stack_info``. Scrubbing is
    idempotent, so the same record passing several handlers is fine.
    """

    _exc_formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        """Scrub ``record`` in place; always keep it."""
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not hide the record (or leak args)
            message = f"{record.msg!s} (unformattable args: {record.args!r})"
        record.msg = scrub_text(message)
        record.args = ()
        if record.exc_info and not record.exc_text:
            record.exc_text = self._exc_formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub_text(record.exc_text)
            # A formatter that re-renders exc_info itself would bypass the scrubbed text.
            record.exc_info = None
        if record.stack_info:
            record.stack_info = scrub_text(record.stack_info)
        return True


def install_scrubber(handler: logging.Handler) -> logging.Handler:
    """Add a ``SecretScrubber`` to ``handler`` unless it already has one.

    Args:
        handler: any logging handler.

    Returns:
        ``handler``, for chaining.
    """
    if not any(isinstance(f, SecretScrubber) for f in handler.filters):
        handler.addFilter(SecretScrubber())
    return handler


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating file handler whose files (including rotated ones) are created 0600."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(self.baseFilename, 0o600)  # in case the file existed with a wider mode
        return open(fd, "a", encoding=self.encoding, errors=self.errors)


_installed_handlers: list[logging.Handler] = []
_setup_lock = threading.Lock()


def setup_logging(level: str, log_file: Path | None, *, console: bool = False) -> None:
    """Configure the root logger: a 0600 rotating file and optionally stderr, both scrubbed.

    Handlers go on the root logger so third-party records (httpx, the Anthropic SDK) pass the
    scrubber too. Calling this again replaces the handlers it installed before, so the CLI can
    reconfigure after reading settings.

    Args:
        level: DEBUG, INFO, WARNING or ERROR (case-insensitive).
        log_file: the log file (5 MiB, three backups); None for no file.
        console: also log to stderr (daemon in the foreground, ``--verbose``).

    Raises:
        ValueError: unknown ``level`` (settings validation normally catches this first).
    """
    level_name = level.strip().upper()
    if level_name not in _LEVELS:
        raise ValueError(f"log level must be one of {', '.join(_LEVELS)}, not {level!r}")
    formatter = logging.Formatter(_LOG_FORMAT)
    handlers: list[logging.Handler] = []
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        file_handler = _PrivateRotatingFileHandler(
            log_file,
            maxBytes=_LOG_FILE_MAX_BYTES,
            backupCount=_LOG_FILE_BACKUPS,
            encoding="utf-8",
        )
        handlers.append(file_handler)
    if console:
        handlers.append(logging.StreamHandler(sys.stderr))
    root = logging.getLogger()
    with _setup_lock:
        for old in _installed_handlers:
            root.removeHandler(old)
            old.close()
        _installed_handlers.clear()
        for handler in handlers:
            handler.setFormatter(formatter)
            install_scrubber(handler)
            root.addHandler(handler)
            _installed_handlers.append(handler)
        root.setLevel(level_name)
        # Python's fallback handler (used when no handler is configured) must not leak either.
        if logging.lastResort is not None:
            install_scrubber(logging.lastResort)
    logging.captureWarnings(True)
    _LOGGER.debug("logging configured: level=%s file=%s console=%s", level_name, log_file, console)
