"""The ``[web]`` settings section: the ``web_fetch`` tool's caps and the hosts it may reach.

Kept in its own module so the section's fields, defaults and limits sit together (the shared
``schema.py`` only names it). Limits go beside each field (``settings/rules.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.settings.rules import AT_LEAST_1, NON_NEGATIVE, POSITIVE, rules

__all__ = ["WebSettings"]


def _check_hosts(value: object) -> str | None:
    """Each entry is ``host``, ``host:port`` or ``[v6]:port`` with a port from 1 to 65535."""
    if not isinstance(value, tuple):
        return None
    for entry in value:
        text = str(entry).strip()
        if not text or "/" in text or " " in text:
            return f"{entry!r} is not a host name (write host or host:port, no scheme or path)"
        host_port = text[1:].partition("]")[2] if text.startswith("[") else text
        port = host_port.rpartition(":")[2] if host_port.count(":") == 1 else ""
        if port and not (port.isdigit() and 1 <= int(port) <= 65535):
            return f"{entry!r} has no valid port (1-65535)"
    return None


@dataclass(frozen=True)
class WebSettings:
    """Reading web pages and PDFs for the model (the ``web_fetch`` tool).

    Attributes:
        enabled: offer the ``web_fetch`` tool to the model.
        allow_hosts: hosts on this computer or the local network the tool may fetch although
            they are not public (``nas.local``, ``192.168.1.20:8080``); a name without a port
            allows every port. ARIA's own API is never fetched.
        timeout_s: the whole fetch, redirects and reading included, seconds.
        max_bytes: bytes of a page read at most (HTML and text are cut there; a larger PDF is
            refused).
        max_chars: characters of text given to the model at most.
        max_redirects: redirects followed at most (each one checked again).
    """

    enabled: bool = True
    allow_hosts: tuple[str, ...] = field(default=(), metadata=rules(check=_check_hosts))
    timeout_s: float = field(default=20.0, metadata=POSITIVE)
    max_bytes: int = field(default=5_000_000, metadata=rules(minimum=(1024.0, True)))
    max_chars: int = field(default=20_000, metadata=AT_LEAST_1)
    max_redirects: int = field(default=5, metadata=NON_NEGATIVE)
