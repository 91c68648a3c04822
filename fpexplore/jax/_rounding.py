"""The rounding arithmetic of one mode on integers: how many quanta a value is.

:func:`round_count` rounds a normalized value (:mod:`fpexplore.jax._bits`) to a
whole number ``n`` of the format's quantum ``2**qe`` at its binade (``qe = max(e,
emin) - mantissa_bits``), the way ml_dtypes' ``ConvertImpl`` does: add a bias below
the cut, shift the cut bits out. The bias is the mode (half minus one plus the kept
part's parity for ties to even, half for ties away, all ones on the side away from
zero for the directed modes); stochastic rounding compares the cut fraction with
random bits instead. A carry into the next binade needs no care: ``n * 2**qe`` is
the right value either way. Two shortcuts work on float32 bits directly, where a
format allows: :func:`round_in_place` (a format with float32's exponent range: its
grid is float32's bits with the last ones cleared) and :func:`round_below_normal`
(the subnormals of a format whose quantum is a float32 normal).

Examples
--------
>>> import numpy as np
>>> from fpexplore.jax._bits import compose, decompose
>>> sig, e = decompose(np.uint32(0x3FA00000))  # 1.25, a tie between 1 and 1.5
>>> n, qe = round_count(sig, e, np.False_, mantissa_bits=1, emin=0, rounding="nearest_even")
>>> int(n), int(qe)  # 2 halves: ties to the even count
(2, -1)
>>> hex(int(round_in_place(np.uint32(0x3F808000), np.False_, 16, "nearest_even", None)))
'0x3f800000'
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from ._bits import TOP, i32, shift_left, shift_right, u32


def round_count(
    sig: Any, e: Any, negative: Any, *, mantissa_bits: int, emin: Any, rounding: str,
    random: Any = None, parity_bias: int | None = None, subnormals: bool = True,
) -> tuple[Any, Any]:  # fmt: skip
    """Round the normalized ``sig * 2**(e - 30)`` to ``n * 2**qe``: ``(n, qe)``.

    ``emin`` may be an array (block scaling shifts it block by block); ``negative``
    says which side is toward zero for ``up`` and ``down``; ``random`` holds uniform
    uint32 bits for ``stochastic``; ``parity_bias`` makes ties go to the even code
    rather than the even significand (P3109 with no mantissa bits). Without
    ``subnormals`` the only values below ``2**emin`` are 0 and ``2**emin`` itself:
    the quantum there is ``2**emin``."""
    qe = jnp.maximum(e, i32(emin)) - mantissa_bits
    if not subnormals:
        qe = jnp.where(e >= emin, qe, i32(emin))
    cut = qe - e + TOP  # bits below the quantum: at least 30 - mantissa_bits >= 7
    if rounding == "stochastic":
        fraction = jnp.where(cut <= 32, shift_left(sig, 32 - cut), shift_right(sig, cut - 32))
        return shift_right(sig, cut) + u32(random < fraction), qe  # P(up) = fraction / 2**32
    far = cut > 31  # below a quarter quantum: every mode rounds it as it rounds one bit
    sig = jnp.where(far, u32(sig != 0), sig)
    cut = u32(jnp.minimum(cut, 31))
    half = shift_left(u32(1), i32(cut) - 1)
    if rounding == "nearest_even":
        odd = shift_right(sig, cut) & u32(1)
        if parity_bias is not None:  # the floor's code: its exponent field when normal
            odd = jnp.where(e >= emin, u32((e + parity_bias) & 1), odd)
        bias = half - u32(1) + odd
    elif rounding == "nearest_away":
        bias = half
    elif rounding == "toward_zero":
        bias = u32(0)
    else:  # up, down: all ones below the cut on the side away from zero
        away = ~negative if rounding == "up" else negative
        bias = jnp.where(away, half + half - u32(1), u32(0))
    return shift_right(sig + bias, cut), qe  # sig + bias < 2**32


def toward_zero(rounding: str, negative: Any) -> Any:
    """Where the mode rounds toward zero (bool, or an array of them)."""
    if rounding == "toward_zero":
        return True
    if rounding == "up":
        return negative
    if rounding == "down":
        return ~negative
    return False


def round_below_normal(
    a: Any, negative: Any, m: int, emin: int, rounding: str, random: Any
) -> Any:  # fmt: skip
    """Round finite float32 magnitudes below ``2**emin`` to a whole number ``n`` of the
    quantum ``q = 2**(emin - m)``, a float32 normal: ``n`` is the significand (with
    its implicit bit) shifted right, rounded as :func:`round_count` rounds; ``n * q``
    is ``n`` converted to float32 (exact: ``n <= 2**m``) with ``emin - m`` added to
    its exponent field."""
    field = lax.shift_right_logical(a, u32(23))
    sig = (a & u32(0x7F_FFFF)) | jnp.where(field > 0, u32(0x80_0000), u32(0))
    cut = 150 + emin - m - jnp.maximum(i32(field), 1)  # >= 24 - m: q over the input's unit
    if rounding == "stochastic":
        fraction = jnp.where(cut <= 32, shift_left(sig, 32 - cut), shift_right(sig, cut - 32))
        n = shift_right(sig, cut) + u32(random < fraction)
    else:
        far = cut > 25  # below a quarter quantum (sig < 2**24): rounds as one bit would
        sig = jnp.where(far, u32(sig != 0), sig)
        cut = u32(jnp.minimum(cut, 25))
        half = lax.shift_left(u32(1), cut - u32(1))
        if rounding == "nearest_even":
            bias = half - u32(1) + (lax.shift_right_logical(sig, cut) & u32(1))
        elif rounding == "nearest_away":
            bias = half
        elif rounding == "toward_zero":
            bias = u32(0)
        else:
            away = ~negative if rounding == "up" else negative
            bias = jnp.where(away, half + half - u32(1), u32(0))
        n = lax.shift_right_logical(sig + bias, cut)
    as_float = lax.bitcast_convert_type(lax.convert_element_type(i32(n), jnp.float32), jnp.uint32)
    return jnp.where(n == 0, u32(0), as_float + u32(((emin - m) << 23) & 0xFFFF_FFFF))


def round_in_place(a: Any, negative: Any, cut: int, rounding: str, random: Any) -> Any:
    """Round finite float32 magnitude bits to their last ``23 - cut`` mantissa bits:
    the whole rounding of a format with float32's exponent range (bfloat16, TF32),
    whose grid is float32's bits with the last ``cut`` cleared, subnormals included
    (a carry moves to the next binade as it should). The shortcut of round_f32's
    float32-exponent path, for every mode."""
    if cut == 0:
        return a
    low = (1 << cut) - 1
    if rounding == "nearest_even":
        bias = u32(low >> 1) + (lax.shift_right_logical(a, u32(cut)) & u32(1))
    elif rounding == "nearest_away":
        bias = u32((low >> 1) + 1)
    elif rounding == "toward_zero":
        return a & u32(~low & 0xFFFF_FFFF)
    elif rounding == "stochastic":  # up with probability (cut bits) / 2**cut, exactly
        bias = lax.shift_right_logical(random, u32(32 - cut))
    else:
        away = ~negative if rounding == "up" else negative
        bias = jnp.where(away, u32(low), u32(0))
    return (a + bias) & u32(~low & 0xFFFF_FFFF)  # a + bias < 2**31: no wrap
