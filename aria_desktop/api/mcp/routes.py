"""``/mcp``: ARIA's MCP server over streamable HTTP, behind the API's token, Host/Origin and limits.

The security middleware wraps it like every route (ARCHITECTURE.md: MCP).

The SDK's session manager needs a task group that lives as long as the server: it runs in one
task started with the first request and ended by :meth:`McpEndpoint.aclose` when the API stops
(start and close in the same task). The server is built on first use (``screen_read`` is
offered when computer use is on then).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep, PathId
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.commands import (
    AnswerMcpQuestion,
    ApproveMcpTool,
    GetMcpPrompt,
    ListMcp,
    ReadMcpResource,
    SetMcpToolPolicy,
    SignInMcpServer,
    SignOutMcpServer,
)
from aria_desktop.domain.errors import NotFoundError

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

__all__ = ["MCP_PATH", "McpEndpoint", "router"]

MCP_PATH = "/mcp"

router = APIRouter(prefix=PREFIX, tags=["mcp"])


class McpPolicyIn(BaseModel):
    """A tool's new policy."""

    policy: str = Field(pattern="^(always|ask|never)$")


async def _has_mcp(assistant: Assistant) -> bool:
    return any(status.name == "mcp" for status in await assistant.capabilities())


@router.get(
    "/mcp/servers",
    summary="The MCP servers ARIA uses: status, tools, policies and approvals",
    responses=docs.responses(docs.COMMON),
)
async def mcp_overview(assistant: AssistantDep) -> dict[str, Any]:
    if not await _has_mcp(assistant):
        return {"servers": [], "tools": []}
    return dataclasses.asdict(await assistant.execute(ListMcp()))


@router.post(
    "/mcp/tools/{tool}/policy",
    status_code=204,
    response_class=Response,
    summary="Set an MCP tool's policy until ARIA restarts (the settings keep it after)",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND),
)
async def mcp_tool_policy(tool: str, body: McpPolicyIn, assistant: AssistantDep) -> Response:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP tool {tool!r}: MCP is off.")
    await assistant.execute(SetMcpToolPolicy(tool=tool, policy=body.policy))
    return Response(status_code=204)


@router.post(
    "/mcp/tools/{tool}/approve",
    status_code=204,
    response_class=Response,
    summary="Approve an MCP tool as it is now (after reviewing a change)",
    responses=docs.responses(docs.COMMON, docs.NOT_FOUND),
)
async def mcp_tool_approve(tool: str, assistant: AssistantDep) -> Response:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP tool {tool!r}: MCP is off.")
    await assistant.execute(ApproveMcpTool(tool=tool))
    return Response(status_code=204)


class McpSignInIn(BaseModel):
    """How to sign in."""

    browser: bool = Field(
        default=True,
        description="Open the server's sign-in page in the system browser and wait for the "
        "person (up to 5 minutes); false: only connect again with a sign-in already stored.",
    )


@router.post(
    "/mcp/servers/{server}/sign-in",
    summary="Sign in to a remote MCP server (OAuth): problem is empty once it runs",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND),
)
async def mcp_sign_in(server: str, body: McpSignInIn, assistant: AssistantDep) -> dict[str, str]:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP server {server!r}: MCP is off.")
    problem = await assistant.execute(SignInMcpServer(server=server, browser=body.browser))
    return {"problem": problem}


@router.post(
    "/mcp/servers/{server}/sign-out",
    summary="Revoke and forget the sign-in to an MCP server",
    responses=docs.responses(docs.COMMON, docs.NOT_FOUND),
)
async def mcp_sign_out(server: str, assistant: AssistantDep) -> dict[str, str]:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP server {server!r}: MCP is off.")
    return {"result": await assistant.execute(SignOutMcpServer(server=server))}


class McpReadIn(BaseModel):
    """Which resource to read."""

    model_config = ConfigDict(extra="forbid")

    uri: str = Field(min_length=1, max_length=4000)


@router.post(
    "/mcp/servers/{server}/resources/read",
    summary="Read a server's resource as text (is_error: the server refused it)",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND),
)
async def mcp_read(server: str, body: McpReadIn, assistant: AssistantDep) -> dict[str, Any]:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP server {server!r}: MCP is off.")
    read = await assistant.execute(ReadMcpResource(server=server, uri=body.uri))
    return {"text": read.text, "is_error": read.is_error}


class McpPromptIn(BaseModel):
    """The prompt's arguments."""

    model_config = ConfigDict(extra="forbid")

    arguments: dict[str, str] = Field(default_factory=dict, max_length=50)


@router.post(
    "/mcp/servers/{server}/prompts/{name}",
    summary="A server's prompt filled with its arguments: its messages as text",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND),
)
async def mcp_prompt(
    server: str, name: str, body: McpPromptIn, assistant: AssistantDep
) -> dict[str, Any]:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP server {server!r}: MCP is off.")
    got = await assistant.execute(GetMcpPrompt(server=server, name=name, arguments=body.arguments))
    return {
        "server": got.server,
        "name": got.name,
        "messages": [{"role": role, "text": text} for role, text in got.messages],
    }


class McpAnswerIn(BaseModel):
    """The person's answer to an ``mcp-question`` (echo its nonce)."""

    model_config = ConfigDict(extra="forbid")

    nonce: str = Field(min_length=1, max_length=256)
    action: Literal["accept", "decline", "cancel"]
    values: dict[str, str | int | float | bool | list[str] | None] = Field(
        default_factory=dict,
        max_length=100,
        description="The form's fields (accept, form mode); a field left out takes its default.",
    )


@router.post(
    "/mcp/questions/{request_id}/answer",
    status_code=204,
    response_class=Response,
    summary="Answer a tool server's question (an mcp-question event; echo its nonce)",
    responses=docs.responses(
        docs.COMMON,
        docs.BODY,
        {409: docs.error("No such open question, a wrong nonce, or values that do not fit")},
    ),
)
async def mcp_answer(request_id: PathId, body: McpAnswerIn, assistant: AssistantDep) -> Response:
    if not await _has_mcp(assistant):
        raise NotFoundError(f"No MCP question {request_id!r}: MCP is off.")
    await assistant.execute(
        AnswerMcpQuestion(
            request_id=request_id, nonce=body.nonce, action=body.action, values=body.values
        )
    )
    return Response(status_code=204)


class McpEndpoint:
    """The ASGI endpoint at ``/mcp``.

    Args:
        assistant: what the MCP tools drive.
        version: ARIA's version (server info).
    """

    def __init__(self, assistant: Assistant, *, version: str) -> None:
        """Nothing is built before the first request."""
        self._assistant = assistant
        self._version = version
        self._app: Any = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _start(self) -> None:
        from mcp.server.transport_security import TransportSecuritySettings

        from aria_desktop.api.mcp.server import (
            build_mcp_server,
            computer_enabled,
            knowledge_sources,
        )

        server = build_mcp_server(
            self._assistant,
            version=self._version,
            computer_on=await computer_enabled(self._assistant),
            recall_sources=knowledge_sources(self._assistant),
        )
        # Host and Origin are checked by ARIA's middleware, for every route the same way.
        app = server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = server.session_manager
        ready = self._ready
        assert ready is not None

        async def run() -> None:
            try:
                async with manager.run():
                    self._app = app
                    ready.set_result(None)
                    await self._stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

        self._task = asyncio.create_task(run(), name="aria-mcp-http")
        await ready

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request (starting the server on the first)."""
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_future()
            await self._start()
        await asyncio.shield(self._ready)
        await self._app(scope, receive, send)

    async def aclose(self) -> None:
        """End the MCP sessions and the manager's task (the API is stopping)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
