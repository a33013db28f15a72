"""Doctor checks of the local HTTP API and the owner.

Its address, the token file's privacy, a running owner answering (or the port free), the
automations it would run, and the base URLs to paste into OpenAI- and Ollama-style clients.
"""

from __future__ import annotations

import socket
import stat

from aria_desktop import paths
from aria_desktop.doctor.result import CheckResult, judged, ok
from aria_desktop.domain.automation import AutomationSpec
from aria_desktop.settings import Settings, resolve_database_path

__all__ = ["check_api", "compat_urls"]


def check_api(settings: Settings) -> list[CheckResult]:
    """Token file privacy, the owner (if any) answering, the port free, automations valid."""
    from aria_desktop.compose.owner import automation_specs

    results = _address(settings)
    results.append(_token())
    results.extend(_owner_or_port(settings))
    results.extend(compat_urls(settings))
    specs = automation_specs(settings)
    results.append(
        ok(
            "automations",
            ", ".join(f"{s.name} ({_started_by(s)})" for s in specs) or "none configured",
        )
    )
    return results


def _started_by(spec: AutomationSpec) -> str:
    """What starts an automation, as doctor lists it: "0 8 * * *", "webhook", "timer-finished"."""
    starts = [spec.schedule] if spec.schedule else []
    starts += list(spec.on_event)
    if not spec.schedule and spec.webhook and spec.prompt.strip():
        starts.append("webhook")
    return ", ".join(starts)


def _address(settings: Settings) -> list[CheckResult]:
    """A warning (or, unless allowed, a failure) when the API listens beyond this machine."""
    from aria_desktop.api.runner import is_loopback

    api = settings.api
    if is_loopback(api.host):
        return []
    return [
        CheckResult(
            name="api address",
            status="WARN" if api.allow_remote else "FAIL",
            detail=f"api.host = {api.host} is reachable from other computers",
            fix="Use 127.0.0.1 unless you need remote access (then keep the token secret)."
            if api.allow_remote
            else "Set api.host = 127.0.0.1, or api.allow_remote = true on purpose.",
        )
    ]


def _token() -> CheckResult:
    """The API token file and its folder are private to the user."""
    token_path = paths.api_token_path()
    if not token_path.exists():
        return ok("api token", "not created yet (made at the first start of ARIA)")
    mode = stat.S_IMODE(token_path.stat().st_mode)
    dir_mode = stat.S_IMODE(token_path.parent.stat().st_mode)
    return judged(
        "api token",
        not (mode & 0o077) and not (dir_mode & 0o077),
        f"{token_path} (file {mode:o}, folder {dir_mode:o})",
        "Run `aria token rotate` (it writes a private file).",
        bad="FAIL",
    )


def _owner_or_port(settings: Settings) -> list[CheckResult]:
    """The running owner and its API port, or else whether the configured port is free."""
    from aria_desktop.adapters.storage.owner_lock import read_owner

    owner = read_owner(resolve_database_path(settings))
    if owner is not None:
        detail = f"ARIA runs as pid {owner.pid}"
        return [
            judged(
                "owner",
                bool(owner.port),
                detail + (f", API on port {owner.port}" if owner.port else ", no API yet"),
                "It may still be starting; check `aria status`.",
            )
        ]
    port = settings.api.port
    if not port:
        return []
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            free = True
        except OSError:
            free = False
    return [
        judged(
            "api port",
            free,
            f"port {port} is " + ("free" if free else "taken by another program"),
            "Choose another with `aria config set api.port PORT`.",
        )
    ]


def compat_urls(settings: Settings) -> list[CheckResult]:
    """Where Home Assistant, Open WebUI and ``openai``/``ollama`` scripts reach ARIA as a model."""
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.api.config import client_host

    compat = settings.compat
    if not compat.enabled:
        return [ok("model endpoints", "off (compat.enabled = false)")]
    owner = read_owner(resolve_database_path(settings))
    port = owner.port if owner is not None and owner.port else settings.api.port
    root = f"http://{client_host(settings.api.host)}:{port}"
    name = compat.models[0].split("=", 1)[0] if compat.models else "aria"
    key = "API key: the token from `aria token show`"
    remote = "" if settings.api.allow_remote else " (this computer only: see api.allow_remote)"
    return [
        ok("openai-compatible", f"base URL {root}/v1, model {name}, {key}{remote}"),
        ok("ollama-compatible", f"URL {root}, model {name}:latest, {key}{remote}"),
    ]
