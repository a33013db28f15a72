from __future__ import annotations

import io
import logging
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop import log
from aria_desktop.log import REDACTED, SecretScrubber, install_scrubber, scrub_text, setup_logging

_LOGGER = logging.getLogger("aria_desktop.tests.scrubber")

ANTHROPIC_KEY = "sk-ant-api03-Zq9xLmN0pQrStUvWxYz0123456789abcdEFGH-_ijkl"
OPENAI_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
OPENAI_OLD_KEY = "sk-" + "9" * 20 + "abcdefghijklmnopqrstu"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcmlhIn0.c2lnbmF0dXJl"
BASIC = "dXNlcjpodW50ZXIyaHVudGVyMg=="
X_API_KEY = "xk_live_1234567890abcdef"
PLAIN_API_KEY = "plainapikey12345"
JSON_API_KEY = "jsonapikey67890"
TOKEN = "tok_abcdefgh12345678"
PASSWORD = "hunter2"  # shorter than 8: only the key=value pattern can catch it
URL_PASSWORD = "urlpa55word"
REGISTERED = "correct-horse-battery-staple"
REGISTERED_IN_EXC = "opaque-vendor-secret-42"

SECRETS = [
    ANTHROPIC_KEY,
    OPENAI_KEY,
    OPENAI_OLD_KEY,
    BEARER,
    BASIC,
    X_API_KEY,
    PLAIN_API_KEY,
    JSON_API_KEY,
    TOKEN,
    PASSWORD,
    URL_PASSWORD,
    REGISTERED,
    REGISTERED_IN_EXC,
    "stackpw1234",
]


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    log._installed_handlers.clear()
    root.setLevel(level)
    log.clear_registered_secrets()


def _emit_corpus() -> None:
    _LOGGER.info("calling anthropic with key %s", ANTHROPIC_KEY)
    _LOGGER.info("openai keys: %s and %r", OPENAI_KEY, OPENAI_OLD_KEY)
    _LOGGER.debug(
        "request headers: %s",
        {"authorization": f"Bearer {BEARER}", "x-api-key": X_API_KEY, "accept": "text/json"},
    )
    _LOGGER.debug("kwargs %r", {"api_key": PLAIN_API_KEY, "model": "claude"})
    _LOGGER.info("raw header line: Authorization: Basic %s", BASIC)
    _LOGGER.info("header line: X-Api-Key: %s", X_API_KEY)
    _LOGGER.info("query api_key=%s&model=llama", PLAIN_API_KEY)
    _LOGGER.info('json body {"api_key": "%s", "max_tokens": 5}', JSON_API_KEY)
    _LOGGER.info("token=%s password=%s", TOKEN, PASSWORD)
    _LOGGER.info("proxy https://aria:%s@proxy.local:3128/", URL_PASSWORD)
    _LOGGER.warning("the user pasted %s into chat", REGISTERED)
    _LOGGER.warning("tuple arg %s", (1, REGISTERED))
    try:
        raise ValueError(f"backend rejected key {ANTHROPIC_KEY} ({REGISTERED_IN_EXC})")
    except ValueError:
        _LOGGER.exception("request failed")
    try:
        try:
            raise KeyError(OPENAI_KEY)
        except KeyError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as exc:
        _LOGGER.error("chained failure", exc_info=exc)
    # the stack shows this source line, literal included: stack_info must be scrubbed too
    _LOGGER.info("stack for %s", "password=stackpw1234", stack_info=True)


def test_no_secret_reaches_the_log_file(tmp_path: Path) -> None:
    log.register_secret(REGISTERED)
    log.register_secret(REGISTERED_IN_EXC)
    log.register_secret("short")  # ignored: under 8 characters
    log_file = tmp_path / "logs" / "aria.log"
    setup_logging("DEBUG", log_file)
    _emit_corpus()
    _LOGGER.info("limits: max_tokens=2048 history_token_budget=6000 short")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    for secret in SECRETS:
        assert secret not in text, f"secret leaked: {secret!r}"
    assert REDACTED in text
    assert "Traceback" in text  # exception text is kept, only scrubbed
    assert "ValueError: backend rejected key [REDACTED]" in text
    assert "Stack (most recent call last)" in text
    assert "accept" in text
    assert "text/json" in text
    # ordinary numbers with "token" in their names survive, short values are not registered
    assert "max_tokens=2048 history_token_budget=6000 short" in text
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600


def test_console_handler_is_scrubbed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging("INFO", None, console=True)
    _LOGGER.info("key %s", ANTHROPIC_KEY)
    err = capsys.readouterr().err
    assert ANTHROPIC_KEY not in err
    assert "key [REDACTED]" in err


def test_unformattable_record_does_not_leak_args(tmp_path: Path) -> None:
    log.register_secret(REGISTERED)
    stream = io.StringIO()
    handler = install_scrubber(logging.StreamHandler(stream))
    logger = logging.getLogger("aria_desktop.tests.broken")
    logger.addHandler(handler)
    logger.propagate = False  # pytest's own capture handler would raise on the bad format
    try:
        logger.warning("broken format %s %s", REGISTERED)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert "broken format" in stream.getvalue()
    assert REGISTERED not in stream.getvalue()


def test_setup_logging_twice_replaces_its_handlers(tmp_path: Path) -> None:
    setup_logging("INFO", tmp_path / "a.log")
    setup_logging("WARNING", tmp_path / "b.log")
    ours = [h for h in logging.getLogger().handlers if h in log._installed_handlers]
    assert len(ours) == 1
    assert logging.getLogger().level == logging.WARNING
    for handler in ours:
        assert any(isinstance(f, SecretScrubber) for f in handler.filters)


def test_setup_logging_rejects_bad_level(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="DEBUG, INFO, WARNING, ERROR"):
        setup_logging("LOUD", None)


def test_install_scrubber_on_foreign_handler() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    assert install_scrubber(handler) is handler
    install_scrubber(handler)
    assert sum(isinstance(f, SecretScrubber) for f in handler.filters) == 1
    logger = logging.getLogger("aria_desktop.tests.foreign")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("sending Authorization: Bearer %s", BEARER)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert BEARER not in stream.getvalue()
    assert "Authorization: [REDACTED]" in stream.getvalue()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key={ANTHROPIC_KEY}", "key=[REDACTED]"),
        (f"Bearer {BEARER} trailing", "Bearer [REDACTED] trailing"),
        (f"{{'authorization': 'Bearer {BEARER}'}}", "{'authorization': '[REDACTED]'}"),
        (f'{{"x-api-key": "{X_API_KEY}"}}', '{"x-api-key": "[REDACTED]"}'),
        (f"password={PASSWORD} user=bob", "password=[REDACTED] user=bob"),
        (f"https://bob:{URL_PASSWORD}@host/x", "https://bob:[REDACTED]@host/x"),
        (
            "https://maps.example/api?key=AIzaSyA123&z=3",
            "https://maps.example/api?key=[REDACTED]&z=3",
        ),
        ("nothing secret here: 42 tokens", "nothing secret here: 42 tokens"),
        ("the bearer of bad news", "the bearer of bad news"),
        ("", ""),
    ],
)
def test_scrub_text(text: str, expected: str) -> None:
    assert scrub_text(text) == expected


def test_registered_values_need_eight_characters() -> None:
    log.register_secret("1234567")
    log.register_secret("  12345678  ")
    log.register_secret(None)
    assert scrub_text("a 1234567 b 12345678") == "a 1234567 b [REDACTED]"


def test_scrubber_is_thread_safe(tmp_path: Path) -> None:
    log_file = tmp_path / "threads.log"
    setup_logging("INFO", log_file)
    secrets = [f"thread-secret-{i:04d}-xyzzy" for i in range(40)]
    barrier = threading.Barrier(4)

    def worker(offset: int) -> None:
        barrier.wait()
        for i in range(offset, len(secrets), 4):
            log.register_secret(secrets[i])
            _LOGGER.info("worker %d secret %s", offset, secrets[i])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert text.count("secret [REDACTED]") == len(secrets)
    assert not any(secret in text for secret in secrets)


def test_rotated_files_are_private(tmp_path: Path) -> None:
    log_file = tmp_path / "rot.log"
    setup_logging("INFO", log_file)
    handler = next(h for h in log._installed_handlers)
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    _LOGGER.info("before rotation")
    handler.doRollover()
    _LOGGER.info("after rotation")
    handler.flush()
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "rot.log.1").stat().st_mode) == 0o600
