"""Rewrite the exported MiniLM graph into onnxruntime's fused transformer operators.

The packaged model is a torch-dynamo export: each layer's attention is ~30 small nodes
(three projections, head reshapes and transposes, a scaled ``MatMul``, the mask ``Where``,
``Softmax``, a NaN guard), and GELU is five (``Div``, ``Erf``, ``Add``, ``Mul``, ``Mul``).
onnxruntime's own transformer optimizer does not recognise this export's attention pattern,
so :func:`fuse_graph` rewrites it here:

* each layer's attention becomes one ``com.microsoft.Attention`` node (Q, K and V weights
  side by side in one ``[384, 1152]`` matrix): ``quantize_dynamic`` then turns it into
  ``QAttention``, one int8 projection and the attention kernel in one call;
* each GELU becomes one ``com.microsoft.Gelu`` (the same exact erf formula);
* the ``attention_mask`` and ``token_type_ids`` inputs go: the embedder runs one text per
  call with no padding (an all-ones mask) and token type 0 (a constant row), so the model
  takes ``input_ids`` only and the mask arithmetic of every layer is gone.

Measured in ARCHITECTURE.md "embedding model" (~1.2x the unfused int8 model's texts/s). The
rewrite checks every piece it matches (shapes, the 1/sqrt(head size) scale, the GELU
constants) and raises :class:`GraphMismatch` on anything else, so a differently exported
package is never silently mis-fused. This module imports onnx and numpy (only ever called
while the compute model is built).
"""

from __future__ import annotations

from typing import Any

__all__ = ["HEADS", "GraphMismatch", "fuse_graph"]

HEADS = 12
"""Attention heads of all-MiniLM-L6-v2 (hidden size 384: heads of 32)."""
_MICROSOFT = "com.microsoft"


class GraphMismatch(ValueError):
    """The graph is not the export this rewrite knows (nothing was changed on disk)."""


class _Graph:
    """Lookups over an ONNX graph: producers, consumers, constant initialisers."""

    def __init__(self, graph: Any) -> None:
        from onnx import numpy_helper

        self.graph = graph
        self.constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.producer = {out: node for node in graph.node for out in node.output}
        self.consumers: dict[str, list[Any]] = {}
        for node in graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)

    def expect(self, node: Any, op_type: str) -> Any:
        if node is None or node.op_type != op_type:
            found = None if node is None else node.op_type
            raise GraphMismatch(f"expected {op_type}, found {found}")
        return node

    def only_consumer(self, name: str, op_type: str) -> Any:
        users = self.consumers.get(name, [])
        return self.expect(users[0] if len(users) == 1 else None, op_type)

    def variable_input(self, node: Any) -> str:
        """The one input of ``node`` that is not a constant."""
        names = [name for name in node.input if name not in self.constants]
        if len(names) != 1:
            raise GraphMismatch(f"{node.op_type} {node.name} has {len(names)} variable inputs")
        return str(names[0])

    def constant_input(self, node: Any) -> Any:
        """The value of the one constant input of ``node``."""
        names = [name for name in node.input if name in self.constants]
        if len(names) != 1:
            raise GraphMismatch(f"{node.op_type} {node.name} has {len(names)} constant inputs")
        return self.constants[names[0]]

    def projection(self, name: str) -> tuple[str, Any, Any]:
        """Walk from a head-shaped tensor back to ``MatMul(x, W) + b``: (x, W, b)."""
        node = self.producer.get(name)
        while node is not None and node.op_type in ("Reshape", "Transpose"):
            node = self.producer.get(node.input[0])
        add = self.expect(node, "Add")
        matmul = self.expect(self.producer.get(self.variable_input(add)), "MatMul")
        return self.variable_input(matmul), self.constant_input(matmul), self.constant_input(add)


def _attention(graph: _Graph, softmax: Any, index: int) -> tuple[str, list[Any], list[Any]]:
    """One layer's attention, from its ``Softmax``: (output name, new nodes, initialisers)."""
    import numpy as np
    from onnx import helper, numpy_helper

    add_mask = graph.expect(graph.producer.get(softmax.input[0]), "Add")
    scores = next(
        (
            graph.producer[name]
            for name in add_mask.input
            if name in graph.producer and graph.producer[name].op_type == "MatMul"
        ),
        None,
    )
    scores = graph.expect(scores, "MatMul")
    scale_q = graph.expect(graph.producer.get(scores.input[0]), "Mul")
    scale_k = graph.expect(graph.producer.get(scores.input[1]), "Mul")
    x, w_q, b_q = graph.projection(graph.variable_input(scale_q))
    x_k, w_k, b_k = graph.projection(graph.variable_input(scale_k))
    is_nan = next(
        (n for n in graph.consumers.get(softmax.output[0], []) if n.op_type == "IsNaN"), None
    )
    nan_guard = graph.only_consumer(graph.expect(is_nan, "IsNaN").output[0], "Where")
    if softmax.output[0] not in nan_guard.input:
        raise GraphMismatch(f"attention {index}: the NaN guard does not select the softmax")
    mixed = graph.only_consumer(nan_guard.output[0], "MatMul")
    x_v, w_v, b_v = graph.projection(mixed.input[1])
    merged = graph.only_consumer(
        graph.only_consumer(mixed.output[0], "Transpose").output[0], "Reshape"
    )
    hidden = w_q.shape[1]
    if x_k != x or x_v != x or hidden % HEADS or any(w.shape != w_q.shape for w in (w_k, w_v)):
        raise GraphMismatch(f"attention {index}: Q, K and V do not share one input and shape")
    scale = float(graph.constant_input(scale_q)) * float(graph.constant_input(scale_k))
    if abs(scale - (hidden // HEADS) ** -0.5) > 1e-5:
        raise GraphMismatch(f"attention {index}: scale {scale} is not 1/sqrt(head size)")
    weight, bias = f"fused_attention_{index}_qkv_weight", f"fused_attention_{index}_qkv_bias"
    inits = [
        numpy_helper.from_array(np.concatenate([w_q, w_k, w_v], axis=1).astype(np.float32), weight),
        numpy_helper.from_array(np.concatenate([b_q, b_k, b_v]).astype(np.float32), bias),
    ]
    node = helper.make_node(
        "Attention",
        [x, weight, bias],
        [merged.output[0]],
        name=f"fused_attention_{index}",
        domain=_MICROSOFT,
        num_heads=HEADS,
    )
    return str(merged.output[0]), [node], inits


def _gelu(graph: _Graph, erf: Any, index: int) -> tuple[str, Any]:
    """One exact GELU, ``x * 0.5 * (1 + erf(x / sqrt 2))``, from its ``Erf``: (output, node)."""
    from onnx import helper

    divide = graph.expect(graph.producer.get(erf.input[0]), "Div")
    plus_one = graph.only_consumer(erf.output[0], "Add")
    half = graph.only_consumer(plus_one.output[0], "Mul")
    times_x = graph.only_consumer(half.output[0], "Mul")
    x = graph.variable_input(divide)
    constants = (
        float(graph.constant_input(divide)),
        float(graph.constant_input(plus_one)),
        float(graph.constant_input(half)),
    )
    if x not in times_x.input or any(
        abs(a - b) > 1e-5 for a, b in zip(constants, (2**0.5, 1.0, 0.5), strict=True)
    ):
        raise GraphMismatch(f"GELU {index}: not x * 0.5 * (1 + erf(x / sqrt(2)))")
    node = helper.make_node(
        "Gelu", [x], [times_x.output[0]], name=f"fused_gelu_{index}", domain=_MICROSOFT
    )
    return str(times_x.output[0]), node


def _drop_token_types(graph: _Graph, nodes: list[Any]) -> Any:
    """Token type 0 everywhere: its embedding row becomes a constant; shapes come from ids."""
    from onnx import numpy_helper

    lookups = [n for n in nodes if n.op_type == "Gather" and "token_type_ids" in n.input]
    if len(lookups) != 1:
        raise GraphMismatch("no single token type embedding lookup")
    lookup = lookups[0]
    row = numpy_helper.from_array(graph.constants[lookup.input[0]][0], "token_type_0_embedding")
    for node in nodes:
        for position, name in enumerate(node.input):
            if name == "token_type_ids" and node.op_type == "Shape":
                node.input[position] = "input_ids"  # same shape
            elif name == lookup.output[0]:
                node.input[position] = row.name
    return row


def fuse_graph(model: Any) -> Any:
    """Fuse attention and GELU and drop the mask and token-type inputs, in place.

    Args:
        model: an ``onnx.ModelProto`` of all-MiniLM-L6-v2 as exported by torch-dynamo, with its
            weights folded to float32 constants (``ORT_ENABLE_BASIC``).

    Returns:
        The same model, taking ``input_ids`` only.

    Raises:
        GraphMismatch: the graph is not the pattern this rewrite knows.
    """
    from onnx import helper

    graph = _Graph(model.graph)
    softmaxes = [n for n in model.graph.node if n.op_type == "Softmax"]
    erfs = [n for n in model.graph.node if n.op_type == "Erf"]
    if not softmaxes or len(softmaxes) != len(erfs):
        raise GraphMismatch(f"{len(softmaxes)} softmaxes and {len(erfs)} erfs: not one per layer")
    replacements: dict[str, list[Any]] = {}
    added: list[Any] = []
    for index, softmax in enumerate(softmaxes):
        output, fused, inits = _attention(graph, softmax, index)
        replacements[output] = fused
        added.extend(inits)
    for index, erf in enumerate(erfs):
        output, gelu = _gelu(graph, erf, index)
        replacements[output] = [gelu]
    nodes: list[Any] = []
    for node in model.graph.node:
        hit = next((out for out in node.output if out in replacements), None)
        nodes.extend(replacements[hit] if hit is not None else [node])
    added.append(_drop_token_types(graph, nodes))
    model.graph.initializer.extend(added)
    _keep_live(model.graph, nodes)
    if not any(o.domain == _MICROSOFT for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MICROSOFT, 1))
    del model.graph.value_info[:]  # shapes of removed tensors; onnxruntime infers its own
    if [i.name for i in model.graph.input] != ["input_ids"]:
        raise GraphMismatch("the fused graph still needs inputs other than input_ids")
    return model


def _keep_live(graph: Any, nodes: list[Any]) -> None:
    """Set the graph's nodes, initialisers and inputs to what its outputs need."""
    needed = {output.name for output in graph.output}
    live: list[Any] = []
    for node in reversed(nodes):  # nodes are in topological order
        if any(out in needed for out in node.output):
            live.append(node)
            needed.update(node.input)
    live.reverse()
    del graph.node[:]
    graph.node.extend(live)
    kept = [i for i in graph.initializer if i.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    inputs = [i for i in graph.input if i.name in needed]
    del graph.input[:]
    graph.input.extend(inputs)
