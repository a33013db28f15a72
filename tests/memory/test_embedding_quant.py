"""The int8-compute embedding model derived from the packaged one: built once, close to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from aria_desktop.domain.errors import EmbedderError
from aria_desktop.memory.embedding import _INSTALL_HINT, LocalEmbedder, local_model_files
from aria_desktop.memory.embedding_quant import quantized_model

_TEXTS = (
    "The router admin page is at 192.168.1.1 and uses port 8443.",
    "Descaling. Run the descaling programme every 90 days with a citric acid solution; hard "
    "water needs it every 60 days. The orange light blinks when descaling is due.",
    "Pets\nA small dog or cat is allowed with the landlord's written consent.",
    "hi",
    "",
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def embedder(cache: Path) -> Iterator[LocalEmbedder]:
    model = LocalEmbedder(cache_dir=cache)
    yield model
    model.close()


def _float_vectors(texts: tuple[str, ...]) -> np.ndarray:
    """The packaged model run as shipped (float32 arithmetic), pooled like the embedder."""
    import onnxruntime
    from tokenizers import Tokenizer

    model, tokenizer_path = local_model_files()
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()  # tokenizer.json pads to 128 by default
    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    rows = []
    for text in texts:
        encoded = tokenizer.encode(text if text.strip() else ".")
        ids = np.array([encoded.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        feeds["token_type_ids"] = np.zeros_like(ids)
        pooled = session.run(None, feeds)[0][0].mean(axis=0)
        rows.append(pooled / np.linalg.norm(pooled))
    return np.array(rows)


def _matrix(vectors: list[bytes]) -> np.ndarray:
    return np.frombuffer(b"".join(vectors), dtype="<f4").reshape(len(vectors), -1)


def test_the_compute_model_is_built_once_into_the_cache(
    embedder: LocalEmbedder, cache: Path
) -> None:
    import onnx

    embedder.embed_sync(["load"])
    built = sorted(cache.glob("minilm-l6-int8dq-*.onnx"))
    assert len(built) == 1
    ops = {node.op_type for node in onnx.load(str(built[0])).graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= ops  # int8 arithmetic
    stamp = built[0].stat().st_mtime_ns
    assert quantized_model(local_model_files()[0], cache, hint="") == built[0]
    assert built[0].stat().st_mtime_ns == stamp  # reused, not rebuilt
    assert not [p for p in cache.iterdir() if p.name.startswith(".build-")]  # no leftovers


def test_int8_vectors_stay_close_to_the_packaged_float_ones(embedder: LocalEmbedder) -> None:
    fast = _matrix(embedder.embed_sync(list(_TEXTS)))
    cosine = (fast * _float_vectors(_TEXTS)).sum(axis=1)
    assert cosine.min() > 0.97, cosine
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_or_among_others(embedder: LocalEmbedder) -> None:
    together = _matrix(embedder.embed_sync(list(_TEXTS)))
    alone = _matrix([embedder.embed_sync([text])[0] for text in _TEXTS])
    assert (together * alone).sum(axis=1).min() > 0.999


def test_an_unwritable_cache_gives_an_embedder_error_with_a_hint(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    with pytest.raises(EmbedderError) as caught:
        quantized_model(local_model_files()[0], blocker / "models", hint=_INSTALL_HINT)
    assert "writable" in caught.value.hint


def test_a_model_from_an_older_package_or_recipe_is_replaced(tmp_path: Path) -> None:
    stale = tmp_path / "minilm-l6-int8dq-0123456789abcdef0123.onnx"
    stale.write_bytes(b"old")
    built = quantized_model(local_model_files()[0], tmp_path, hint="")
    assert built.is_file()
    assert sorted(tmp_path.iterdir()) == [built]
