"""How ARIA's MCP tools fail: a ``ToolError`` the client reads, from a message or an AriaError.

The MCP SDK is imported only once a tool fails (a server is built by then), so importing the
tool modules stays cheap.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from aria_desktop.domain.errors import AriaError

if TYPE_CHECKING:
    from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["failure_text", "tool_error", "tool_failure"]


def failure_text(exc: AriaError) -> str:
    """``exc`` as the JSON a client can read: its code, message and hint."""
    return json.dumps({"error": exc.code, "message": exc.message, "hint": exc.hint})


def tool_error(message: str) -> ToolError:
    """The error a tool call answers with."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def tool_failure(exc: AriaError) -> ToolError:
    """The error a tool call answers with when ARIA refused or failed (``failure_text``)."""
    return tool_error(failure_text(exc))
