"""Where a model runs — local or cloud — decided once, from the backend's kind and URL.

Whether a conversation leaves the user's machines is a privacy fact: the GUI's reply badge and
tray tooltip, the CLI's end-of-reply line, the API's ``done`` event and computer use's cloud
consent must all agree on it. Guessing it from a backend's *name* in each front-end let the
copies disagree (an OpenAI-compatible server on another host showed as "local" while computer
use counted it as cloud). So the composition root asks :func:`backend_locality` once per
backend, the backend carries the answer, and events carry it on to every front-end
(ARCHITECTURE.md: one fact, decided once).

The rule, in one place:

* ``anthropic`` is cloud (a third party sees the conversation).
* ``ollama`` is local: it is the user's own model server (on this machine or their network).
* ``openai`` (any OpenAI-compatible server) is local only when its URL names a loopback host
  (``localhost`` or a loopback IP literal): the same protocol is spoken by OpenAI and other
  hosted services, so any other host — or a URL that cannot be read — counts as cloud.
* A backend kind this rule does not know counts as cloud: when in doubt, ask for consent.
"""

from __future__ import annotations

import ipaddress
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["Locality", "backend_locality", "is_loopback_url"]

Locality = Literal["local", "cloud"]
"""Where a model runs: on this machine/network (``local``) or at a third party (``cloud``)."""

_LOCAL_KINDS = frozenset({"ollama"})
_URL_KINDS = frozenset({"openai"})
_LOOPBACK_NAMES = frozenset({"localhost"})


def backend_locality(kind: str, url: str = "") -> Locality:
    """Where backend ``kind`` (``anthropic``, ``ollama``, ``openai``) served at ``url`` runs.

    Args:
        kind: the backend's kind, as named in the settings (``llm.<kind>``).
        url: the URL ARIA sends the conversation to (only read for OpenAI-compatible servers).
    """
    if kind in _LOCAL_KINDS:
        return "local"
    if kind in _URL_KINDS and is_loopback_url(url):
        return "local"
    return "cloud"


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is this machine: ``localhost`` or a loopback IP literal.

    Host names other than ``localhost`` are not resolved (that would be network I/O, and a name
    can point elsewhere tomorrow); an unreadable URL is not loopback.
    """
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:  # e.g. an unclosed "[" in an IPv6 literal
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
