"""Reading the MCP servers people already configured elsewhere.

Claude Desktop's ``claude_desktop_config.json`` keeps them under ``mcpServers``, VS Code's
``mcp.json`` under ``servers``; both give stdio servers as ``command``/``args``/``env`` and
remote ones as ``url`` (+ ``headers``, ``type`` "http"/"sse"). Values that look like secrets
(variables or headers named token, key, secret, password, authorization) are returned apart,
so the caller stores them in the keyring and the settings hold only ``keyring:`` references.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aria_desktop.domain.errors import ConfigError

__all__ = ["ImportedServer", "read_servers"]

_SECRET_NAME_RE = re.compile(r"token|key|secret|passw|auth|credential|cookie", re.I)
_SERVER_NAME_RE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass
class ImportedServer:
    """One server as ARIA's settings table, with the secrets pulled out.

    Attributes:
        name: the settings name (characters outside ``A-Za-z0-9_-`` become ``_``).
        table: the ``[mcp.servers.<name>]`` table (secrets already replaced by references).
        secrets: keyring secret name -> value, to store before the table is written.
    """

    name: str
    table: dict[str, Any]
    secrets: dict[str, str] = field(default_factory=dict)


def _secret_name(server: str, label: str) -> str:
    return "mcp_" + re.sub(r"[^a-z0-9_]", "_", f"{server}_{label}".lower())[:56]


def _one(name: str, raw: Any) -> ImportedServer:
    if not isinstance(raw, dict):
        raise ConfigError(f"The server {name!r} is not a JSON object.")
    server = ImportedServer(name=_SERVER_NAME_RE.sub("_", name), table={})
    table = server.table
    kind = str(raw.get("type", "")).lower()
    if raw.get("command"):
        table["command"] = str(raw["command"])
        table["args"] = [str(a) for a in raw.get("args", [])]
        if raw.get("cwd"):
            table["cwd"] = str(raw["cwd"])
    elif raw.get("url"):
        table["url"] = str(raw["url"])
        table["transport"] = "sse" if kind == "sse" else "http" if kind == "http" else "auto"
    else:
        raise ConfigError(f"The server {name!r} has neither a command nor a url.")
    env = []
    for var, value in dict(raw.get("env") or {}).items():
        if _SECRET_NAME_RE.search(var):
            secret = _secret_name(server.name, var)
            server.secrets[secret] = str(value)
            value = f"keyring:{secret}"
        env.append(f"{var}={value}")
    if env:
        table["env"] = env
    headers = []
    for header, value in dict(raw.get("headers") or {}).items():
        text = str(value)
        if _SECRET_NAME_RE.search(header):
            secret = _secret_name(server.name, header)
            scheme, _, credential = text.partition(" ")
            if credential and scheme.lower() in ("bearer", "basic", "token"):
                server.secrets[secret] = credential
                text = f"{scheme} keyring:{secret}"
            else:
                server.secrets[secret] = text
                text = f"keyring:{secret}"
        headers.append(f"{header}: {text}")
    if headers:
        table["headers"] = headers
    return server


def read_servers(path: Path) -> list[ImportedServer]:
    """The servers of a Claude Desktop or VS Code MCP configuration file.

    Raises:
        ConfigError: unreadable file, not JSON, or no ``mcpServers``/``servers`` object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}.") from None
    servers = data.get("mcpServers", data.get("servers")) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(
            f"{path} has no 'mcpServers' (Claude Desktop) or 'servers' (VS Code) object.",
            hint="Pass claude_desktop_config.json or .vscode/mcp.json.",
        )
    return [_one(name, raw) for name, raw in servers.items()]
