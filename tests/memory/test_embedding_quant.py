"""The int8-compute embedding model derived from the packaged one: built once, close to it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from aria_desktop.adapters.memory.embedding import (
    _INSTALL_HINT,
    LocalEmbedder,
    local_model_files,
)
from aria_desktop.adapters.memory.embedding_graph import GraphMismatch, fuse_graph
from aria_desktop.adapters.memory.embedding_quant import quantized_model
from aria_desktop.domain.errors import EmbedderError

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


def _float_vectors(texts: tuple[str, ...], model: Path | None = None) -> np.ndarray:
    """The packaged model (or ``model``) run in float32 arithmetic, pooled like the embedder."""
    import onnxruntime
    from tokenizers import Tokenizer

    packaged, tokenizer_path = local_model_files()
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()  # tokenizer.json pads to 128 by default
    session = onnxruntime.InferenceSession(
        str(model or packaged), providers=["CPUExecutionProvider"]
    )
    inputs = {i.name for i in session.get_inputs()}
    rows = []
    for text in texts:
        encoded = tokenizer.encode(text if text.strip() else ".")
        ids = np.array([encoded.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        feeds["token_type_ids"] = np.zeros_like(ids)
        feeds = {name: value for name, value in feeds.items() if name in inputs}
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
    graph = onnx.load(str(built[0])).graph
    ops = {node.op_type for node in graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= ops  # int8 arithmetic
    assert {"QAttention", "Gelu"} <= ops  # the fused graph
    assert not {"Softmax", "Erf", "Where"} & ops
    assert [i.name for i in graph.input] == ["input_ids"]
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


def _folded(work: Path) -> Path:
    """The packaged model with its weights folded to float32 (the rewrite's input)."""
    import onnxruntime

    folded = work / "folded.onnx"
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    onnxruntime.InferenceSession(
        str(local_model_files()[0]), options, providers=["CPUExecutionProvider"]
    )
    return folded


def test_the_fused_graph_computes_what_the_exported_one_does(tmp_path: Path) -> None:
    import onnx

    fused = tmp_path / "fused.onnx"
    onnx.save(fuse_graph(onnx.load(str(_folded(tmp_path)))), str(fused))
    cosine = (_float_vectors(_TEXTS, fused) * _float_vectors(_TEXTS)).sum(axis=1)
    assert cosine.min() > 0.99999, cosine  # float32 both: only rounding differs


def test_a_graph_unlike_the_known_export_is_refused_not_misfused(tmp_path: Path) -> None:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(_folded(tmp_path)))
    erf = next(node for node in model.graph.node if node.op_type == "Erf")
    divide = next(node for node in model.graph.node if erf.input[0] in node.output)
    constant = next(i for i in model.graph.initializer if i.name == divide.input[1])
    constant.CopyFrom(numpy_helper.from_array(np.array(1.5, dtype=np.float32), constant.name))
    with pytest.raises(GraphMismatch, match="GELU"):
        fuse_graph(model)


def test_another_export_is_quantised_unfused_and_still_embeds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A model the rewrite does not know (here a tiny one) is built without fusion."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["embedded"]),
            helper.make_node("MatMul", ["embedded", "weight"], ["last_hidden_state"]),
        ],
        "tiny",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "tokens"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(rng.standard_normal((50, 16)).astype(np.float32), "table"),
            numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), "weight"),
        ],
    )
    source = tmp_path / "tiny.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(source))
    with caplog.at_level(logging.WARNING, logger="aria_desktop.adapters.memory.embedding_quant"):
        built = quantized_model(source, tmp_path / "models", hint="")
    assert "not fused" in caplog.text
    assert "MatMulInteger" in {node.op_type for node in onnx.load(str(built)).graph.node}
    session = onnxruntime.InferenceSession(str(built), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"input_ids": np.array([[1, 2, 3]], dtype=np.int64)})
    assert out.shape == (1, 3, 16)
