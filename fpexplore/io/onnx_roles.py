"""The summed axis of an ONNX model's weights, from the nodes that consume them.

A weight is blocked along the axis its product sums over; the graph says which node
consumes each initializer and how:

* ``Conv`` (input 1, ``(M, C / group, *kernel)``): the input channels, axis 1 (per
  group: the axis holds ``C / group`` channels); ``ConvTranspose`` (input 1,
  ``(C, M / group, *kernel)``): axis 0;
* ``Gemm`` ``Y = A' B'``: ``B`` (input 1) along axis 1 with ``transB=1`` (``(N, K)``),
  else axis 0; ``A`` (input 0) along axis 0 with ``transA=1``, else its last axis;
* ``MatMul``: the right operand (input 1, ``(..., K, N)``) along its rows, axis
  ``-2``; the left operand along its last axis;
* ``Gather`` of an initializer (input 0: an embedding table ``(vocab, dim)``): its
  last axis.

These are the model's weights (``weight=True``). An initializer consumed only by
ops that sum over no axis of it (elementwise and shape ops of the default domain,
:data:`NO_SUM_OPS`: a bias added, a LayerNorm scale, a Reshape's shape; the bias a
Conv, ConvTranspose or Gemm adds, :data:`NO_SUM_INPUTS`) is not a weight
(``weight=False``). One that an op of unknown summed axis consumes (an
``LSTM``'s ``W``, ``R`` and ``B``, a ``com.microsoft`` ``FusedMatMul``, an op of a
custom domain, any op not listed) may well be: the graph says nothing of it
(``weight=None``), so ``weights_only`` keeps it by its rank, as it does tensors of
files that say nothing. Neither has a known axis: the report blocks it along its
last axis and says which node consumed it, and whether that node sums over no axis
of it or over an axis not known here.

Examples
--------
>>> onnx = __import__("pytest").importorskip("onnx")
>>> from onnx import helper
>>> graph = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
...     "g", [], [])
>>> roles = graph_roles(graph, {"w": (8, 4), "b": (8,)})
>>> roles["w"].axis, roles["w"].source, roles["w"].weight, roles["b"].weight
(1, 'graph', True, False)
"""

from __future__ import annotations

from typing import Any

from .checkpoint import TensorRole

__all__ = ["NO_SUM_INPUTS", "NO_SUM_OPS", "graph_roles"]

NO_SUM_OPS = frozenset({
    "Abs", "Add", "BatchNormalization", "Cast", "CastLike", "Ceil", "Clip", "Concat",
    "Constant", "Div", "Equal", "Erf", "Exp", "Expand", "Flatten", "Floor", "Gelu",
    "Greater", "HardSigmoid", "Identity", "InstanceNormalization", "LayerNormalization",
    "LeakyRelu", "Less", "Log", "Max", "Min", "Mod", "Mul", "Neg", "Pad", "Pow", "PRelu",
    "Reciprocal", "Relu", "Reshape", "Shape", "Sigmoid", "Sign", "Slice", "Split", "Sqrt",
    "Squeeze", "Sub", "Tanh", "Tile", "Transpose", "Unsqueeze", "Where",
})  # fmt: skip
"""Ops of the default ONNX domain known to sum over no axis of an input: elementwise
and shape ops (a normalization's scale and bias are multiplied and added)."""


NO_SUM_INPUTS = frozenset({("Conv", 2), ("ConvTranspose", 2), ("Gemm", 2), ("Gather", 1)})
"""(op, input position) of the default ONNX domain that sum over no axis of that input,
of ops that sum over another's: a bias added, a Gather's indices."""


def _attribute(node: Any, name: str, default: int) -> int:
    for attribute in node.attribute:
        if attribute.name == name:
            return int(attribute.i)
    return default


def _summed_axis(node: Any, position: int, ndim: int) -> int | None:
    """The axis that ``node`` sums its input ``position`` over, or None (no product)."""
    op = node.op_type
    if op == "Conv" and position == 1 and ndim >= 2:
        return 1
    if op == "ConvTranspose" and position == 1 and ndim >= 2:
        return 0
    if op == "Gemm" and position in (0, 1) and ndim == 2:
        if position == 1:
            return 1 if _attribute(node, "transB", 0) else 0
        return 0 if _attribute(node, "transA", 0) else 1
    if op == "MatMul" and position in (0, 1) and ndim >= 1:
        return ndim - 2 if position == 1 and ndim >= 2 else ndim - 1
    if op == "Gather" and position == 0 and ndim >= 1:
        return ndim - 1
    return None


def _sums_over_none(node: Any, position: int) -> bool:
    """Whether ``node`` is known to sum over no axis of its input ``position``."""
    op = node.op_type
    return node.domain in ("", "ai.onnx") and (op in NO_SUM_OPS or (op, position) in NO_SUM_INPUTS)


def graph_roles(graph: Any, shapes: dict[str, tuple[int, ...]]) -> dict[str, TensorRole]:
    """Each named tensor's :class:`~fpexplore.io.checkpoint.TensorRole` from the
    nodes of ``graph`` (an ONNX ``GraphProto``) that consume it."""
    consumers: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for position, name in enumerate(node.input):
            if name in shapes:
                consumers.setdefault(name, []).append((node, position))
    roles: dict[str, TensorRole] = {}
    for name, shape in shapes.items():
        uses = consumers.get(name, [])
        axes = [(_summed_axis(node, i, len(shape)), node.op_type) for node, i in uses]
        known = [(axis, op) for axis, op in axes if axis is not None]
        if known:
            roles[name] = TensorRole(known[0][0], "graph", True)
            continue
        none = sorted({node.op_type for node, i in uses if _sums_over_none(node, i)})
        unknown = sorted({node.op_type for node, i in uses if not _sums_over_none(node, i)})
        summing_none = f"{', '.join(none)}, which sums over no axis of it"
        weight: bool | None = False
        if unknown:  # says nothing of its use: a weight by its rank (weights_only)
            note = f"consumed by {', '.join(unknown)}, whose summed axis is not known"
            note += f" (and by {summing_none})" if none else ""
            weight = None
        elif none:
            note = f"consumed by {summing_none}"
        else:
            note = "consumed by no node of the main graph"
        roles[name] = TensorRole(None, "", weight, note)
    return roles
