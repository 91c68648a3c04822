"""``x * scale`` and ``x / divisor`` rounded once into a format, from the exact value.

The float64 product of a float64 ``x`` and a float32 scale has up to 77
significand bits, and a quotient has infinitely many: rounding it to float64
first and then into the format rounds twice. Here each one becomes a float64
that the format rounds, in every mode, exactly as it would the exact value:

* exact float64 results need nothing more: the product of values of at most 24
  significand bits (float32, float16, bfloat16, FP8 inputs times a float32 scale)
  inside float64's normal range, any product by a power of two there, and the
  quotient of such an input by a divisor of at most 28 bits, which float64 never
  rounds onto a midpoint of a format of 25 bits or fewer;
* otherwise the float64 result ``r`` is *rounded to odd*: its exact error is
  recovered (Dekker's TwoProduct for ``x * s``; the remainder ``x - r d`` for a
  quotient), and an inexact ``r`` with an even last bit steps one place toward
  the exact value. A format of at most 51 significand bits whose smallest
  subnormal is at least ``2**-1072`` rounds that float64 as it would the exact
  value (Boldo and Melquiond 2008). Only the results that lie on one of the
  format's values or midpoints (or below its normals) can round otherwise than
  the exact value does, so only those take this step. Elements outside the range where the error
  is exact (tiny or huge results, integers beyond ``2**53``) get the same odd
  float64 from the exact value, computed with Fractions.

A NaN keeps its payload and quiet bit, an infinity stays infinite.

>>> x = np.array([3.0, 1.9618443748557354e-05])  # the exact x[1] * s lies just below
>>> float(x[1] * 149.33332824707031) == 0.0029296875  # float64 rounds it onto the midpoint
True
>>> bool(odd_product(x, 149.33332824707031)[1] < 0.0029296875)  # rounded to odd: below
True
>>> round_values(odd_product(x, 149.33332824707031), get_format("e4m3"), "nearest_even")
array([4.480000e+02, 1.953125e-03])
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..exact import check_rng, parse_real, round_real
from ..formats import Format, get_format
from .dtypes import as_float64, code_dtype
from .fields import codes_to_values
from .integers import round_integers, wide_integers
from .rounding import round_values

__all__ = [
    "odd_float64",
    "odd_float64_array",
    "odd_product",
    "odd_quotient",
    "round_exact_elements",
    "round_scaled",
    "rounds_odd_float64",
]

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64
_FLOAT64_MAX = float(np.finfo(np.float64).max)  # odd: rounds once more as anything beyond


def rounds_odd_float64(fmt: Format) -> bool:
    """Whether ``fmt`` rounds a float64 rounded to odd as it would the exact value."""
    return fmt.mantissa_bits <= 50 and fmt.smallest_subnormal >= 2.0**-1072


def _narrow(x: np.ndarray) -> bool:
    """At most 24 significand bits: float32 and narrower floats, ml_dtypes' types."""
    return (x.dtype.kind == "f" and x.dtype.itemsize <= 4) or x.dtype.kind == "V"


def odd_float64(exact: Fraction) -> float:
    """``exact`` rounded to odd on float64's grid (subnormals included); beyond
    float64's range, +-max (odd, and above every narrower format's max)."""
    magnitude = abs(exact)
    if magnitude == 0:
        return 0.0
    if magnitude >= 2**1024:
        return -_FLOAT64_MAX if exact < 0 else _FLOAT64_MAX
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    q = max(e, -1022) - 52  # float64's quantum at this magnitude
    n, rest = divmod(magnitude.numerator << max(-q, 0), magnitude.denominator << max(q, 0))
    n += bool(rest) and not n & 1
    value = float(Fraction(n) * Fraction(2) ** q)
    return -value if exact < 0 else value


def odd_float64_array(x: np.ndarray) -> np.ndarray:
    """Real values as float64, exactly where float64 holds them (NaN bits kept);
    integers beyond 2**53 rounded to odd, which a format of at most 51 bits (and a
    scaling by a power of two, or a quotient by a short divisor, before it) rounds
    as it would the integer itself."""
    out = as_float64(x)
    wide = wide_integers(x)
    if wide is not None and wide.any():
        out[wide] = round_integers(x[wide], get_format("float64"), "odd")[0]
    return out


def _exact(x: np.ndarray, where: np.ndarray) -> list[Fraction]:
    return [Fraction(v) for v in x[where].tolist()]


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    high = a * _SPLIT
    high = high - (high - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b = p + e`` exactly, while ``2**-969 <= |p| <= 2**1020`` and
    ``|a|, |b| <= 2**995``."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _in_range(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    magnitude = np.abs(p)
    ok = (magnitude >= 2.0**-969) & (magnitude <= 2.0**1020)
    return ok & (np.abs(a) <= 2.0**995) & (np.abs(b) <= 2.0**995)


def _step_to_odd(r: np.ndarray, fix: np.ndarray, up: np.ndarray) -> None:
    fix &= (r.view(np.uint64) & np.uint64(1)) == 0
    r[fix] = np.nextafter(r[fix], np.where(up[fix], np.inf, -np.inf))


def _finish(r: np.ndarray, x: np.ndarray, x64: np.ndarray, slow: np.ndarray, exact: Any) -> None:
    """Odd float64s from Fractions where the fast route does not hold; NaN and
    inf elements as they were."""
    if x.dtype.kind in "iu":
        slow |= np.abs(x64) >= 2.0**53  # perhaps not held exactly by float64
    slow &= np.isfinite(x64) & (x64 != 0)  # a zero (either sign) is exact as it is
    if slow.any():
        source = x if x.dtype.kind in "iu" else x64
        pairs = zip(_exact(source, slow), np.flatnonzero(slow).tolist(), strict=True)
        r[slow] = [odd_float64(exact(v, i)) for v, i in pairs]
    special = ~np.isfinite(x64)
    r[special] = x64[special]


def _all(condition: Any) -> bool:
    return bool(np.all(condition))


def _beside(r: np.ndarray, fmt: Format | None) -> np.ndarray:
    """Where the exact value beside a correctly rounded float64 ``r`` might round
    into ``fmt`` otherwise than ``r`` does: ``r`` on a value of ``fmt`` or on a
    midpoint between two (its bits below the format's precision plus one all zero;
    below the smallest normal, a multiple of half the least quantum), zero, inf or
    NaN. Elsewhere every such
    boundary is a float64 at least one float64 step from ``r``, while the exact value
    is within half a step: both round alike. Everywhere when ``fmt`` is None."""
    if fmt is None:
        return np.ones(r.shape, bool)
    low = np.uint64((1 << (52 - fmt.mantissa_bits - 1)) - 1)
    near = ((r.view(np.uint64) & low) == 0) | ~np.isfinite(r)
    small = np.abs(r) < fmt.smallest_normal  # the subnormal grid: multiples of a half quantum
    if small.any():
        halves = np.ldexp(r[small], -(fmt.emin - fmt.mantissa_bits - 1))
        near[small] = halves == np.floor(halves)  # zero too (a product that underflowed)
    return near


def odd_product(x: np.ndarray, scale: Any, fmt: Format | None = None) -> np.ndarray:
    """``x * scale`` (``scale`` positive: a float or an array that broadcasts to
    ``x``) as float64, exact or rounded to odd (see the module notes); with ``fmt``,
    rounded to odd only where that can matter to ``fmt`` (:func:`_beside`)."""
    if np.ndim(x) == 0:  # numpy gives scalars for 0-d operands: work on one element
        return odd_product(np.reshape(x, 1), np.reshape(scale, 1), fmt).reshape(())
    x64 = as_float64(x)
    given = np.asarray(scale, dtype=np.float64)
    s = np.broadcast_to(given, x64.shape)
    with np.errstate(all="ignore"):
        r = x64 * s
        float32_scale = _all((given.astype(np.float32) == given) & (given >= 2.0**-127)
                             & (given <= 2.0**127))  # fmt: skip
        if _narrow(x) and float32_scale:
            slow = np.zeros(x64.shape, bool)  # exact: 24 + 24 bits, normal range
        elif _all(np.frexp(given)[0] == 0.5):  # powers of two: exact unless it underflows
            slow = (np.abs(r) < 2.0**-1022) | ~np.isfinite(r)
        else:
            near = _beside(r, fmt)
            a, b = x64[near], s[near]
            p, e = _two_product(a, b)
            ok = _in_range(p, a, b) | (a == 0)
            _step_to_odd(p, ok & (e != 0), e > 0)
            r[near] = p
            slow = np.zeros(x64.shape, bool)
            slow[near] = ~ok
    flat = s.reshape(-1)
    _finish(r, x, x64, slow, lambda v, i: v * Fraction(float(flat[i])))
    return r


def odd_quotient(x: np.ndarray, divisor: Any, fmt: Format, *, narrow: bool = False) -> np.ndarray:
    """``x / divisor`` (``divisor`` positive, broadcast to ``x``) as float64 that
    ``fmt`` rounds as the exact quotient (see the module notes). ``narrow``: the
    float64 ``x`` holds values of at most 24 significand bits."""
    if np.ndim(x) == 0:  # numpy gives scalars for 0-d operands: work on one element
        one = odd_quotient(np.reshape(x, 1), np.reshape(divisor, 1), fmt, narrow=narrow)
        return one.reshape(())
    x64 = as_float64(x)
    given = np.asarray(divisor, dtype=np.float64)
    d = np.broadcast_to(given, x64.shape)
    with np.errstate(all="ignore"):
        q = x64 / d
        short = _all(np.frexp(given)[0] * 2.0**28 % 1 == 0) and fmt.mantissa_bits <= 21
        if (narrow or _narrow(x)) and short:  # 24-bit x, 28-bit d: never beside a midpoint
            slow = (np.abs(q) < 2.0**-1022) | ~np.isfinite(q)
        else:
            near = _beside(q, fmt)
            a, b, t = x64[near], d[near], q[near]
            p, e = _two_product(t, b)
            remainder = (a - p) - e  # x - q d, exactly (q correctly rounded)
            ok = _in_range(p, t, b) | (a == 0)
            _step_to_odd(t, ok & (remainder != 0), remainder > 0)
            q[near] = t
            slow = np.zeros(x64.shape, bool)
            slow[near] = ~ok
    flat = d.reshape(-1)
    _finish(q, x, x64, slow, lambda v, i: v / Fraction(float(flat[i])))
    return q


def round_exact_elements(
    x: np.ndarray, exact_of: Any, fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> np.ndarray:
    """Each finite element's exact value ``exact_of(Fraction(x))`` rounded once with
    Fractions (formats that do not round an odd float64 correctly: float64 itself)."""
    x64 = as_float64(x)
    finite = np.isfinite(x64) & (x64 != 0)
    out = round_values(x64, fmt, "nearest_even", overflow=overflow)  # zeros, inf, NaN as they are
    source = x if x.dtype.kind in "iu" else x64
    generator = check_rng(rng) if rounding == "stochastic" else None
    codes = []
    for v in _exact(source, finite):
        exact = exact_of(v)
        if generator is None:
            codes.append(round_real(parse_real(exact), fmt, rounding, overflow))
            continue
        low = round_real(parse_real(exact), fmt, "toward_zero", overflow)
        high = round_real(parse_real(exact), fmt, "down" if exact < 0 else "up", overflow)
        lo, hi = codes_to_values(np.array([low, high], dtype=code_dtype(fmt)), fmt).tolist()
        if not np.isfinite(hi):  # past the largest value: as if the exponents went on
            hi = float(np.copysign(fmt.max, hi)) * (1 + 2.0**-fmt.mantissa_bits)
        gap = Fraction(hi) - Fraction(lo)
        chance = (exact - Fraction(lo)) / gap if gap else Fraction(0)
        codes.append(high if generator.random() < chance else low)
    if codes:
        out[finite] = codes_to_values(np.array(codes, dtype=code_dtype(fmt)), fmt)
    return out


def round_scaled(
    x: np.ndarray, scale: float, fmt: Format, rounding: str, overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:  # fmt: skip
    """``x * scale`` (a positive float) rounded once into ``fmt``: float64 values."""
    fmt = get_format(fmt)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")
    if not rounds_odd_float64(fmt):  # float64 itself: each element from its exact product
        exact_of = lambda v: v * Fraction(scale)  # noqa: E731
        return round_exact_elements(x, exact_of, fmt, rounding, overflow, rng)
    return round_values(odd_product(x, scale, fmt), fmt, rounding, overflow=overflow, rng=rng)
