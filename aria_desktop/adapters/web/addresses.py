"""Which addresses the web fetch tool may connect to: public ones, and hosts the user named.

A page fetched for the model must never reach ARIA's own API, the user's router or anything
else on this computer or the local network (server-side request forgery). Every hop — the first
address and each redirect — is checked here: the scheme, the host, and every IP address its
name resolves to; the connection is then made to the checked IP (``web.fetcher``), so a DNS
answer that changes between the check and the connection (rebinding) cannot switch it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aria_desktop.domain.errors import WebAddressRefusedError

__all__ = ["AddressPolicy", "Target", "check_url", "parse_host_entry"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_host_entry(entry: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` -> (host lower case, port or None).

    Raises:
        ValueError: the port is not a number from 1 to 65535.
    """
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif entry.count(":") == 1:
        host, _, port_text = entry.partition(":")
    else:
        host, port_text = entry, ""
    if not port_text:
        return host, None
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is out of range")
    return host, port


@dataclass(frozen=True)
class AddressPolicy:
    """What may be fetched besides public addresses.

    Attributes:
        allow_hosts: hosts (``name``, ``name:port``, ``[v6]:port``) the user allowed even when
            they resolve to a loopback, private or link-local address (e.g. a NAS). A name
            without a port allows every port of it.
        own_ports: ports of ARIA's own API: never fetched on this computer, whatever
            ``allow_hosts`` says.
        live_ports: asked at every check for more such ports (the port the running API
            bound, which the settings may leave to the system with ``api.port = 0``).
    """

    allow_hosts: tuple[str, ...] = ()
    own_ports: frozenset[int] = frozenset()
    live_ports: Callable[[], Iterable[int]] = field(default=tuple, compare=False)

    def allows(self, host: str, port: int) -> bool:
        """Whether the user allowed ``host:port`` by name."""
        host = host.lower().strip("[]")
        for entry in self.allow_hosts:
            allowed_host, allowed_port = parse_host_entry(entry)
            if allowed_host == host and allowed_port in (None, port):
                return True
        return False

    def refusal(self, ip: IPAddress, host: str, port: int) -> str | None:
        """Why ``ip`` (what ``host`` resolved to) must not be contacted on ``port``; None: fine."""
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        own = port in self.own_ports or port in set(self.live_ports())
        if (ip.is_loopback or ip.is_unspecified) and own:
            return "it is ARIA's own API"
        if self.allows(host, port):
            return None
        if ip.is_multicast:
            return "it is a multicast address"
        if ip.is_unspecified:
            return "it is an unspecified address (0.0.0.0 or ::)"
        if ip.is_loopback:
            return "it is this computer (a loopback address)"
        if ip.is_link_local:
            return "it is a link-local address"
        if ip.is_private:
            return "it is on a private network (like your router)"
        if not ip.is_global:
            return "it is not a public internet address"
        return None


@dataclass(frozen=True)
class Target:
    """A checked hop: where to connect and what to tell the server.

    Attributes:
        url: the address as asked.
        scheme: http or https.
        host: the host name (or IP) from the address, lower case.
        port: the port.
        ips: the checked IP addresses the name resolved to, in the resolver's order; the
            connection goes to one of them, never to a fresh lookup of the name.
    """

    url: str
    scheme: str
    host: str
    port: int
    ips: tuple[str, ...]


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebAddressRefusedError(
            f"The host {host!r} could not be found.", hint="Check the address."
        ) from exc
    found: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in found:
            found.append(address)
    return found


async def check_url(url: str, policy: AddressPolicy) -> Target:
    """The checked target of ``url``: http(s), no credentials, every resolved IP allowed.

    Raises:
        WebAddressRefusedError: it must not be fetched (the message says why).
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise WebAddressRefusedError(f"{url!r} is not a valid address: {exc}.") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise WebAddressRefusedError(
            f"ARIA fetches only http and https addresses, not {scheme or 'this'!r}: {url!r}.",
            hint="Give a web address starting with https://.",
        )
    if parts.username is not None or parts.password is not None:
        raise WebAddressRefusedError(
            "Addresses with a user name or password in them are not fetched.",
            hint="Remove the part before '@'.",
        )
    host = (parts.hostname or "").lower()
    if not host:
        raise WebAddressRefusedError(f"{url!r} names no host.")
    port = port or _DEFAULT_PORTS[scheme]
    addresses = await _resolve(host, port)
    if not addresses:
        raise WebAddressRefusedError(f"The host {host!r} has no address.")
    for ip in addresses:
        why = policy.refusal(ip, host, port)
        if why is not None:
            raise WebAddressRefusedError(
                f"ARIA does not fetch {host}:{port} ({ip}): {why}.",
                hint="To allow a host on your own network, add it to web.allow_hosts "
                "(e.g. `aria config set web.allow_hosts nas.local:8080`).",
            )
    ips = tuple(str(ip) for ip in addresses)
    return Target(url=url, scheme=scheme, host=host, port=port, ips=ips)
