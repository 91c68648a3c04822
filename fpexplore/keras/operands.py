"""Rounding one operand of a GEMM on JAX arrays, as its :class:`OperandSpec` says.

``fpexplore.jax`` does every rounding: ``"none"`` rounds ``x`` itself;
``"per_tensor"`` scales it by ``max / amax(x)``; ``"delayed"`` by
``max / max(amax history)`` (its own amax while the history is empty); a block
format quantizes blocks (or 2-D tiles) along the given axes
(``fpexplore.jax.scale_per_tensor`` and ``quantize_blocks``: each product and
quotient exact before its one rounding). :mod:`fpexplore.keras.gemm` says which
tensor each role quantizes, along which axes, and where.

Per-tensor scaled values saturate at the format's largest finite value (as FP8
casts do); unscaled ones follow the format's own overflow convention.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .. import jax as fpx_jax
from .policies.policy import OperandSpec

__all__ = ["delayed_history", "quantize"]


def delayed_history(history: Any, x: Any) -> jax.Array:
    """The history delayed scaling reads: ``history``, or the amax of ``x`` alone while
    the history holds nothing yet (all zeros), as ``fpexplore.DelayedScaling`` does."""
    return jnp.where(jnp.max(history) > 0, history, fpx_jax.amax_of(x)[None])


def quantize(
    x: Any,
    spec: OperandSpec,
    *,
    axis: int | tuple[int, int] = -1,
    key: Any = None,
    history: Any = None,
) -> jax.Array:
    """``x`` rounded as ``spec`` says (no gradient rule: :mod:`fpexplore.keras.gemm`
    uses it in the forward and the backward pass alike).

    ``axis`` is the block axis of a block format (a pair for 2-D tiles); ``history``
    the amax history of delayed scaling.
    """
    key = key if spec.rounding == "stochastic" else None
    if spec.is_block:
        extra: dict[str, Any] = {}
        if spec.block_size is not None:
            extra["block_size"] = spec.block_size
        if spec.scale_rule is not None:
            extra["scale_rule"] = spec.scale_rule
        return fpx_jax.quantize_blocks(
            x, spec.scaling, axis=axis, rounding=spec.rounding, key=key, **extra
        )
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
