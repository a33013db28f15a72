"""Headless running: signals, readiness notification and the graceful stop of ``aria daemon``.

A front-end without a window: ``runner`` runs a service (the owner) until SIGTERM or SIGINT,
with signals handled through the loop, never ``signal.signal``; the first signal starts the
graceful stop, and systemd is told when ARIA is ready and when it stops. What runs is built by
``compose``; the daemon only keeps it running.
"""

from aria_desktop.daemon.runner import notify_systemd, run_until_stopped

__all__ = ["notify_systemd", "run_until_stopped"]
