"""Headless running: signals, readiness notification and the graceful stop of ``aria daemon``."""

from aria_desktop.daemon.runner import notify_systemd, run_until_stopped

__all__ = ["notify_systemd", "run_until_stopped"]
