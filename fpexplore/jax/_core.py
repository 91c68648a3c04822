"""The rounding kernel: float32 bit patterns into a format, with integer work only.

A value travels as in :mod:`fpexplore.jax._bits`: a normalized significand and an
exponent. :func:`round_count` rounds it to a whole number ``n`` of the format's
quantum ``2**qe`` at its binade (``qe = max(e, emin) - mantissa_bits``), the way
ml_dtypes' ``ConvertImpl`` does: add a bias below the cut, shift the cut bits out.
The bias is the mode (half minus one plus the kept part's parity for ties to even,
half for ties away, all ones on the side away from zero for the directed modes);
stochastic rounding compares the cut fraction with random bits instead. A carry
into the next binade needs no care: ``n * 2**qe`` is the right value either way.
:func:`round_normalized` then applies the format's rules, one function per concern:
overflow (:func:`_overflow`), zero and E8M0's missing zero (:func:`_zeros`),
and :func:`round_bits`, for float32 inputs, their infinities and NaNs (:func:`specials`).

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> spec = spec_for(get_format("float8_e4m3fn"), None)
>>> x = np.array([1.0, 1.0625, 500.0, -1e-30], np.float32).view(np.uint32)
>>> np.asarray(round_bits(x, spec, "nearest_even")).view(np.float32).tolist()
[1.0, 1.0, nan, -0.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..formats import Format
from ._bits import INF, MAGNITUDE, SIGN, TOP, compose, decompose, i32, shift_left, shift_right, u32

QUIET_NAN = 0x7FC0_0000


def float_bits(value: float) -> int:
    """The float32 bits of a value float32 holds exactly."""
    return int(np.array(value, np.float32).view(np.uint32))


@dataclass(frozen=True)
class Spec:
    """What the kernel reads of one (format, overflow policy): all static."""

    mantissa_bits: int
    emin: int  # exponent of the smallest normal binade
    max_bits: int  # float32 bits of the largest finite value
    smallest_bits: int  # float32 bits of the smallest positive value
    overflow_to: str  # what an overflow away from zero gives: "inf", "nan" or "max"
    infinite_to: str  # what an infinite input gives: "inf", "nan" or "max"
    nan: str  # "payload" (IEEE), "signed" (fn), "negative" (fnuz, P3109), "positive"
    #           (E8M0), "keep" (FP6/FP4: no NaN; the input NaN passes through)
    negative_zero: bool
    is_signed: bool
    has_zero: bool
    parity_bias: int | None  # ties to the even code (P3109 with no mantissa bits): its bias


@lru_cache(maxsize=256)
def spec_for(fmt: Format, overflow: str | None) -> Spec:
    """The static constants of ``fmt`` under an overflow policy (None or "saturate")."""
    if overflow == "saturate" or not fmt.has_nan:
        big = "max"
    else:
        big = "inf" if fmt.has_infinity else "nan"
    if fmt.nan_encoding == "ieee":
        nan = "payload"
    elif fmt.nan_encoding == "fn":
        nan = "signed" if fmt.is_signed else "positive"
    elif fmt.nan_encoding in ("fnuz", "p3109"):
        nan = "negative"
    else:
        nan = "keep"
    return Spec(
        mantissa_bits=fmt.mantissa_bits,
        emin=fmt.emin,
        max_bits=float_bits(fmt.max),
        smallest_bits=float_bits(fmt.smallest_subnormal),
        overflow_to=big,
        infinite_to="inf" if fmt.has_infinity else big,
        nan=nan,
        negative_zero=fmt.has_negative_zero,
        is_signed=fmt.is_signed,
        has_zero=fmt.has_zero,
        parity_bias=fmt.bias if fmt.ties_to_even_code and fmt.mantissa_bits == 0 else None,
    )


def round_count(
    sig: Any, e: Any, negative: Any, *, mantissa_bits: int, emin: Any, rounding: str,
    random: Any = None, parity_bias: int | None = None,
) -> tuple[Any, Any]:  # fmt: skip
    """Round the normalized ``sig * 2**(e - 30)`` to ``n * 2**qe``: ``(n, qe)``.

    ``emin`` may be an array (block scaling shifts it block by block); ``negative``
    says which side is toward zero for ``up`` and ``down``; ``random`` holds uniform
    uint32 bits for ``stochastic``; ``parity_bias`` makes ties go to the even code
    rather than the even significand (P3109 with no mantissa bits)."""
    qe = jnp.maximum(e, i32(emin)) - mantissa_bits
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


def round_bits(u: Any, spec: Spec, rounding: str, random: Any = None) -> Any:
    """Round float32 bit patterns ``u`` (uint32) into the format: float32 bits.

    Three routes, chosen by the format (statically), the same results:

    * float32's exponent range (bfloat16, TF32): :func:`round_in_place` alone;
    * normals inside float32's and a smallest subnormal float32 holds as a normal
      (float16, every FP8 but E8M0 and P3109 p1, FP6, FP4): :func:`round_in_place`
      at and above the smallest normal, :func:`round_below_normal` under it;
    * any other format (E8M0, P3109 with no mantissa bits, custom formats reaching
      below float32's normals): the general :func:`round_normalized`.
    """
    u = u32(u)
    a = u & u32(MAGNITUDE)
    negative = (u & u32(SIGN)) != 0
    finite = jnp.minimum(a, u32(INF - 1))  # inf and NaN: replaced below
    m, emin = spec.mantissa_bits, spec.emin
    if m == 0 or not spec.has_zero or emin < -126 or emin - m < -126 < emin:
        result = round_normalized(*decompose(finite), negative, spec, rounding, random)
        return specials(result, u, a, negative, spec)
    magnitude = round_in_place(finite, negative, 23 - m, rounding, random)
    if emin > -126:
        small = round_below_normal(finite, negative, m, emin, rounding, random)
        magnitude = jnp.where(finite < u32((emin + 127) << 23), small, magnitude)
    result = _zeros(_overflow(magnitude, negative, spec, rounding), a == 0, negative, spec,
                    rounding)  # fmt: skip
    return specials(result, u, a, negative, spec)


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


def round_normalized(
    sig: Any, e: Any, negative: Any, spec: Spec, rounding: str, random: Any = None
) -> Any:  # fmt: skip
    """Round finite normalized values (``sig * 2**(e - 30)``, any exponent) with signs
    ``negative`` into the format: float32 bits, overflow and zeros by its rules."""
    n, qe = round_count(
        sig, e, negative, mantissa_bits=spec.mantissa_bits, emin=spec.emin,
        rounding=rounding, random=random, parity_bias=spec.parity_bias,
    )  # fmt: skip
    result = _overflow(compose(n, qe), negative, spec, rounding)
    return _zeros(result, sig == 0, negative, spec, rounding)


def _signed(magnitude: Any, negative: Any) -> Any:
    return magnitude | jnp.where(negative, u32(SIGN), u32(0))


def _nan_bits(u: Any, negative: Any, spec: Spec) -> Any:
    """The float32 bits of the format's NaN for a NaN input ``u``: the sign, the quiet
    bit and the top payload bits the format holds (a signalling NaN left with none
    gets the lowest one), as fpexplore's codes keep them."""
    if spec.nan == "payload":
        lowest = 1 << (23 - spec.mantissa_bits)
        kept = u & u32((0xFFFF_FFFF // lowest) * lowest)
        empty = (kept & u32(0x7F_FFFF)) == 0
        return jnp.where(empty, kept | u32(lowest), kept)
    if spec.nan == "signed":
        return _signed(u32(QUIET_NAN), negative)
    if spec.nan == "negative":  # the one NaN sits at the code of -0
        return u32(QUIET_NAN | SIGN)
    if spec.nan == "positive":
        return u32(QUIET_NAN)
    return u  # FP6/FP4 have no NaN: the input's passes through


def _big(kind: str, negative: Any, spec: Spec) -> Any:
    """Signed float32 bits of an overflow's or infinity's result: inf, NaN or max."""
    if kind == "inf":
        return _signed(u32(INF), negative)
    if kind == "max":
        return _signed(u32(spec.max_bits), negative)
    return _nan_bits(u32(QUIET_NAN), negative, spec)


def _overflow(magnitude: Any, negative: Any, spec: Spec, rounding: str) -> Any:
    """Signed results; beyond max: max toward zero, else the format's overflow."""
    over = magnitude > u32(spec.max_bits)
    big = jnp.where(
        toward_zero(rounding, negative),
        _signed(u32(spec.max_bits), negative),
        _big(spec.overflow_to, negative, spec),
    )
    return jnp.where(over, big, _signed(magnitude, negative))


def _zeros(result: Any, zero: Any, negative: Any, spec: Spec, rounding: str) -> Any:
    """Zero without a sign (fnuz, P3109), and the formats without zero or negatives
    (E8M0): a zero or negative input is NaN; a positive one below the smallest value
    rounds to it, or to NaN toward zero."""
    if not spec.negative_zero:
        result = jnp.where(result == u32(SIGN), u32(0), result)
    if spec.has_zero and spec.is_signed:
        return result
    nan = _nan_bits(u32(QUIET_NAN), negative, spec)
    if not spec.has_zero:
        below = (result & u32(MAGNITUDE)) == 0
        lifted = jnp.where(toward_zero(rounding, negative), nan, u32(spec.smallest_bits))
        result = jnp.where(below, jnp.where(zero, nan, lifted), result)
    if not spec.is_signed:
        result = jnp.where(negative & ~zero, nan, result)
    return result


def specials(result: Any, u: Any, a: Any, negative: Any, spec: Spec) -> Any:
    """Infinite inputs (inf, NaN or max by the format) and NaN inputs."""
    infinite = _big(spec.infinite_to, negative, spec)
    if not spec.is_signed:
        infinite = jnp.where(negative, _nan_bits(u, negative, spec), infinite)
    result = jnp.where(a == u32(INF), infinite, result)
    return jnp.where(a > u32(INF), _nan_bits(u, negative, spec), result)
