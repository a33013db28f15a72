"""Serving the API on the running event loop (plain asyncio or qasync), never in a thread.

Pitfalls handled here (ARCHITECTURE.md: one loop): the socket is bound by us, so a busy port is
an ``ApiBindError`` instead of uvicorn's ``sys.exit`` inside a task; uvicorn's signal capture is
switched off (the owner handles SIGINT/SIGTERM with ``loop.add_signal_handler`` and calls
:meth:`ApiServer.stop`); open event streams are ended by us at shutdown, so they never hold the
stop up.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
from collections.abc import Generator

import uvicorn

from aria_desktop.api.app import ApiApp, create_app
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.token import TokenFile
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.errors import ApiBindError

__all__ = ["ApiServer", "bind_socket", "is_loopback"]

_LOGGER = logging.getLogger(__name__)
_BACKLOG = 1024
_CONNECTION_LIMIT = 1024
"""Concurrent connections + requests uvicorn serves before answering 503 (bounds memory)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int, *, allow_remote: bool) -> socket.socket:
    """A listening, non-blocking TCP socket.

    Raises:
        ApiBindError: a non-loopback host without ``allow_remote``, or the port is taken.
    """
    if not is_loopback(host) and not allow_remote:
        raise ApiBindError(
            f"The API is set to listen on {host}, which other computers can reach.",
            hint="Use 127.0.0.1, or set api.allow_remote = true if you really want that.",
        )
    bind_host = "127.0.0.1" if host.lower().startswith("localhost") else host.strip("[]")
    family = socket.AF_INET6 if ":" in bind_host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP, and without it Nagle + delayed ACK add 40 ms to every keep-alive response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((bind_host, port))
        sock.listen(_BACKLOG)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ApiBindError(
                f"Port {port} on {bind_host} is already in use.",
                hint="Stop the other program, or choose another port with api.port.",
            ) from None
        raise ApiBindError(
            f"Could not listen on {bind_host}:{port}: {exc.strerror or exc}.",
            hint="Check api.host and api.port.",
        ) from None
    return sock


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handling (the owner process has its own)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """Leave the process's signal handlers alone."""
        yield


class ApiServer:
    """The API served from a socket we bound, as a task on the current loop.

    Args:
        assistant: what the routes drive.
        config: address and limits.
        token: the bearer token file (created if missing, replaced if others could read it).
        version: ARIA's version.
        http: uvicorn's HTTP implementation ("httptools" or "h11").
    """

    def __init__(
        self,
        assistant: Assistant,
        *,
        config: ApiConfig,
        token: TokenFile,
        version: str,
        http: str = "httptools",
    ) -> None:
        self.config = config
        self._token = token
        self._version = version
        self._http = http
        self._sock: socket.socket | None = None
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self.app: ApiApp = create_app(
            assistant, config=config, token=token, version=version, port=lambda: self.port
        )

    @property
    def port(self) -> int:
        """The port listened on (the real one when ``config.port`` was 0)."""
        if self._sock is None:
            return self.config.port
        return int(self._sock.getsockname()[1])

    @property
    def url(self) -> str:
        """Base URL for clients on this machine."""
        return f"http://127.0.0.1:{self.port}"

    def bind(self) -> int:
        """Bind the socket now (before taking requests); returns the port."""
        if self._sock is None:
            self._token.ensure()
            self._sock = bind_socket(
                self.config.host, self.config.port, allow_remote=self.config.allow_remote
            )
        return self.port

    async def start(self) -> None:
        """Bind (if not yet) and serve in a named task; returns once the server listens."""
        self.bind()
        assert self._sock is not None
        uv_config = uvicorn.Config(
            self.app.asgi,
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            http=self._http,
            ws="none",
            limit_concurrency=_CONNECTION_LIMIT,
            h11_max_incomplete_event_size=self.config.max_header_bytes,
            timeout_graceful_shutdown=int(max(1, self.config.graceful_timeout_s)),
            timeout_keep_alive=30,
        )
        self._server = _EmbeddedServer(uv_config)
        self._task = asyncio.create_task(
            self._server.serve(sockets=[self._sock]), name="aria-api-server"
        )
        async with asyncio.timeout(10):
            while not self._server.started:
                if self._task.done():
                    await self._task  # raises what went wrong
                    raise ApiBindError("The API server stopped while starting.")
                await asyncio.sleep(0.005)
        _LOGGER.info("Local API listening on %s:%d", self.config.host, self.port)

    def close_streams(self) -> None:
        """End every event stream now (each gets ``close`` with reason ``shutdown``)."""
        self.app.streams.close_all()

    async def stop(self) -> None:
        """Stop listening, end streams and MCP sessions, finish requests in flight (bounded)."""
        self.close_streams()
        if self.app.mcp is not None:
            await self.app.mcp.aclose()
        server, task = self._server, self._task
        if server is None or task is None:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
            return
        server.should_exit = True
        try:
            async with asyncio.timeout(self.config.graceful_timeout_s + 5):
                await asyncio.shield(task)
        except TimeoutError:
            _LOGGER.warning("The API server did not stop in time; cancelling it")
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._server = self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        _LOGGER.info("Local API stopped")
