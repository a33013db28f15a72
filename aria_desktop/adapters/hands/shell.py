"""Running one argv command for the shell tool: no shell, no stdin, scrubbed env, a deadline.

The command starts in its own session (so its own process group) with ``stdin`` from
``/dev/null`` and an environment built from an allow-list of harmless variables: API keys,
tokens and ``ARIA_*`` never reach it. At the timeout the whole group gets SIGKILL, so children
die with it; the process is then waited for. Output (stdout and stderr merged) is stored whole
up to a cap and returned as head and tail; the ``shell_output`` tool pages the stored copy.
Whether a command may run at all is decided before, by the core's classifier
(ARCHITECTURE.md: safety).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import signal
import time
from pathlib import Path

from aria_desktop.domain.errors import FileOperationError, ToolFailedError
from aria_desktop.domain.hands import ShellOutcome

__all__ = ["ShellRunner", "scrubbed_environment"]

_SAFE_VARS = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR"}
)
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|CRED|AUTH|COOKIE|SESSION|PRIVATE", re.I)
_KEEP_OUTPUTS = 50
_DRAIN_S = 5.0
_OUTPUT_ID = re.compile(r"^[0-9a-f]{16}$")


def scrubbed_environment(source: dict[str, str]) -> dict[str, str]:
    """The child's environment: allow-listed variables and ``LC_*``, nothing secret-named."""
    env = {}
    for name, value in source.items():
        if name not in _SAFE_VARS and not name.startswith("LC_"):
            continue
        if _SECRET_NAME.search(name) or name.startswith("ARIA"):
            continue
        env[name] = value
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env


class ShellRunner:
    """Runs commands and keeps their full output for paging.

    Args:
        output_dir: where full outputs are stored (private; the newest 50 are kept).
        keep_bytes: bytes of head and of tail returned to the model.
        store_max_bytes: the most output stored per command (the rest is counted, not kept).
    """

    def __init__(self, output_dir: Path, *, keep_bytes: int, store_max_bytes: int) -> None:
        self.output_dir = output_dir
        self.keep_bytes = keep_bytes
        self.store_max_bytes = store_max_bytes

    async def run(self, argv: list[str], *, cwd: str, timeout_s: float) -> ShellOutcome:
        """Run ``argv`` in ``cwd``; kill its process group at ``timeout_s``."""
        if not await asyncio.to_thread(os.path.isdir, cwd):
            raise ToolFailedError(
                f"The working folder {cwd} does not exist.", hint="List the folder first."
            )
        self.output_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        output_id = secrets.token_hex(8)
        started = time.monotonic()
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=scrubbed_environment(dict(os.environ)),
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise ToolFailedError(
                f"{argv[0]!r} was not found.", hint="Check the command's name."
            ) from exc
        except OSError as exc:
            raise ToolFailedError(f"{argv[0]!r} could not start: {exc.strerror}.") from exc
        assert process.stdout is not None
        capture = _Capture(
            self.output_dir / f"{output_id}.log", self.keep_bytes, self.store_max_bytes
        )
        reader = asyncio.create_task(_pump(process.stdout, capture), name="aria-shell-output")
        timed_out = False
        try:
            async with asyncio.timeout(timeout_s):
                await _leader_exited(process)
        except TimeoutError:
            timed_out = True
        finally:
            # At the timeout, or when the command ended while its children still run (they
            # would hold the output open): the whole group goes.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            if process.returncode is None:
                await process.wait()
            try:
                async with asyncio.timeout(_DRAIN_S):  # the pipe closes with the group
                    await reader
            except TimeoutError:
                reader.cancel()  # a grandchild left the group (setsid) and kept the pipe
            capture.close()
        self._prune()
        head, tail = capture.head_tail()
        return ShellOutcome(
            output_id=output_id,
            exit_code=process.returncode if process.returncode is not None else -9,
            timed_out=timed_out,
            duration_s=time.monotonic() - started,
            total_bytes=capture.total,
            head=head,
            tail=tail,
        )

    def page(self, output_id: str, *, offset: int, limit: int) -> tuple[str, int]:
        """``limit`` bytes of a stored output from ``offset``, and its stored size."""
        if not _OUTPUT_ID.match(output_id):
            raise FileOperationError(f"{output_id!r} is not an output id.")
        path = self.output_dir / f"{output_id}.log"
        try:
            with path.open("rb") as stream:
                size = os.fstat(stream.fileno()).st_size
                stream.seek(max(0, offset))
                data = stream.read(max(0, limit))
        except FileNotFoundError:
            raise FileOperationError(
                f"No stored output {output_id}.", hint="Only the newest 50 outputs are kept."
            ) from None
        return data.decode("utf-8", "replace"), size

    def _prune(self) -> None:
        outputs = sorted(self.output_dir.glob("*.log"), key=lambda p: p.stat().st_mtime)
        for old in outputs[:-_KEEP_OUTPUTS]:
            with contextlib.suppress(OSError):
                old.unlink()  # ARIA's own stored output, not a user file


async def _leader_exited(process: asyncio.subprocess.Process) -> None:
    """Wait until the command's own process ends.

    ``Process.wait`` also waits for the pipes to close, which children holding them delay:
    a pidfd on Linux, else ``wait``.
    """
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        await process.wait()
        return
    loop = asyncio.get_running_loop()
    exited = loop.create_future()

    def ended() -> None:
        if not exited.done():
            exited.set_result(None)

    loop.add_reader(pidfd, ended)
    try:
        await exited
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)


async def _pump(stream: asyncio.StreamReader, capture: _Capture) -> None:
    while chunk := await stream.read(65536):
        capture.add(chunk)


class _Capture:
    """Stores output up to a cap and remembers its head and its tail."""

    def __init__(self, path: Path, keep: int, store_max: int) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        self._file = os.fdopen(fd, "wb")
        self._keep = keep
        self._store_max = store_max
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        if self.total < self._store_max:
            self._file.write(chunk[: self._store_max - self.total])
        self.total += len(chunk)
        room = self._keep - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            del self._tail[: max(0, len(self._tail) - self._keep)]

    def close(self) -> None:
        self._file.close()

    def head_tail(self) -> tuple[str, str]:
        return (
            bytes(self._head).decode("utf-8", "replace"),
            bytes(self._tail).decode("utf-8", "replace"),
        )
