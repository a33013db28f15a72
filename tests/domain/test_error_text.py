"""The one error table: every code in plain words, with its actions and the detail kept."""

from __future__ import annotations

import inspect
import re

import pytest

from aria_desktop.domain import errors
from aria_desktop.domain.error_text import (
    ACTION_LABELS,
    PlainError,
    for_people,
    join_failures,
    plain_error,
    short_line,
    split_failures,
)

UNREACHABLE = (
    "ollama: cannot connect to http://127.0.0.1:11434/api/chat: All connection attempts failed"
)
NOTHING_ANSWERED = join_failures(
    [
        ("ollama", "backend_unreachable", UNREACHABLE),
        ("anthropic", "no_backend", "anthropic is not set up"),
    ]
)
AS_WRITTEN = {"list_invalid", "timer_invalid", "reminder_invalid"}
"""The skills' errors: their own message is already a plain sentence (shown as written)."""
CODE_WORD = re.compile(r"\b[a-z]+_[a-z_]+\b")
"""A snake_case word: an error code or a settings key's part, never plain words."""

ALL_CODES = sorted(
    {
        cls.code
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.AriaError)
    }
)


def assert_plain(plain: PlainError) -> None:
    """What a window shows holds no code, no backticks, no settings key and no command."""
    for text in (plain.message, plain.detail):
        assert "`" not in text, text
        assert not CODE_WORD.search(text), text
    assert "aria " not in plain.message
    assert "ollama serve" not in plain.message
    assert plain.message.endswith((".", "…")), plain.message
    assert plain.message[0].isupper(), plain.message


def test_nothing_reachable_reads_as_one_sentence_with_its_actions() -> None:
    plain = plain_error("no_backend", NOTHING_ANSWERED)

    assert plain.message == "Can't reach Ollama at 127.0.0.1:11434, and no other model is set up."
    assert plain.actions == ("retry", "set_up_model")
    assert "All connection attempts failed" in plain.detail
    assert "http://127.0.0.1:11434/api/chat" in plain.detail
    assert_plain(plain)


def test_the_router_line_splits_back_into_its_backends() -> None:
    failures = split_failures(NOTHING_ANSWERED)

    assert [(f.backend, f.code) for f in failures] == [
        ("ollama", "backend_unreachable"),
        ("anthropic", "no_backend"),
    ]
    assert failures[0].message == UNREACHABLE
    assert split_failures("something else") == []


def test_a_message_holding_a_semicolon_stays_whole() -> None:
    line = join_failures([("openai", "llm_server_error", "openai: HTTP 500: boom; try later")])

    assert [f.message for f in split_failures(line)] == ["openai: HTTP 500: boom; try later"]


def test_no_backend_set_up_at_all_offers_the_set_up() -> None:
    none_set_up = plain_error("no_backend", "no language-model backend is configured for 'chat'")
    only_missing = plain_error(
        "no_backend", join_failures([("anthropic", "no_backend", "anthropic is not set up")])
    )

    for plain in (none_set_up, only_missing):
        assert plain.message == "No model is set up yet."
        assert plain.actions == ("set_up_model",)
        assert_plain(plain)


def test_two_reachable_failures_are_both_named() -> None:
    line = join_failures(
        [
            ("ollama", "backend_unreachable", UNREACHABLE),
            ("anthropic", "llm_auth_failed", "anthropic: HTTP 401: invalid x-api-key"),
        ]
    )
    plain = plain_error("no_backend", line)

    assert plain.message == (
        "Can't reach Ollama at 127.0.0.1:11434, and the Claude cloud model did not accept "
        "ARIA's key."
    )
    assert plain.actions == ("retry", "open_settings", "set_up_model")
    assert_plain(plain)


@pytest.mark.parametrize(
    ("code", "message", "expected", "actions"),
    [
        ("backend_unreachable", UNREACHABLE, "Can't reach Ollama at 127.0.0.1:11434.",
         ("retry", "set_up_model")),
        ("llm_timeout", "ollama: connecting to http://gpu:11434 timed out",
         "Can't reach Ollama at gpu:11434.", ("retry", "set_up_model")),
        ("llm_timeout", "ollama: no first token within 60 s", "Ollama took too long to answer.",
         ("retry",)),
        ("llm_model_not_found", "ollama: HTTP 404: model 'qwen3:8b' not found",
         "The model qwen3:8b is not installed on Ollama.", ("set_up_model",)),
        ("llm_auth_failed", "anthropic: HTTP 401: invalid key",
         "The Claude cloud model did not accept ARIA's key.", ("open_settings",)),
        ("turn_deadline", "The turn took longer than 120 s and was stopped.",
         "The answer took too long and was stopped.", ("retry",)),
        ("timer_invalid", "A timer can run at most 24 hours.",
         "A timer can run at most 24 hours.", ()),
        ("homeassistant_unreachable", "cannot connect to http://ha.local:8123: refused",
         "Can't reach Home Assistant at ha.local:8123.", ("retry",)),
        ("llm_brand_new_failure", "openai: something new", "The model server could not answer.",
         ("retry",)),
        ("never_heard_of", "boom", "Something went wrong.", ("retry",)),
    ],
)  # fmt: skip
def test_each_code_reads_in_plain_words(
    code: str, message: str, expected: str, actions: tuple[str, ...]
) -> None:
    plain = plain_error(code, message)

    assert plain.message == expected
    assert plain.actions == actions
    assert plain.detail == message


@pytest.mark.parametrize("code", [c for c in ALL_CODES if c not in AS_WRITTEN])
def test_every_aria_error_code_has_plain_words(code: str) -> None:
    """A new error class without an entry still reads plainly (its family or the fallback)."""
    plain = plain_error(code, "ollama: technical text")
    assert plain.message != "Something went wrong." or code == "internal", code
    assert set(plain.actions) <= set(ACTION_LABELS)
    assert_plain(PlainError(plain.message, plain.actions))


def test_a_long_line_is_cut_at_a_word() -> None:
    text = "Model qwen3:8b could not be loaded because the server refused the connection"

    short = short_line(text, 40)

    assert len(short) <= 40
    assert short.endswith("…")
    assert text.startswith(short[:-1])
    assert text[len(short) - 1] == " "  # the cut falls between words
    assert short_line("short\nline", 40) == "short line"


def test_a_window_drops_a_hint_with_a_command_and_keys_in_brackets() -> None:
    assert for_people("Voice is off", "Run `aria config set voice.enabled true`.") == (
        "Voice is off"
    )
    assert for_people("Voice is off", "Tick Enabled in Settings → Voice (voice.enabled).") == (
        "Voice is off. Tick Enabled in Settings → Voice."
    )
    assert for_people("All connection attempts failed", "Is Ollama running?") == (
        "All connection attempts failed. Is Ollama running?"
    )


def test_a_dotted_word_that_is_not_a_setting_stays() -> None:
    assert for_people("Can't read the page (example.com)", "") == (
        "Can't read the page (example.com)"
    )
