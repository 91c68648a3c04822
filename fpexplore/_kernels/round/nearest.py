"""Round-to-nearest-even of float64 arrays by float64 addition (the report's kernel).

For a format with ``m`` mantissa bits, adding ``C = 2**(e + 52 - m)`` to a
magnitude ``|y| < 2**(e + 1)`` gives a float64 whose last place is ``2**(e - m)``,
the format's spacing in the binade of ``2**e``: the hardware's addition rounds
``|y|`` to that spacing, to nearest with ties to even, and ``(|y| + C) - C`` is
exact. Taking ``e`` as ``|y|``'s own exponent, clamped below at the format's
``emin`` (its subnormals share the spacing ``2**(emin - m)``) and above at
``emax + 1`` (beyond is overflow), one addition and one subtraction round every
finite value once, correctly. About four times the speed of the general blocked
kernel (:mod:`fpexplore._kernels.round.blocked`), for nearest-even only, for
finite inputs, and for the IEEE-like formats that lie inside float64's range
(:func:`nearest_rounder` says which). A value whose rounded magnitude exceeds the
format's largest finite value overflows: to inf, NaN or the largest value by the
format's convention, or to the largest value under ``saturate``.

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> r = nearest_rounder(get_format("float8_e4m3fn"), saturate=False)
>>> y = np.array([1.0625, 464.0, 465.0, -2.0**-10, 0.3])
>>> out = np.empty_like(y)
>>> beyond = round_nearest(y, r, out, NearestScratch(y.size))
>>> out.tolist(), beyond
([1.0, 448.0, nan, -0.0, 0.3125], 1)
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...formats import Format

_MAG = np.uint64(0x7FFF_FFFF_FFFF_FFFF)
_EXP = np.uint64(0x7FF0_0000_0000_0000)
_SIGN = np.uint64(0x8000_0000_0000_0000)

__all__ = ["NearestRounder", "NearestScratch", "nearest_rounder", "round_nearest"]


class NearestRounder(NamedTuple):
    """Constants of one (format, overflow) pair."""

    fmt: Format
    low: float  # 2**emin
    high: float  # 2**(emax + 1)
    shift: float  # 2**(52 - m)
    max: float
    overflow_value: float  # what a magnitude beyond max becomes (before the sign)
    small: float  # smallest_normal: below it, subnormal results


class NearestScratch:
    """Work arrays for :func:`round_nearest` on up to ``n`` elements."""

    def __init__(self, n: int) -> None:
        self.bits = np.empty(n, np.uint64)
        self.magic = np.empty(n, np.uint64)

    def take(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if n > self.bits.size:
            self.__init__(n)  # type: ignore[misc]
        return self.bits[:n], self.magic[:n]


@lru_cache(maxsize=128)
def nearest_rounder(fmt: Format, *, saturate: bool) -> NearestRounder | None:
    """Constants for ``fmt``, or None where this kernel does not apply: tabulated
    encodings (fnuz, P3109, E8M0, no subnormals), more than 50 mantissa bits, or
    exponents beyond what float64's ``C`` can reach."""
    m = fmt.mantissa_bits
    if fmt.tabulated or not fmt.has_subnormals or m > 50:
        return None
    if fmt.emin - m < -1074 or fmt.emax + 1 + 52 - m > 1023:
        return None
    if saturate or not (fmt.has_infinity or fmt.has_nan):
        big = fmt.max
    else:
        big = np.inf if fmt.has_infinity else np.nan
    return NearestRounder(
        fmt, 2.0**fmt.emin, 2.0 ** (fmt.emax + 1), 2.0 ** (52 - m), fmt.max, big,
        fmt.smallest_normal,
    )  # fmt: skip


def round_nearest(
    y: np.ndarray, r: NearestRounder, out: np.ndarray, scratch: NearestScratch
) -> int:
    """``out = `` finite float64 ``y`` rounded into ``r.fmt`` (nearest, ties to
    even); ``y`` and ``out`` are contiguous 1-d arrays of one size (``out`` may be
    ``y``). Returns how many values rounded beyond the largest finite value
    (saturated, or set to inf or NaN by the format's convention)."""
    n = y.size
    bits, magic = scratch.take(n)
    np.bitwise_and(y.view(np.uint64), _MAG, out=bits)
    np.bitwise_and(bits, _EXP, out=magic)  # 2**e, the binade of |y| (0 below normals)
    c = magic.view(np.float64)
    np.maximum(c, r.low, out=c)
    np.minimum(c, r.high, out=c)
    np.multiply(c, r.shift, out=c)  # C = 2**(e + 52 - m): exact
    t = bits.view(np.float64)  # |y|, rounded in place
    np.add(t, c, out=t)
    np.subtract(t, c, out=t)
    beyond = 0
    if n and t.max() > r.max:
        over = t > r.max
        beyond = int(np.count_nonzero(over))
        if r.overflow_value == r.max:  # saturating: a clamp, not a masked store
            np.minimum(t, r.max, out=t)
        else:
            np.copyto(t, r.overflow_value, where=over)
    np.copysign(t, y, out=out)
    return beyond


def rounded_magnitudes(scratch: NearestScratch, n: int) -> np.ndarray:
    """The magnitudes of the last :func:`round_nearest` call's results (before the
    sign), still in ``scratch``: read them before the next call."""
    return scratch.bits[:n].view(np.float64)
