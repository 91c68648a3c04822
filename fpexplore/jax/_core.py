"""The rounding kernel: float32 bit patterns into a format, with integer work only.

:func:`round_bits` picks the route a format allows (its docstring is the map) and
counts quanta with :mod:`fpexplore.jax._rounding`; the format's rules then finish
each value, one function per concern: overflow (:func:`_overflow`), zero without a
sign and E8M0's missing zero (:func:`_zeros`), infinite and NaN inputs
(:func:`specials`). :func:`round_normalized` is the same for values that are no
float32 (the exact products of the scaling functions). :class:`Spec` holds what
the kernel reads of a format, all static.

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

from ..formats import Format
from ._bits import INF, MAGNITUDE, SIGN, compose, decompose, u32
from ._rounding import round_below_normal, round_count, round_in_place, toward_zero

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
    has_zero: bool  # and subnormals: a format without them has no zero (E8M0)
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


def round_normalized(
    sig: Any, e: Any, negative: Any, spec: Spec, rounding: str, random: Any = None
) -> Any:  # fmt: skip
    """Round finite normalized values (``sig * 2**(e - 30)``, any exponent) with signs
    ``negative`` into the format: float32 bits, overflow and zeros by its rules."""
    n, qe = round_count(
        sig, e, negative, mantissa_bits=spec.mantissa_bits, emin=spec.emin,
        rounding=rounding, random=random, parity_bias=spec.parity_bias,
        subnormals=spec.has_zero,
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
