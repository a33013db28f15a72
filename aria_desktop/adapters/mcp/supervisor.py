"""One MCP server kept running in its own task: start, watch, restart with backoff, stop.

The SDK's client must be entered and left in the same task (its transports hold anyio task
groups), so each server's connection lives in one long-running task owned by its supervisor
(ARCHITECTURE.md: MCP). Calls are made from the caller's task on the live session, each under
the server's call timeout: a call that times out or finds the connection gone marks the server
broken and the supervisor restarts it (backoff 0.5 s doubling to 30 s, at most
``max_restarts`` in a row), so ARIA never waits on a dead or hung server. A server that has not
started after ``startup_timeout_s`` counts as failed the same way.

A remote server that asks for a sign-in (OAuth, ``adapters/mcp/oauth.py``) and has no usable
grant is not retried: it waits in "needs-sign-in" until :meth:`ServerSupervisor.sign_in`
brings a browser for one attempt. A grant that exists is used and refreshed without asking.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aria_desktop.adapters.mcp.oauth import (
    Browser,
    GrantStore,
    oauth_provider,
    revoke_grant,
)
from aria_desktop.adapters.mcp.offers import list_offers, list_tools, prompt_text, resource_text
from aria_desktop.adapters.mcp.outcomes import describe, http_status, result_text, sign_in_needed
from aria_desktop.adapters.mcp.spec import ServerSpec
from aria_desktop.domain.errors import McpServerError
from aria_desktop.domain.mcp import (
    McpAsk,
    McpCallResult,
    McpPromptInfo,
    McpPromptText,
    McpReply,
    McpResourceInfo,
    McpServerState,
    McpServerStatus,
    McpToolInfo,
)

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["ServerSupervisor"]

_LOGGER = logging.getLogger(__name__)
_BACKOFF_START_S = 0.5
_BACKOFF_MAX_S = 30.0
_CLIENT_NAME = "aria-desktop"
_CONNECTION_CLOSED = -32000  # mcp_types.jsonrpc.CONNECTION_CLOSED
Asker = Callable[[McpAsk], Awaitable[McpReply]]
"""Puts a server's question to the person (``core/mcp/questions.py``) and brings the answer."""
_LIST_CHANGED = {
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
}
_PIDS_TAKEN: set[int] = set()
"""Child pids already attributed to a supervisor (two servers may run the same command)."""


class _Broken(Exception):
    """The session ended (crash, hang, transport closed): restart."""


class ServerSupervisor:
    """Keeps one server's session alive and offers its tools.

    Args:
        spec: how to reach it.
        max_restarts: consecutive failed starts or crashes before giving up.
        on_tools: called with the server's name whenever its tool list changed.
    """

    def __init__(
        self, spec: ServerSpec, *, max_restarts: int, on_tools: Callable[[str], None]
    ) -> None:
        """Prepare; nothing starts before :meth:`start`."""
        self.spec = spec
        self._max_restarts = max_restarts
        self._on_tools = on_tools
        self._client: Client | None = None
        self._tools: list[McpToolInfo] = []
        self._resources: list[McpResourceInfo] = []
        self._prompts: list[McpPromptInfo] = []
        self._state: McpServerState = "stopped"
        self._last_error = ""
        self._refusal = ""
        """The last refused HTTP request's status, kept while connecting over HTTP."""
        self._auth: Any = None
        self._restarts = 0
        self._protocol = ""
        self._pid: int | None = None
        self._broken = asyncio.Event()
        self._changed = asyncio.Event()
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._grant = GrantStore(spec.name) if spec.oauth is not None else None
        self._browser: Browser | None = None  # for the next connection attempt only
        self._resume = asyncio.Event()
        self._reconnect = asyncio.Event()  # signed out: end the session, connect again
        self._sign_in_outcome: asyncio.Future[str] | None = None
        self.ask: Asker | None = None
        """Where the server's questions go (None: every question is declined)."""
        self._deadlines: set[asyncio.Timeout] = set()
        """The call timeouts running now: paused while the person answers a question."""

    # --- state ----------------------------------------------------------------------------

    def status(self) -> McpServerStatus:
        """How the server is doing now."""
        return McpServerStatus(
            name=self.spec.name,
            state=self._state,
            transport=self.spec.transport.removeprefix("auto-"),
            where=self.spec.where,
            pid=self._pid,
            tools=tuple(tool.name for tool in self._tools),
            last_error=self._last_error,
            restarts=self._restarts,
            protocol=self._protocol,
            signs_in=self._grant is not None,
        )

    @property
    def grant_in_memory(self) -> bool:
        """Whether this process holds the sign-in only in memory (no usable keyring)."""
        return self._grant is not None and self._grant.kept_in_memory

    @property
    def resources(self) -> list[McpResourceInfo]:
        """The resources of the running session (none while it is down)."""
        return list(self._resources) if self._state == "running" else []

    @property
    def prompts(self) -> list[McpPromptInfo]:
        """The prompts of the running session (none while it is down)."""
        return list(self._prompts) if self._state == "running" else []

    @property
    def tools(self) -> list[McpToolInfo]:
        """The tools of the running session (none while it is down)."""
        return list(self._tools) if self._state == "running" else []

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the server in the background (its own task)."""
        if self._task is None:
            self._state = "starting"
            self._task = asyncio.create_task(self._run(), name=f"aria-mcp-{self.spec.name}")

    async def stop(self) -> None:
        """Close the session (in its own task) and wait for the server to end."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._state = "stopped"

    async def wait_started(self) -> None:
        """Until the server runs, or failed for good (``aria mcp servers``, tests)."""
        await self._settled.wait()

    async def _run(self) -> None:
        failures = 0
        backoff = _BACKOFF_START_S
        while not self._stop.is_set():
            try:
                await self._session_once()
                failures, backoff = 0, _BACKOFF_START_S
            except Exception as exc:
                if sign_in_needed(exc):
                    self._set_tools([])
                    await self._wait_for_sign_in()
                    failures, backoff = 0, _BACKOFF_START_S
                    continue
                self._last_error = describe(exc)
                self._end_sign_in(self._last_error)
                _LOGGER.warning("MCP server %s: %s", self.spec.name, self._last_error)
            self._set_tools([])
            if self._stop.is_set():
                self._settled.set()
                break
            if self._reconnect.is_set():  # signed out: connect again at once, not a failure
                self._reconnect.clear()
                self._state = "starting"
                continue
            failures += 1
            if failures > self._max_restarts:
                self._state = "failed"
                self._settled.set()
                _LOGGER.error(
                    "MCP server %s failed %d times; left stopped", self.spec.name, failures
                )
                return
            self._state = "restarting"
            self._settled.clear()
            self._restarts += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), backoff)
            backoff = min(backoff * 2, _BACKOFF_MAX_S)

    async def _wait_for_sign_in(self) -> None:
        """Wait in "needs-sign-in" until the user signs in (or ARIA stops)."""
        self._state = "needs-sign-in"
        self._last_error = "needs you to sign in"
        self._end_sign_in(self._last_error)
        self._resume.clear()
        self._settled.set()
        _LOGGER.info("MCP server %s waits for the user to sign in", self.spec.name)
        stop = asyncio.ensure_future(self._stop.wait())
        resume = asyncio.ensure_future(self._resume.wait())
        try:
            await asyncio.wait({stop, resume}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            resume.cancel()
        self._state = "starting"

    def _end_sign_in(self, outcome: str) -> None:
        """Answer a waiting :meth:`sign_in` ("" = signed in and running)."""
        waiting, self._sign_in_outcome = self._sign_in_outcome, None
        if waiting is not None and not waiting.done():
            waiting.set_result(outcome)

    async def sign_in(self, browser: Browser | None) -> str:
        """Sign in (OAuth) with ``browser`` showing the server's page; "" or what went wrong.

        Connects once with the browser (None: with a grant another process stored); a running
        server is left as it is. It may take minutes (the person in the browser).
        """
        if self._grant is None:
            return f"{self.spec.name} does not use a sign-in."
        if self._state == "running":
            return ""
        self._sign_in_outcome = asyncio.get_running_loop().create_future()
        outcome = self._sign_in_outcome
        self._browser = browser
        if self._task is None or self._task.done():
            self._task = None
            self._stop.clear()
            self.start()
        else:
            self._resume.set()
        return await outcome

    async def sign_out(self) -> str:
        """Revoke and forget the grant; the server then waits for a new sign-in."""
        if self._grant is None or self.spec.oauth is None:
            return f"{self.spec.name} does not use a sign-in."
        said = await revoke_grant(self._grant, self.spec.oauth)
        if self._state == "running":
            # End the session and connect again without the grant: the server then waits
            # for a new sign-in (``wait_started`` returns once it does).
            self._settled.clear()
            self._reconnect.set()
        return said

    async def _session_once(self) -> None:
        """Start, serve until broken or stopped, close: all in this task."""
        self._broken.clear()
        browser, self._browser = self._browser, None
        async with contextlib.AsyncExitStack() as stack:
            try:
                # A sign-in waits for a person: the startup limit would cut it short.
                limit = self.spec.startup_timeout_s if browser is None else None
                async with asyncio.timeout(limit):
                    client = await self._connect(stack, browser)
                    tools = await self._list_tools(client)
            except TimeoutError:
                raise McpServerError(
                    f"did not start within {self.spec.startup_timeout_s:g} s"
                ) from None
            self._client = client
            self._protocol = client.protocol_version
            if self.spec.transport == "stdio":
                from aria_desktop.adapters.mcp.children import find_child

                self._pid = find_child(self.spec.command, self.spec.args, _PIDS_TAKEN)
                if self._pid is not None:
                    _PIDS_TAKEN.add(self._pid)
            self._state = "running"
            self._last_error = ""
            self._set_tools(tools)
            await self._list_offers(client)
            self._settled.set()
            self._end_sign_in("")
            _LOGGER.info(
                "MCP server %s running (%s, %d tools)", self.spec.name, self._protocol, len(tools)
            )
            listener = self._listen(client)
            try:
                await self._serve(client)
            finally:
                self._client = None
                if self._pid is not None:
                    _PIDS_TAKEN.discard(self._pid)
                    self._pid = None
                if listener is not None:
                    listener.cancel()
                    with contextlib.suppress(BaseException):
                        await listener

    async def _serve(self, client: Client) -> None:
        stop = asyncio.ensure_future(self._stop.wait())
        broken = asyncio.ensure_future(self._broken.wait())
        reconnect = asyncio.ensure_future(self._reconnect.wait())
        try:
            while True:
                changed = asyncio.ensure_future(self._changed.wait())
                await asyncio.wait(
                    {stop, broken, changed, reconnect}, return_when=asyncio.FIRST_COMPLETED
                )
                changed.cancel()
                if stop.done() or reconnect.done():
                    return
                if broken.done():
                    raise _Broken(self._last_error or "the connection broke")
                self._changed.clear()
                try:
                    async with asyncio.timeout(self.spec.call_timeout_s):
                        self._set_tools(await self._list_tools(client))
                        await self._list_offers(client)
                except Exception as exc:
                    raise _Broken(f"listing tools failed: {describe(exc)}") from exc
        finally:
            stop.cancel()
            broken.cancel()
            reconnect.cancel()

    def _listen(self, client: Client) -> asyncio.Task[None] | None:
        """On 2026-07-28 connections, a ``subscriptions/listen`` stream for list changes."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None

        async def listen() -> None:
            with contextlib.suppress(Exception):
                async with client.listen(tools_list_changed=True) as subscription:
                    async for _event in subscription:
                        self._changed.set()

        return asyncio.create_task(listen(), name=f"aria-mcp-{self.spec.name}-listen")

    async def _connect(self, stack: contextlib.AsyncExitStack, browser: Browser | None) -> Client:
        from mcp import Client, Implementation

        from aria_desktop import __version__

        info = Implementation(name=_CLIENT_NAME, version=__version__)
        transport = self.spec.transport
        self._refusal = ""
        self._auth = self._oauth(browser)
        if transport == "auto-http":
            return await self._connect_auto_http(stack, info)
        client = Client(
            self._transport(transport),
            client_info=info,
            message_handler=self._on_message,
            elicitation_callback=self._elicit,
        )
        return await stack.enter_async_context(client)

    def _new_client(self, transport: str, info: Any) -> Client:
        """The SDK client over ``transport``, with ARIA's message and question handlers."""
        from mcp import Client

        return Client(
            self._transport(transport),
            client_info=info,
            message_handler=self._on_message,
            elicitation_callback=self._elicit,
        )

    def _oauth(self, browser: Browser | None) -> Any:
        """The SDK's OAuth provider for this connection (None: the server signs in no one)."""
        if self._grant is None or self.spec.oauth is None:
            return None
        return oauth_provider(self.spec.name, self.spec.url, self.spec.oauth, self._grant, browser)

    async def _connect_auto_http(self, stack: contextlib.AsyncExitStack, info: Any) -> Client:
        """Streamable HTTP, else the legacy SSE transport; a failure names the first answer.

        The first answer is the cause (a 401 and its sign-in challenge, a 403…); the SSE
        endpoint's 404 after it only says the server does not have the legacy transport.
        """
        from mcp import Client

        try:
            async with contextlib.AsyncExitStack() as attempt:
                client = await attempt.enter_async_context(
                    Client(
                        self._transport("http"),
                        client_info=info,
                        message_handler=self._on_message,
                        elicitation_callback=self._elicit,
                    )
                )
                stack.push_async_exit(attempt.pop_all())
                return client
        except Exception as exc:
            if sign_in_needed(exc):
                raise
            first = self._refusal or describe(exc)
        _LOGGER.info(
            "MCP server %s: streamable HTTP failed (%s); trying SSE", self.spec.name, first
        )
        try:
            return await stack.enter_async_context(
                Client(
                    self._transport("sse"),
                    client_info=info,
                    message_handler=self._on_message,
                    elicitation_callback=self._elicit,
                )
            )
        except Exception as exc:
            raise McpServerError(f"{first}; then over SSE: {describe(exc)}") from exc

    def _transport(self, kind: str) -> Any:
        spec = self.spec
        if kind == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import get_default_environment

            return StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                env=get_default_environment() | dict(spec.env),
                cwd=spec.cwd or None,
            )
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = dict(spec.headers)
        if kind == "sse":
            from mcp.client.sse import sse_client

            return sse_client(spec.url, headers=headers, auth=self._auth)
        from mcp.client.streamable_http import streamable_http_client

        http_client = create_mcp_http_client(headers=headers, auth=self._auth)
        http_client.event_hooks = {"response": [self._note_refusal]}
        return streamable_http_client(spec.url, http_client=http_client)

    async def _note_refusal(self, response: Any) -> None:
        """Keep the status (and sign-in challenge) of a refused request: the SDK hides it.

        A 401/403 answered to the streamable HTTP request becomes a generic JSON-RPC error in
        the SDK; the status and ``WWW-Authenticate`` are what the user needs to act.
        """
        if response.status_code >= 400:
            self._refusal = http_status(response)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._last_error = describe(message)
            self._broken.set()
        elif getattr(message, "method", "") in _LIST_CHANGED:
            self._changed.set()

    async def _elicit(self, context: Any, params: Any) -> Any:
        """A server's question during a call: asked out of band, the call's timeout paused.

        A page (URL mode) opens in the browser only after the person agreed, having seen its
        domain. No asker, or no answer, declines.
        """
        from mcp.types import ElicitResult

        if self.ask is None:
            return ElicitResult(action="decline")
        mode = getattr(params, "mode", "form")
        if mode == "url":
            ask = McpAsk(server=self.spec.name, message=params.message, mode="url", url=params.url)
        else:
            schema = params.requested_schema
            fields = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True)
            ask = McpAsk(server=self.spec.name, message=params.message, fields=fields)
        paused = [(deadline, deadline.when()) for deadline in self._deadlines]
        for deadline, _when in paused:
            deadline.reschedule(None)
        try:
            reply = await self.ask(ask)
        finally:
            now = asyncio.get_running_loop().time()
            for deadline, _when in paused:
                deadline.reschedule(now + self.spec.call_timeout_s)
        if reply.action == "accept" and ask.mode == "url":
            from aria_desktop.adapters.mcp.oauth import system_browser

            try:
                await system_browser(ask.url)
            except McpServerError as exc:
                _LOGGER.warning("MCP server %s: %s (%s)", self.spec.name, exc.message, ask.url)
        content = reply.values if reply.action == "accept" and ask.mode == "form" else None
        return ElicitResult(action=reply.action, content=content)

    async def _list_offers(self, client: Client) -> None:
        """Resources and prompts, where offered (extras: failing to list them spares the tools)."""
        try:
            async with asyncio.timeout(self.spec.call_timeout_s):
                self._resources, self._prompts = await list_offers(client, self.spec.name)
        except Exception as exc:
            self._resources, self._prompts = [], []
            _LOGGER.warning(
                "MCP server %s: its resources and prompts could not be listed: %s",
                self.spec.name,
                describe(exc),
            )

    async def read_resource(self, uri: str) -> McpCallResult:
        """A resource's content as text (under the call timeout; errors as an error result)."""
        result = await self._request(f"reading {uri}", lambda client: client.read_resource(uri))
        return resource_text(result)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> McpPromptText:
        """A prompt filled with ``arguments``: its messages as (role, text)."""
        result = await self._request(
            f"the prompt {name}", lambda client: client.get_prompt(name, arguments)
        )
        return prompt_text(self.spec.name, name, result)

    async def _request(self, what: str, send: Callable[[Client], Awaitable[Any]]) -> Any:
        """One request on the live session, under the call timeout; McpServerError if not."""
        from mcp.shared.exceptions import MCPError

        client = self._client
        if client is None or self._state != "running":
            raise McpServerError(f"The MCP server {self.spec.name} is {self._state}.")
        try:
            async with asyncio.timeout(self.spec.call_timeout_s):
                return await send(client)
        except TimeoutError:
            raise McpServerError(
                f"The MCP server {self.spec.name} did not answer {what} in time."
            ) from None
        except MCPError as exc:
            raise McpServerError(f"The MCP server {self.spec.name} refused {what}: {exc}") from None

    async def _list_tools(self, client: Client) -> list[McpToolInfo]:
        return await list_tools(client, self.spec.name)

    def _set_tools(self, tools: list[McpToolInfo]) -> None:
        if tools != self._tools:
            self._tools = tools
            self._on_tools(self.spec.name)

    # --- calls ----------------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> McpCallResult:
        """Call ``tool`` under the call timeout; McpServerError if the server fails or hangs."""
        client = self._client
        if client is None or self._state != "running":
            why = f": {self._last_error}" if self._last_error else ""
            raise McpServerError(
                f"The MCP server {self.spec.name} is {self._state}{why}.",
                hint="See `aria mcp servers`; ARIA restarts a crashed server by itself.",
            )
        from mcp.shared.exceptions import MCPError

        try:
            async with asyncio.timeout(self.spec.call_timeout_s) as deadline:
                self._deadlines.add(deadline)
                try:
                    result = await client.call_tool(tool, arguments)
                finally:
                    self._deadlines.discard(deadline)
        except TimeoutError:
            self._fail(f"{tool} did not answer within {self.spec.call_timeout_s:g} s")
            raise McpServerError(
                f"The MCP server {self.spec.name} did not answer in time; it is being restarted.",
                hint=f"Raise mcp.servers.{self.spec.name}.call_timeout_s if it is just slow.",
            ) from None
        except MCPError as exc:
            if exc.error.code == _CONNECTION_CLOSED or self._broken.is_set():
                self._fail(f"the connection closed during {tool}")
                raise McpServerError(
                    f"The MCP server {self.spec.name} stopped during the call ({exc}).",
                    hint="It is being restarted; try again in a moment.",
                ) from None
            return McpCallResult(text=str(exc), is_error=True)
        except Exception as exc:
            self._fail(describe(exc))
            raise McpServerError(
                f"The MCP server {self.spec.name} failed during the call: {describe(exc)}",
                hint="It is being restarted; try again in a moment.",
            ) from None
        return McpCallResult(text=result_text(result), is_error=bool(result.is_error))

    def _fail(self, why: str) -> None:
        self._last_error = why
        self._broken.set()
