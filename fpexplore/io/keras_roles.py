"""The summed axis of a Keras layer's variables, from the layer's class and config.

Keras stores a Dense kernel as ``(in, out)``: its product sums over axis 0. A
``Conv{1,2,3}D`` kernel is ``(*kernel, in / groups, out)``: axis ``-2``; a
``Conv*DTranspose`` kernel ``(*kernel, out, in)``: its last axis; a
``SeparableConv``'s pointwise kernel ``(1, ..., in, out)``: axis ``-2``; an
``EinsumDense`` kernel: the first of its equation's letters that the input shares
and the output lacks (a role holds one axis: a kernel summed over several, as an
attention layer's output ``(heads, key_dim, d_model)`` is over its first two, is
blocked along the first of them); recurrent kernels (LSTM, GRU, SimpleRNN) ``(in,
4 units)``: axis 0; an ``Embedding`` table ``(vocab, dim)``: its last axis.
Depthwise kernels sum over the kernel window only, so they have no summed channel
axis.

An attention layer's (``MultiHeadAttention``, ``GroupQueryAttention``) EinsumDense
sublayers are not in the model's config: :func:`attention_config` gives the
equation Keras builds for each (:data:`ATTENTION_SUBLAYERS`).

Trainable variables are the layer's weights; a BatchNormalization's moving
statistics and a Normalization's mean, variance and count are not.

Examples
--------
>>> keras_role("Dense", {}, "kernel", (64, 10))
TensorRole(axis=0, source='layer', weight=True, note='')
>>> keras_role("EinsumDense", {"equation": "abc,cde->abde"}, "kernel", (16, 4, 8)).axis
0
>>> keras_role("BatchNormalization", {}, "moving_mean", (8,)).weight
False
>>> keras_role("EinsumDense", attention_config("_output_dense", 3), "kernel", (2, 4, 8)).axis
0
"""

from __future__ import annotations

from typing import Any

from .checkpoint import TensorRole

__all__ = ["ATTENTION_SUBLAYERS", "attention_config", "keras_role"]

_STATISTICS = ("moving_mean", "moving_variance", "mean", "variance", "count")


ATTENTION_SUBLAYERS = {
    "query_dense": 1, "key_dense": 1, "gate_dense": 1, "value_dense": 1, "output_dense": 2,
}  # fmt: skip
"""An attention layer's EinsumDense sublayers, in the order Keras creates them, by the
attribute they are saved under (less a leading ``_``), and how many leading axes of
their kernels they sum over: a projection's ``(d_model, heads, dim)`` its first, the
output's ``(heads, dim, *out)`` its first two (Keras' ``_build_proj_equation``)."""


def attention_config(sublayer: str, ndim: int) -> dict[str, Any]:
    """The config (its ``equation``) of an attention layer's EinsumDense sublayer saved
    as ``sublayer`` (``"query_dense"``, ``"_output_dense"``...) with a kernel of ``ndim``
    axes; ``{}`` for any other sublayer, or a kernel with no output axis."""
    bound = ATTENTION_SUBLAYERS.get(sublayer.lstrip("_"), 0)
    if not bound or ndim <= bound or ndim > 25:
        return {}
    letters = "bcdefghijklmnopqrstuvwxyz"  # "a": the one free axis of the input
    kernel = letters[:ndim]
    return {"equation": f"a{kernel[:bound]},{kernel}->a{kernel[bound:]}"}


def _einsum_axis(equation: Any, ndim: int) -> int | None:
    if not isinstance(equation, str) or "->" not in equation or "," not in equation:
        return None
    inputs, output = equation.replace(" ", "").split("->")
    x, kernel = inputs.split(",", 1)
    if "." in kernel or len(kernel) != ndim:
        return None
    summed = [c for c in kernel if c in x and c not in output]
    return kernel.index(summed[0]) if summed else None


def _axis(cls: str, config: dict[str, Any], variable: str, ndim: int) -> int | None:
    if ndim < 2:
        return None
    if cls == "Dense" and variable == "kernel":
        return 0
    if cls == "EinsumDense" and variable == "kernel":
        return _einsum_axis(config.get("equation"), ndim)
    if cls.startswith("Conv") and variable == "kernel":
        return ndim - 1 if cls.endswith("Transpose") else ndim - 2
    if cls.startswith("SeparableConv") and variable == "pointwise_kernel":
        return ndim - 2
    if cls.endswith("Cell") and variable in ("kernel", "recurrent_kernel"):
        return 0
    if cls == "Embedding" and variable == "embeddings":
        return ndim - 1
    return None


def keras_role(
    cls: str | None, config: dict[str, Any], variable: str, shape: tuple[int, ...]
) -> TensorRole:
    """The :class:`~fpexplore.io.checkpoint.TensorRole` of variable ``variable`` of a
    layer of class ``cls`` (None if unknown) and config ``config``."""
    if cls is None:
        return TensorRole()
    trainable = variable not in _STATISTICS and config.get("trainable", True) is not False
    axis = _axis(cls, config, variable, len(shape))
    if axis is not None:
        return TensorRole(axis, "layer", trainable)
    note = f"{cls} {variable!r} has no summed axis known" if len(shape) >= 2 else ""
    return TensorRole(None, "", trainable, note)
