"""A small scriptable HTTP/1.1 server for protocol-level tests (never imported by the package).

It runs its own asyncio loop in a background thread, so the code under test talks to it over a
real socket exactly as it would to Ollama or Anthropic. Each route answers from a FIFO script of
``Reply`` values (falling back to the route's default handler when the script is empty). A
streamed reply is a list of steps — ``Send`` bytes (one chunk of chunked transfer encoding),
``Sleep``, ``Drop`` the connection, ``Vanish`` before answering, ``Hang`` until the client goes
away — so tests can stall before the first token, stall mid-stream, cut the stream or send
garbage.

The server records every request it receives and notices when a client disconnects while a
reply is still in progress (for cancellation tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Self
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Send:
    """Write one chunk of the body (headers go out before the first one)."""

    data: bytes


@dataclass(frozen=True)
class Sleep:
    """Wait before the next step (ends early if the client disconnects)."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """Close the connection without finishing the body (a cut stream)."""


@dataclass(frozen=True)
class Vanish:
    """Close the connection before any byte of the response, as a server closing an idle
    kept-alive connection just as a request arrives on it does."""


@dataclass(frozen=True)
class Hang:
    """Never finish: wait until the client disconnects or the server stops."""


@dataclass(frozen=True)
class Await:
    """Hold the reply until the test sets ``event`` (at most ``timeout_s``): an event, not a
    sleep, decides when a scripted reply goes on."""

    event: threading.Event
    timeout_s: float = 30.0


Step = Send | Sleep | Drop | Vanish | Hang | Await


@dataclass
class Reply:
    """One scripted response.

    ``body`` set: a plain response with Content-Length. Otherwise ``steps`` are streamed with
    chunked transfer encoding; headers are sent lazily with the first ``Send`` (a ``Sleep``
    before it delays the headers too, like Ollama loading a model).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    steps: list[Step] = field(default_factory=list)


def json_reply(status: int, obj: Any, headers: dict[str, str] | None = None) -> Reply:
    """A non-streamed JSON response."""
    return Reply(
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
        body=json.dumps(obj).encode(),
    )


def split_text(text: str, chunks: int) -> list[str]:
    """``text`` cut into ``chunks`` nearly equal, non-empty pieces (fewer if text is short)."""
    chunks = max(1, min(chunks, len(text))) if text else 1
    size, extra = divmod(len(text), chunks)
    pieces, pos = [], 0
    for i in range(chunks):
        n = size + (1 if i < extra else 0)
        pieces.append(text[pos : pos + n])
        pos += n
    return [p for p in pieces if p] or [""]


@dataclass
class RecordedRequest:
    """A request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    query: str = ""
    """The query string (without ``?``): the route is found by ``path`` alone."""

    def json(self) -> Any:
        return json.loads(self.body)


Handler = Callable[[RecordedRequest], Reply]


class FakeHTTPServer:
    """Base test server: subclasses register routes in ``__init__``."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Handler] = {}
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self.connections = 0
        """TCP connections accepted (a client that pools its connection opens one)."""
        self.port = 0
        self._scripts: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._disconnected = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._stopping: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # --- scripting -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, path: str, *replies: Reply) -> None:
        """Queue replies for ``path`` (FIFO); when used up the route's default answers."""
        with self._lock:
            self._scripts.setdefault(path, deque()).extend(replies)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._scripts.clear()
            self.disconnects = 0
            self._disconnected.clear()

    async def wait_disconnect(self, timeout_s: float = 2.0) -> bool:
        """Whether a client dropped an in-progress reply within ``timeout_s`` (async-friendly)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._disconnected.is_set():
                return True
            await asyncio.sleep(0.01)
        return self._disconnected.is_set()

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            queue = self._scripts.get(request.path)
            if queue:
                return queue.popleft()
        handler = self.routes.get((request.method, request.path))
        if handler is None:
            return json_reply(404, {"error": f"no route {request.method} {request.path}"})
        return handler(request)

    # --- lifecycle -------------------------------------------------------------------------

    def start(self, port: int = 0) -> Self:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._serve(port, ready.set))
            except BaseException as exc:  # pragma: no cover - surfaced to start()
                errors.append(exc)
                ready.set()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name=type(self).__name__, daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fake server did not start")
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _serve(self, port: int, on_ready: Callable[[], None]) -> None:
        """Serve until stopped (also used directly by the command-line runners)."""
        self._stopping = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", port)
        self.port = self._server.sockets[0].getsockname()[1]
        on_ready()
        try:
            await self._stopping.wait()
        finally:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()

    # --- HTTP ------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        with self._lock:
            self.connections += 1
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                with self._lock:
                    self.requests.append(request)
                reply = self._next_reply(request)
                if not await self._respond(reader, writer, reply):
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        body = b""
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    break
                parts.append(await reader.readexactly(size))
                await reader.readexactly(2)
            body = b"".join(parts)
        if "://" in target:
            # Absolute form (RFC 9112 §3.2.2): a client uses this server as its HTTP proxy, so
            # a test can give a backend a non-loopback URL while all traffic stays on loopback.
            split = urlsplit(target)
            target = (split.path or "/") + (f"?{split.query}" if split.query else "")
        path, _, query = target.partition("?")
        return RecordedRequest(method=method, path=path, headers=headers, body=body, query=query)

    def _mark_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1
        self._disconnected.set()

    @staticmethod
    def _head(reply: Reply, *, length: int | None) -> bytes:
        reason = (
            HTTPStatus(reply.status).phrase
            if reply.status in HTTPStatus._value2member_map_
            else "Status"
        )
        lines = [f"HTTP/1.1 {reply.status} {reason}"]
        headers = dict(reply.headers)
        if length is None:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(length)
        headers.setdefault("Connection", "keep-alive")
        lines += [f"{k}: {v}" for k, v in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _respond(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
    ) -> bool:
        """Write ``reply``; return whether the connection can serve another request."""
        if reply.body is not None:
            writer.write(self._head(reply, length=len(reply.body)) + reply.body)
            await writer.drain()
            return True
        # EOF from the client while we stream means it closed the reply.
        watcher: asyncio.Task[bytes] = asyncio.ensure_future(reader.read(1))
        head_sent = False
        try:
            for step in reply.steps:
                if isinstance(step, Await):
                    await asyncio.to_thread(step.event.wait, step.timeout_s)
                    continue
                if isinstance(step, Sleep | Hang):
                    timeout = step.seconds if isinstance(step, Sleep) else None
                    done, _ = await asyncio.wait({watcher}, timeout=timeout)
                    if watcher in done:
                        self._mark_disconnect()
                        return False
                    continue
                if isinstance(step, Vanish):
                    writer.close()  # a FIN, no response: the client's request is lost
                    return False
                if not head_sent:
                    writer.write(self._head(reply, length=None))
                    head_sent = True
                if isinstance(step, Drop):
                    await writer.drain()
                    writer.transport.abort()
                    return False
                if step.data:
                    writer.write(b"%x\r\n%s\r\n" % (len(step.data), step.data))
                try:
                    await writer.drain()
                except ConnectionError:
                    self._mark_disconnect()
                    return False
                if watcher.done():
                    self._mark_disconnect()
                    return False
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            if not head_sent:
                writer.write(self._head(reply, length=None))
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True
        finally:
            if not watcher.done():
                watcher.cancel()
            elif not watcher.cancelled():
                watcher.exception()  # a reset client is a disconnect too: nothing to report


# --- a non-loopback URL that stays on loopback ----------------------------------------------

REMOTE_URL = "http://models.example.test:8080/v1"
"""A model server on another host, as far as ARIA can tell (``.test`` never resolves)."""


def proxy_env(proxy: FakeHTTPServer) -> dict[str, str]:
    """Environment that sends plain-HTTP requests for other hosts through ``proxy``.

    httpx honours these (``trust_env``) and sends the absolute URL to the proxy, which this
    server accepts, so a backend configured with :data:`REMOTE_URL` really talks to the test
    server while no packet leaves 127.0.0.1; loopback hosts (the API, Ollama) go direct.
    """
    loopback = "127.0.0.1,localhost,::1"
    return {
        "HTTP_PROXY": proxy.url,
        "http_proxy": proxy.url,
        "NO_PROXY": loopback,
        "no_proxy": loopback,
        **{name: "" for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")},
    }


# --- helpers for connect failures -------------------------------------------------------------


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A localhost port nothing listens on (connecting is refused at once)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    yield port


@contextlib.contextmanager
def blackhole_port() -> Iterator[int]:
    """A localhost port whose accept queue is full: connecting hangs until the client times out.

    A listening socket with backlog 0 that never accepts, its queue filled by a few connections;
    further SYNs are dropped by the kernel (Linux), which is what a firewalled host looks like.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    time.sleep(0.05)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
