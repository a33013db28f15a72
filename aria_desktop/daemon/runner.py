"""Run a service until SIGTERM/SIGINT, then stop it gracefully.

Signals are handled with ``loop.add_signal_handler`` (never ``signal.signal`` from a library,
which uvicorn would otherwise install and then re-raise after its own shutdown, killing the
process before our cleanup; ARCHITECTURE.md: one loop). The first signal starts the graceful
stop; the stop itself is bounded by the service. Under systemd (``Type=notify``) readiness and
stopping are reported through ``$NOTIFY_SOCKET``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["notify_systemd", "run_until_stopped"]

_LOGGER = logging.getLogger(__name__)
_SIGNALS = (signal.SIGTERM, signal.SIGINT)

T = TypeVar("T")


def notify_systemd(state: str) -> bool:
    """Send ``state`` (e.g. ``READY=1``) to systemd when it asked for notifications."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as exc:
        _LOGGER.warning("Could not notify systemd (%s): %s", state, exc)
        return False
    return True


async def run_until_stopped(
    start: Callable[[], Awaitable[T]],
    stop: Callable[[T], Awaitable[None]],
    *,
    stop_event: asyncio.Event | None = None,
    on_ready: Callable[[T], None] | None = None,
) -> None:
    """Start the service, wait for SIGTERM/SIGINT (or ``stop_event``), then stop it.

    Args:
        start: builds and starts the service.
        stop: stops it gracefully (bounded).
        stop_event: set it to stop without a signal (tests, a tray Quit).
        on_ready: called once the service runs (e.g. to print where it listens).
    """
    loop = asyncio.get_running_loop()
    stopping = stop_event or asyncio.Event()

    def on_signal(sig: signal.Signals) -> None:
        if stopping.is_set():
            _LOGGER.info("Received %s again; still stopping", sig.name)
            return
        _LOGGER.info("Received %s; stopping gracefully", sig.name)
        stopping.set()

    installed: list[signal.Signals] = []
    for sig in _SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal, sig)
            installed.append(sig)
    try:
        service = await start()
        try:
            if on_ready is not None:
                on_ready(service)
            notify_systemd("READY=1")
            await stopping.wait()
            notify_systemd("STOPPING=1")
        finally:
            await stop(service)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
