"""NVFP4 in JAX: the tensor scale, the block scales, and each element's value.

NVIDIA's NVFP4 has blocks of 16 E2M1 elements, an E4M3 scale ``s`` per block and a
float32 scale ``g`` per tensor: ``g = amax / 2688`` rounded to float32, ``s =
block_amax / (6 g)`` rounded into E4M3 (at most 448), each element ``V / (s g)``
rounded into E2M1 (saturating at 6), and its value ``element * s * g`` (up to 30
significant bits) rounded once to the output dtype. Every quotient and product is
exact before its one rounding.

The work is spread by what it depends on. Per tensor, for each of E4M3's 127
scales (:func:`_rows`): the divisor ``s g`` (exact: 4 bits times 24), its
:func:`~fpexplore.jax._bits.reciprocal`, the thresholds between neighbouring
elements and the values of the eight elements times ``s g``. Per block
(:func:`_blocks`): the scale's code, and its row of thresholds or divisor. Per
element: to round to nearest or toward one side, the count of thresholds at or
below ``|V|`` (the threshold between ``a`` and ``b`` is ``(a + b)/2 * s g``
rounded up to a float32, or one past it where a tie goes down: comparing float32
bits is comparing values); to round stochastically, the quotient's 31 bits from
the reciprocal; then the value from the tensor's table. Each stage is built by
:func:`~fpexplore.jax._bits.computed_once`, so XLA does not repeat it per element,
and gives one array (a column per quantity, the block's code in the last), since
XLA would otherwise compute the stage again for each of its outputs.

Examples
--------
>>> import numpy as np
>>> from fpexplore.jax._bits import decompose
>>> x = np.array([[0.1, -0.3, 0.7, 1.3, 2.9, -5.0, 0.02, 0.5] * 2], np.float32)
>>> bits = x.view(np.uint32)[:, None, :, None]  # (outer, blocks, 16, inner)
>>> amax = (bits & 0x7FFFFFFF).max(axis=2, keepdims=True)
>>> out = nvfp4_values(bits, amax, amax >= 0x7F800000, "nearest_even", None, "float32")
>>> np.asarray(out).view(np.float32)[0, 0, :8, 0].tolist()
[0.0, -0.4166666567325592, 0.8333333134651184, 1.25, 2.5, -5.0, 0.0, 0.4166666567325592]
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from ._bits import (
    INF,
    MAGNITUDE,
    SIGN,
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

__all__ = ["nvfp4_values"]

E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
"""The magnitudes of E2M1, the elements of NVFP4, by code."""
SCALES = np.array(
    [(c % 8) * 2.0**-9 if c < 8 else (8 + c % 8) * 2.0 ** ((c >> 3) - 10) for c in range(127)],
    np.float32,
)
"""E4M3's values from +0 to 448, by code."""


def _constant(value: Any) -> tuple[Any, Any]:
    """A float32 constant (or a float32 array of them), normalized."""
    if isinstance(value, np.ndarray):
        return decompose(u32(value.view(np.uint32)))
    return decompose(u32(float_bits(value)))


def _thresholds(rounding: str, toward_zero: bool) -> list[tuple[float, bool]]:
    """Per element code ``j`` from 1 to 7: the multiple of ``s g`` at which ``|V|``
    reaches code ``j`` and whether ``|V|`` equal to it does (a tie)."""
    if rounding in ("nearest_even", "nearest_away"):  # the even codes: 1.0, 2, 4
        return [((E2M1[j - 1] + E2M1[j]) / 2, rounding == "nearest_away" or j % 2 == 0)
                for j in range(1, 8)]  # fmt: skip
    if toward_zero:
        return [(E2M1[j], True) for j in range(1, 8)]
    return [(E2M1[j - 1], False) for j in range(1, 8)]


def _rows(g: Any, holder: str, rounding: str) -> tuple[Any, Any]:
    """Per E4M3 scale ``s`` (by code), ``(table, values)``. ``table`` holds one row of
    uint32 columns per scale: the divisor ``s g``, normalized (its significand and
    its exponent's bits), and its reciprocal (stochastic rounding), or the seven
    thresholds' float32 bits (the other modes: ``toward``, then for ``up`` and
    ``down`` ``away`` from zero); its last column is the code itself. ``values`` holds
    the element codes' values ``E2M1[j] * s * g`` rounded to nearest even into
    ``holder``, code by code (row ``c`` at ``8 c``). Each is computed as one array of
    (scales, codes), so that its operations appear once in the program rather than
    once per code, and XLA fuses each into one loop rather than one per column."""
    g_sig, g_e = decompose(g)
    s_sig, s_e = decompose(u32(SCALES.view(np.uint32)))
    codes = u32(np.arange(len(SCALES), dtype=np.uint32))
    if rounding == "stochastic":
        divisor_sig, divisor_e = multiply(s_sig, s_e, g_sig, g_e)  # exact: 4 bits times 24
        e_bits = lax.bitcast_convert_type(divisor_e, jnp.uint32)
        columns = [divisor_sig, e_bits, reciprocal(divisor_sig)]
    else:
        columns = []
    s_sig, s_e = s_sig[:, None], s_e[:, None]  # a column: scales down, codes across
    sides = ("toward", "away") if rounding in ("up", "down") else ("toward",)
    for side in sides if rounding != "stochastic" else ():
        thresholds = _thresholds(rounding, side == "toward")
        t = np.array([t for t, _ in thresholds], np.float32)
        tie_up = np.array([tie for _, tie in thresholds])
        # t * s * g: t has at most 3 significant bits, s 4 and g 24
        product = multiply(*multiply(*_constant(t), s_sig, s_e), g_sig, g_e)
        up, qe = round_count(*product, False, mantissa_bits=23, emin=-126, rounding="up")
        down = round_count(*product, False, mantissa_bits=23, emin=-126, rounding="down")[0]
        ceiling = jnp.where(product[0] == 0, u32(0), compose(up, qe))
        table = ceiling + u32((up == down) & ~tie_up)  # > T: one past
        columns += [table[:, j] for j in range(7)]
    m, emin, _ = HOLDERS[holder]
    # exact: 2 bits times 4, then 6 bits times 24; one rounding
    scaled = multiply(*_constant(np.array(E2M1, np.float32)), s_sig, s_e)
    count, qe = round_count(*multiply(*scaled, g_sig, g_e), False, mantissa_bits=m,
                            emin=emin, rounding="nearest_even")  # fmt: skip
    return jnp.stack([*columns, codes], axis=1), compose(count, qe).reshape(-1)


def _tensor_scale(finite_amax: Any) -> Any:
    """``g = amax / 2688`` rounded to float32 (at least ``2**-149``; 1.0 for an amax of 0)."""
    quotient = divide(*decompose(finite_amax), *_constant(2688.0), bits=26)
    count, qe = round_count(*quotient, False, mantissa_bits=23, emin=-126, rounding="nearest_even")
    g = jnp.maximum(compose(count, qe), u32(1))
    return jnp.where(finite_amax == 0, u32(float_bits(1.0)), g)


def _blocks(amax: Any, g: Any, table: Any) -> Any:
    """Per block: the row of ``table`` (:func:`_rows`) of the code of ``s = amax / (6
    g)`` rounded into E4M3 (saturating at 448, the code 126), the code in its last
    column: one array, so that XLA computes the code once rather than per column."""
    target = divide(*decompose(amax), *multiply(*decompose(g), *_constant(6.0)), bits=6)
    count, qe = round_count(*target, False, mantissa_bits=3, emin=-6, rounding="nearest_even")
    code = jnp.minimum(lax.shift_left(u32(qe + 9), u32(3)) + count, u32(126))  # E4M3's code
    return table[code]


def nvfp4_values(
    bits: Any, amax: Any, special: Any, rounding: str, random: Any, holder: str,
    tensor_amax: Any = None,
) -> Any:  # fmt: skip
    """The float32 bits of NVFP4's dequantized values, rounded once into ``holder``
    (``"float32"``, ``"bfloat16"`` or ``"float16"``), signed, of the float32 bits
    ``bits`` in blocks along axis 2; ``amax`` holds the blocks' largest magnitude
    bits (a kept dimension) and ``special`` where that is inf or NaN (the caller
    makes those blocks NaN); ``tensor_amax``, float32 magnitude bits, gives the
    tensor scale in place of the largest finite amax."""
    finite = jnp.where(special, u32(0), amax)
    largest = jnp.max(finite, initial=np.uint32(0)) if tensor_amax is None else tensor_amax
    g = _tensor_scale(largest)
    table, values = computed_once(lambda g: _rows(g, holder, rounding), g)  # per tensor
    block = computed_once(lambda a: _blocks(a, g, table), finite)  # per block

    def column(i: int) -> Any:
        return block[..., i]

    magnitude = bits & u32(MAGNITUDE)
    negative = (bits & u32(SIGN)) != 0
    if rounding == "stochastic":  # all 31 quotient bits against 32 random bits
        sig, e = decompose(jnp.minimum(magnitude, u32(INF - 1)))
        divisor_e = lax.bitcast_convert_type(column(1), jnp.int32)
        quotient = divide_by(sig, e, column(0), divisor_e, column(2))
        count, qe = round_count(*quotient, negative, mantissa_bits=1, emin=0,
                                rounding=rounding, random=random)  # fmt: skip
        j = jnp.minimum(count + lax.shift_left(u32(qe + 1), u32(1)), u32(7))  # qe >= -1
    else:

        def count_up(side: int) -> Any:  # the thresholds at or below |V|
            return sum(u32(magnitude >= column(7 * side + j)) for j in range(7))

        j = count_up(0)
        if rounding in ("up", "down"):
            away = ~negative if rounding == "up" else negative
            j = jnp.where(away, count_up(1), j)
    code = column(-1)
    j = jnp.where(code == 0, u32(0), j)  # no scale: every element +0
    value = values[lax.shift_left(code, u32(3)) + j]
    return value | jnp.where(negative & (code != 0), u32(SIGN), u32(0))
