"""Rounding one operand of a matmul, or the gradient of its output, on JAX arrays.

How a value travels through an emulated layer (``fpexplore.jax`` does every rounding):

* a forward operand ``x`` (the layer's input or its kernel) is scaled as its
  :class:`~fpexplore.keras.OperandSpec` says and rounded into the format:
  ``"none"`` rounds ``x`` itself; ``"per_tensor"`` scales it by ``max / amax(x)``;
  ``"delayed"`` by ``max / max(amax history)`` (its own amax while the history is
  empty); a block format quantizes blocks along the summed axis
  (``fpexplore.jax.scale_per_tensor`` and ``quantize_blocks``: each product and
  quotient exact before its one rounding). The gradient
  passes the rounding unchanged (straight through), as in FP8 training;
* the layer's output ``y = x @ w`` (summed in float32) is left as it is, and on the
  way back its gradient ``dY`` is rounded the same way into the backward format
  before it reaches ``dX = dY @ w.T`` and ``dW = x.T @ dY``. With delayed scaling the
  new amax history leaves the backward pass as the "gradient" of the history
  variable, which Keras then writes over it (``overwrite_with_gradient``).

Per-tensor scaled values saturate at the format's largest finite value (as FP8
casts do); unscaled ones follow the format's own overflow convention.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import jax as fpx_jax
from .policy import OperandSpec

__all__ = ["backward_rounded", "delayed_history", "forward_operand", "quantize"]


def delayed_history(history: Any, x: Any) -> jax.Array:
    """The history delayed scaling reads: ``history``, or the amax of ``x`` alone while
    the history holds nothing yet (all zeros), as ``fpexplore.DelayedScaling`` does."""
    return jnp.where(jnp.max(history) > 0, history, fpx_jax.amax_of(x)[None])


def quantize(
    x: Any, spec: OperandSpec, *, axis: int = -1, key: Any = None, history: Any = None
) -> jax.Array:
    """``x`` rounded as ``spec`` says (no gradient rule: see :func:`forward_operand`).

    ``axis`` is the block axis of a block format; ``history`` the amax history of
    delayed scaling.
    """
    key = key if spec.rounding == "stochastic" else None
    if spec.is_block:
        return fpx_jax.quantize_blocks(x, spec.scaling, axis=axis, rounding=spec.rounding, key=key)
    if spec.scaling == "none":
        return fpx_jax.round_to(x, spec.format, spec.rounding, key=key)
    if spec.scaling == "delayed":
        if history is None:
            raise ValueError("delayed scaling needs an amax history")
        scaled = fpx_jax.scale_per_tensor(
            x, spec.format, recipe="delayed", amax_history=delayed_history(history, x),
            rounding=spec.rounding, key=key,
        )  # fmt: skip
    else:
        scaled = fpx_jax.scale_per_tensor(x, spec.format, rounding=spec.rounding, key=key)
    return scaled.values


@jax.custom_vjp
def _straight_through(x: Any, rounded: Any) -> Any:
    return rounded


def _straight_through_fwd(x: Any, rounded: Any) -> tuple[Any, None]:
    return rounded, None


def _straight_through_bwd(_: None, g: Any) -> tuple[Any, Any]:
    return g, jnp.zeros_like(g)


_straight_through.defvjp(_straight_through_fwd, _straight_through_bwd)


def forward_operand(
    x: Any, spec: OperandSpec, *, axis: int = -1, key: Any = None, history: Any = None
) -> jax.Array:
    """``x`` rounded as ``spec`` says; its gradient passes unchanged (straight through)."""
    rounded = quantize(jax.lax.stop_gradient(x), spec, axis=axis, key=key, history=history)
    return _straight_through(x, rounded)


def _no_cotangent(value: Any) -> Any:
    if value is None:
        return None
    return np.zeros(np.shape(value), dtype=jax.dtypes.float0)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _backward_rounded(spec: OperandSpec, axis: int, y: Any, history: Any, key: Any) -> Any:
    return y


def _backward_fwd(spec: OperandSpec, axis: int, y: Any, history: Any, key: Any) -> tuple[Any, Any]:
    return y, (history, key)


def _backward_bwd(spec: OperandSpec, axis: int, residuals: Any, g: Any) -> tuple[Any, Any, Any]:
    history, key = residuals
    rounded = quantize(g, spec, axis=axis, key=key, history=history)
    new_history = None if history is None else fpx_jax.record_amax(history, g)
    return rounded, new_history, _no_cotangent(key)


_backward_rounded.defvjp(_backward_fwd, _backward_bwd)


def backward_rounded(
    y: Any, spec: OperandSpec, *, axis: int = -1, key: Any = None, history: Any = None
) -> Any:
    """``y`` unchanged; on the way back its gradient is rounded as ``spec`` says.

    With delayed scaling, the cotangent of ``history`` is the updated history.
    Blocks of a block format run along ``axis``: the output features (the last axis),
    or a convolution's channels (axis 1 for ``channels_first``), the axis that
    ``dX`` sums.
    """
    if spec.scaling == "delayed" and history is None:
        raise ValueError("delayed scaling needs an amax history")
    if spec.scaling != "delayed":
        history = None
    if spec.rounding != "stochastic":
        key = None
    return _backward_rounded(spec, int(axis), y, history, key)
