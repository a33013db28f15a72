"""Where the user's better speech-to-text may run: a Wyoming server on their GPU machine.

The machine that runs the user's models (Ollama, an OpenAI-compatible server) is the one with
the GPU, so it is where Whisper large-v3-turbo belongs; Wyoming's speech-to-text port is 10300
by convention (Home Assistant's add-on and ``wyoming-faster-whisper``'s examples). ``aria
doctor`` and the setup wizard probe the same addresses, in the same order, decided here.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from aria_desktop.domain.locality import is_loopback_url

__all__ = [
    "WYOMING_STT_PORT",
    "server_host",
    "speech_server_candidates",
]

WYOMING_STT_PORT = 10300


def server_host(uri: str) -> str:
    """The host a ``tcp://host:port`` URI names ("" for a unix socket or an unreadable URI)."""
    try:
        return urlsplit(uri.strip()).hostname or ""
    except ValueError:
        return ""


def speech_server_candidates(configured_uri: str, model_urls: Iterable[str]) -> tuple[str, ...]:
    """Where to look for a speech-to-text server, in order, without repeats.

    Args:
        configured_uri: ``voice.stt.wyoming_uri``: always first, whatever it names.
        model_urls: the addresses of the user's model servers; each one on another computer
            adds ``tcp://<that host>:10300`` (this computer's own servers add nothing new: the
            configured URI already covers it by default).
    """
    found: list[str] = []
    if configured_uri.strip():
        found.append(configured_uri.strip())
    for url in model_urls:
        if not url.strip() or is_loopback_url(url):
            continue
        host = server_host(url)
        if not host:
            continue
        shown = f"[{host}]" if ":" in host else host
        candidate = f"tcp://{shown}:{WYOMING_STT_PORT}"
        if candidate not in found:
            found.append(candidate)
    return tuple(found)
