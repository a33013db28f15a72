"""A loopback HTTP/1.1 proxy that adds ARIA's API token to every request it forwards.

The conformance suite's server scenarios connect to a bare URL and cannot send headers, while
ARIA's ``/mcp`` (rightly) answers 401 without the token. This proxy stands where a configured
MCP client's header would: it inserts ``Authorization: Bearer <token>`` into each request and
copies everything else byte for byte both ways (responses, SSE streams included). A ``Host``
or ``Origin`` naming the proxy itself names ARIA's own address instead, as behind a reverse
proxy; any other ``Host`` or ``Origin`` passes unchanged, so the DNS-rebinding scenario's
foreign names still reach ARIA's checks.

Run: ``python -m tests.mcp.conformance.token_proxy UPSTREAM_PORT TOKEN``; it prints its port.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

_END = b"\r\n\r\n"


class TokenProxy:
    """Forward ``127.0.0.1:<port>`` to ``127.0.0.1:<upstream_port>`` with the token added."""

    def __init__(self, upstream_port: int, token: str) -> None:
        self.upstream_port = upstream_port
        self.token = token
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def serve_forever(self) -> None:
        assert self._server is not None
        await self._server.serve_forever()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        back = asyncio.create_task(_copy(up_r, client_w))
        try:
            while True:
                try:
                    head = await client_r.readuntil(_END)
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                lines = head[: -len(_END)].split(b"\r\n")
                up_w.write(self._rewritten(lines) + _END)
                await _forward_body(lines, client_r, up_w)
                await up_w.drain()
        finally:
            with contextlib.suppress(ConnectionError):
                up_w.close()
            await asyncio.gather(back, return_exceptions=True)
            with contextlib.suppress(ConnectionError):
                client_w.close()

    def _rewritten(self, lines: list[bytes]) -> bytes:
        own = {f"127.0.0.1:{self.port}".encode(), f"localhost:{self.port}".encode()}
        aria = f"127.0.0.1:{self.upstream_port}"
        out = [lines[0]]
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            key, value = name.strip().lower(), value.strip().lower()
            if key == b"authorization":
                continue
            if key == b"host" and value in own:
                line = f"Host: {aria}".encode()
            elif key == b"origin" and value.removeprefix(b"http://") in own:
                line = f"Origin: http://{aria}".encode()
            out.append(line)
        out.append(f"Authorization: Bearer {self.token}".encode())
        return b"\r\n".join(out)


def _header(lines: list[bytes], wanted: bytes) -> bytes | None:
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == wanted:
            return value.strip().lower()
    return None


async def _forward_body(
    lines: list[bytes], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """The request's body: ``Content-Length`` bytes, or chunks up to the last (empty) one."""
    length = _header(lines, b"content-length")
    if length is not None:
        writer.write(await reader.readexactly(int(length)))
        return
    if _header(lines, b"transfer-encoding") == b"chunked":
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            writer.write(size_line + await reader.readexactly(size + 2))
            if size == 0:
                return


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    with contextlib.suppress(ConnectionError, RuntimeError):
        writer.close()


async def _main(upstream_port: int, token: str) -> None:
    proxy = TokenProxy(upstream_port, token)
    print(await proxy.start(), flush=True)
    await proxy.serve_forever()


if __name__ == "__main__":
    asyncio.run(_main(int(sys.argv[1]), sys.argv[2]))
