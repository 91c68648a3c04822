"""Block scales in JAX: a power of two by a scale rule, or a float32 ``amax / max``.

:func:`pow2_exponent` is :func:`fpexplore.scaling.tiles.pow2_exponents` on a
block's amax bits: ``floor(log2 amax)`` is the normalized exponent ``e``, the
other rules add one where the significand says so (``ceil``: amax is no power of
two; ``even``: it rounds half up to 2 at the element's precision; ``rceil``: it
exceeds the element maximum's significand). :func:`float32_scaled_values` divides
each element by its block's float32 scale ``X = amax / max_elem`` (rounded to
nearest even, once per block, with the reciprocal for
:func:`~fpexplore.jax._bits.divide_by`), rounds the exact quotient into the
element format, saturating, and returns ``element * X`` (exact in 31 bits) rounded
once into the output dtype.

Examples
--------
>>> import numpy as np
>>> from fpexplore.scaling.block_formats import get_block_format
>>> amax = np.array([6.0, 7.0], np.float32).view(np.uint32)
>>> spec = get_block_format("mxfp4")
>>> [np.asarray(pow2_exponent(amax, spec, rule)).tolist() for rule in ("floor", "even", "rceil")]
[[0, 0], [0, 1], [0, 1]]
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from ..scaling.block_formats import BlockFormat
from ._bits import (
    INF,
    MAGNITUDE,
    SIGN,
    TOP,
    compose,
    computed_once,
    decompose,
    divide,
    divide_by,
    multiply,
    reciprocal,
    u32,
)
from ._core import float_bits
from ._rounding import round_count
from ._unscale import HOLDERS

__all__ = ["float32_scaled_values", "pow2_exponent"]

E8M0_EMIN, E8M0_EMAX = -127, 127


def pow2_exponent(amax: Any, spec: BlockFormat, rule: str) -> Any:
    """The exponent of each block's power-of-two scale (int32) from its finite amax
    bits by ``rule``, clamped to E8M0's -127..127 (-127 for an all-zero block)."""
    sig, e = decompose(jnp.minimum(amax, u32(INF - 1)))
    if rule == "floor":
        shared = e - spec.emax_elem
    elif rule == "ceil":
        shared = e - spec.emax_elem + (sig != u32(1 << TOP))
    elif rule == "even":
        carry = sig >= u32((1 << (TOP + 1)) - (1 << (TOP - 1 - spec.mantissa_bits)))
        shared = e - spec.emax_elem + carry
    else:  # rceil: amax / max_elem <= 2**shared
        max_sig, max_e = decompose(u32(float_bits(spec.max_elem)))
        shared = e - max_e + (sig > max_sig)
    shared = jnp.clip(shared, E8M0_EMIN, E8M0_EMAX)
    return jnp.where(amax == 0, E8M0_EMIN, shared)


def _block_scale(amax: Any, max_elem: float) -> dict[str, Any]:
    """Per block: ``X = amax / max_elem`` rounded to nearest even into float32, as
    its bits, normalized, and the reciprocal of its significand."""
    quotient = divide(*decompose(amax), *decompose(u32(float_bits(max_elem))), bits=26)
    count, qe = round_count(*quotient, False, mantissa_bits=23, emin=-126, rounding="nearest_even")
    x = compose(count, qe)
    sig, e = decompose(x)
    inverse = reciprocal(jnp.where(sig == 0, u32(1 << TOP), sig))
    return {"x": x, "sig": sig, "e": e, "inverse": inverse}


def float32_scaled_values(
    bits: Any, amax: Any, spec: BlockFormat, rounding: str, random: Any, holder: str
) -> Any:  # fmt: skip
    """The float32 bits of the dequantized values under a float32 block scale,
    signed, rounded once into ``holder``; ``amax`` holds each block's largest
    finite magnitude bits (kept dimensions, broadcasting to ``bits``)."""
    block = computed_once(lambda a: _block_scale(a, spec.max_elem), amax)  # per block
    magnitude = bits & u32(MAGNITUDE)
    negative = (bits & u32(SIGN)) != 0
    sig, e = decompose(jnp.minimum(magnitude, u32(INF - 1)))
    quotient = divide_by(sig, e, block["sig"], block["e"], block["inverse"])
    element = spec.element_format
    if element is None:  # MXINT8: k / 64, k in -128..127
        count, qe = round_count(*quotient, negative, mantissa_bits=6, emin=0,
                                rounding=rounding, random=random)  # fmt: skip
        largest = jnp.where(negative, u32(float_bits(2.0)), u32(float_bits(127 / 64)))
        elements = jnp.minimum(compose(count, qe), largest)
        negative = negative & (elements != 0)  # integers: no -0
    else:
        count, qe = round_count(*quotient, negative, mantissa_bits=element.mantissa_bits,
                                emin=element.emin, rounding=rounding, random=random)  # fmt: skip
        elements = jnp.minimum(compose(count, qe), u32(float_bits(element.max)))
    m, emin, top = HOLDERS[holder]
    product = multiply(*decompose(elements), block["sig"], block["e"])  # exact: 8 + 24 bits
    count, qe = round_count(*product, False, mantissa_bits=m, emin=emin, rounding="nearest_even")
    values = compose(count, qe)
    values = jnp.where(values > u32(top), u32(INF), values)
    values = jnp.where(block["x"] == 0, u32(0), values)
    negative = negative & (block["x"] != 0)
    return values | jnp.where(negative, u32(SIGN), u32(0))
