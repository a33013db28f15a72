"""``backend_locality``: the one rule deciding whether a backend's model runs local or cloud."""

from __future__ import annotations

import pytest

from aria_desktop.domain.locality import backend_locality, is_loopback_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://localhost:8080/v1", "local"),
        ("http://LOCALHOST./v1", "local"),
        ("http://127.0.0.1:8080/v1", "local"),
        ("http://127.0.0.2:8080/v1", "local"),
        ("http://[::1]:8080/v1", "local"),
        ("http://[::ffff:127.0.0.1]:8080/v1", "local"),
        ("http://192.168.1.20:8080/v1", "cloud"),
        ("http://10.0.0.7:11434", "cloud"),
        ("http://[fe80::1]:8080/v1", "cloud"),
        ("https://example.com/v1", "cloud"),
        ("https://api.openai.com/v1", "cloud"),
        ("http://localhost.example.com/v1", "cloud"),
        ("http://127.0.0.1.example.com/v1", "cloud"),
        ("http://models.example.test:8080/v1", "cloud"),
        ("not a url", "cloud"),
        ("http://[::1/v1", "cloud"),
        ("", "cloud"),
    ],
)
def test_an_openai_compatible_server_is_local_only_on_a_loopback_host(
    url: str, expected: str
) -> None:
    assert backend_locality("openai", url) == expected
    assert is_loopback_url(url) is (expected == "local")


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434", "http://192.168.1.20:11434", ""])
def test_ollama_is_the_users_own_server_wherever_it_runs(url: str) -> None:
    assert backend_locality("ollama", url) == "local"


@pytest.mark.parametrize("url", ["", "http://127.0.0.1:8081", "https://api.anthropic.com"])
def test_anthropic_is_cloud_even_behind_a_loopback_url(url: str) -> None:
    assert backend_locality("anthropic", url) == "cloud"


def test_a_kind_the_rule_does_not_know_counts_as_cloud() -> None:
    assert backend_locality("mystery", "http://127.0.0.1:9000") == "cloud"
