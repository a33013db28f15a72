"""The MCP servers ARIA uses: one supervisor per server, their tools, calls and statuses.

Satisfies ``core.mcp.ports.McpHub`` structurally (ARCHITECTURE.md: MCP). Servers start in the
background: a chat turn never waits for one; its tools join the registry when it is up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aria_desktop.adapters.mcp.spec import SecretReader, server_spec
from aria_desktop.adapters.mcp.supervisor import ServerSupervisor
from aria_desktop.domain.errors import AriaError, McpServerError, NotFoundError
from aria_desktop.domain.mcp import (
    McpAsk,
    McpCallResult,
    McpPromptInfo,
    McpPromptText,
    McpReply,
    McpResourceInfo,
    McpServerStatus,
    McpToolInfo,
)
from aria_desktop.settings.schema_mcp import McpSettings

__all__ = ["McpHub", "build_hub"]

_LOGGER = logging.getLogger(__name__)


class McpHub:
    """Supervisors by server name, plus servers whose settings could not be used."""

    def __init__(
        self, supervisors: Mapping[str, ServerSupervisor], problems: Mapping[str, str]
    ) -> None:
        """Take the supervisors (not started) and the configuration problems by server."""
        self._supervisors = dict(supervisors)
        self._problems = dict(problems)
        self._listeners: list[Callable[[], None]] = []

    def _tools_changed(self, _server: str) -> None:
        for listener in self._listeners:
            try:
                listener()
            except Exception:
                _LOGGER.exception("MCP tool list listener failed")

    def on_tools_changed(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` whenever a server's tool list changed."""
        self._listeners.append(callback)

    def start(self) -> None:
        """Start every server in the background."""
        for supervisor in self._supervisors.values():
            supervisor.start()

    async def wait_started(self, timeout_s: float | None = None) -> None:
        """Until every server runs or failed for good (or ``timeout_s`` passed)."""
        waits = [supervisor.wait_started() for supervisor in self._supervisors.values()]
        if waits:
            try:
                async with asyncio.timeout(timeout_s):
                    await asyncio.gather(*waits)
            except TimeoutError:
                pass

    async def aclose(self) -> None:
        """Stop every server (each closes in its own task)."""
        await asyncio.gather(*(s.stop() for s in self._supervisors.values()))

    def tools(self) -> list[McpToolInfo]:
        """Every tool of every running server."""
        return [tool for s in self._supervisors.values() for tool in s.tools]

    def validator(self, tool: McpToolInfo) -> Callable[[dict[str, Any]], list[str]]:
        """A validator of the tool's arguments for the draft its ``$schema`` names.

        The default draft is 2020-12; a broken schema refuses every call.
        """
        import jsonschema
        from jsonschema.validators import validator_for

        try:
            cls = validator_for(tool.input_schema, default=jsonschema.Draft202012Validator)
            cls.check_schema(tool.input_schema)
            checker = cls(tool.input_schema)
        except jsonschema.SchemaError as exc:
            problem = f"the server's schema for {tool.name} is invalid: {exc.message}"
            return lambda _arguments: [problem]

        def validate(arguments: dict[str, Any]) -> list[str]:
            return [
                f"{'/'.join(map(str, error.absolute_path)) or '$'}: {error.message}"
                for error in checker.iter_errors(arguments)
            ]

        return validate

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> McpCallResult:
        """Call a tool of ``server``."""
        supervisor = self._supervisors.get(server)
        if supervisor is None:
            raise McpServerError(f"There is no MCP server named {server!r}.")
        return await supervisor.call(tool, arguments)

    def resources(self) -> list[McpResourceInfo]:
        """Every resource of every running server."""
        return [item for s in self._supervisors.values() for item in s.resources]

    def prompts(self) -> list[McpPromptInfo]:
        """Every prompt of every running server."""
        return [item for s in self._supervisors.values() for item in s.prompts]

    async def read_resource(self, server: str, uri: str) -> McpCallResult:
        """A server's resource as text."""
        return await self._supervisor(server).read_resource(uri)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpPromptText:
        """A server's prompt filled with ``arguments``."""
        return await self._supervisor(server).get_prompt(name, arguments)

    def set_asker(self, ask: Callable[[McpAsk], Awaitable[McpReply]]) -> None:
        """Send every server's questions (elicitation) to ``ask``."""
        for supervisor in self._supervisors.values():
            supervisor.ask = ask

    async def sign_in(self, server: str, *, browser: bool) -> str:
        """Sign in to ``server`` (the system browser when ``browser``); "" or the problem."""
        from aria_desktop.adapters.mcp.oauth import system_browser

        return await self._supervisor(server).sign_in(system_browser if browser else None)

    async def sign_out(self, server: str) -> str:
        """Revoke and forget the sign-in to ``server``; what happened."""
        return await self._supervisor(server).sign_out()

    def _supervisor(self, server: str) -> ServerSupervisor:
        supervisor = self._supervisors.get(server)
        if supervisor is None:
            raise NotFoundError(f"There is no MCP server named {server!r}.")
        return supervisor

    def statuses(self) -> list[McpServerStatus]:
        """Every configured server's status, misconfigured ones as failed."""
        found = [s.status() for s in self._supervisors.values()]
        found += [
            McpServerStatus(name=name, state="failed", transport="", where="", last_error=problem)
            for name, problem in self._problems.items()
        ]
        return sorted(found, key=lambda status: status.name)


def build_hub(settings: McpSettings, read_secret: SecretReader) -> McpHub:
    """Supervisors for the enabled servers (a server with bad settings is reported, not fatal)."""
    supervisors: dict[str, ServerSupervisor] = {}
    problems: dict[str, str] = {}
    hub_ref: list[McpHub] = []

    def changed(server: str) -> None:
        if hub_ref:
            hub_ref[0]._tools_changed(server)

    for name, server in settings.servers.items():
        if not server.enabled:
            continue
        try:
            spec = server_spec(name, server, read_secret)
        except AriaError as exc:
            problems[name] = f"{exc.message} {exc.hint}".strip()
            continue
        supervisors[name] = ServerSupervisor(
            spec, max_restarts=settings.max_restarts, on_tools=changed
        )
    hub = McpHub(supervisors, problems)
    hub_ref.append(hub)
    return hub
