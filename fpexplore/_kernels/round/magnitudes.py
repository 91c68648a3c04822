"""Round-to-nearest-even of magnitudes by addition, in float32 or float64 (the report's kernels).

:mod:`fpexplore._kernels.round.nearest` rounds signed float64 values by adding
``C = 2**(e + 52 - m)`` to their magnitude. A tensor report needs magnitudes only
(``|q - x| = ||q| - |x||`` for a ``q`` of ``x``'s sign), so these kernels skip the
sign and take the binade ``2**e`` of each magnitude from the caller, where it is
shared among several formats:

* :func:`round_magnitudes32` works in float32: for a format with ``m <= 22``
  mantissa bits, ``C = 2**(e + 23 - m)`` makes float32's last place ``2**(e - m)``,
  the format's spacing in the binade of ``2**e``, so ``(|y| + C) - C`` is ``|y|``
  rounded once, to nearest with ties to even, exactly (the same argument as in
  float64, with 23 fraction bits). It needs ``C`` inside float32's normal range and
  ``max + C`` below float32's overflow: :func:`nearest_rounder32` says which
  formats qualify (the FP8, FP6 and FP4 formats and float16; not bfloat16, whose
  exponents reach float32's own).
* :func:`round_magnitudes64` is the float64 kernel on magnitudes, bit for bit
  :func:`fpexplore._kernels.round.nearest.round_nearest`'s results without the sign.

A magnitude whose rounding exceeds the format's largest finite value becomes the
rounder's overflow value (inf, NaN or the largest value); the kernels return how
many did.

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> r = nearest_rounder32(get_format("float8_e4m3fn"), saturate=False)
>>> a = np.array([1.0625, 464.0, 465.0, 2.0**-10, 0.3], np.float32)
>>> out, c = np.empty_like(a), np.empty_like(a)
>>> beyond = round_magnitudes32(a, binades32(a, c), r, out, c)
>>> out.tolist(), beyond
([1.0, 448.0, nan, 0.0, 0.3125], 1)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ...formats import Format
from .nearest import NearestRounder, NearestScratch

__all__ = [
    "Rounder32",
    "binades32",
    "nearest_rounder32",
    "round_magnitudes32",
    "round_magnitudes64",
]

_EXP32 = np.uint32(0x7F80_0000)
_EXP64 = np.uint64(0x7FF0_0000_0000_0000)


class Rounder32(NamedTuple):
    """float32 constants of one (format, overflow) pair."""

    fmt: Format
    low: np.float32  # 2**emin
    high: np.float32  # 2**(emax + 1)
    shift: np.float32  # 2**(23 - m)
    max: np.float32
    overflow_value: np.float32  # what a magnitude beyond max becomes
    small_bits: np.uint32  # float32 bits of smallest_normal: below, subnormal results


@lru_cache(maxsize=128)
def nearest_rounder32(fmt: Format, *, saturate: bool) -> Rounder32 | None:
    """float32 constants for ``fmt``, or None where the float32 kernel does not
    apply: no float64 kernel for it (:func:`fpexplore._kernels.round.nearest.nearest_rounder`),
    more than 22 mantissa bits, subnormal spacings below float32's ``2**-149``, or
    a ``C`` too large for float32 (``max + C`` must stay below ``2**127``)."""
    m = fmt.mantissa_bits
    if fmt.tabulated or not fmt.has_subnormals or m > 22:
        return None
    if fmt.emin - m < -149 or fmt.emin + 23 - m < -126 or fmt.emax + 1 + 23 - m > 100:
        return None
    if saturate or not (fmt.has_infinity or fmt.has_nan):
        big = fmt.max
    else:
        big = np.inf if fmt.has_infinity else np.nan
    f = np.float32
    return Rounder32(
        fmt, f(2.0**fmt.emin), f(2.0 ** (fmt.emax + 1)), f(2.0 ** (23 - m)), f(fmt.max),
        f(big), np.float32(fmt.smallest_normal).view(np.uint32),
    )  # fmt: skip


def binades32(a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = 2**floor(log2 a)`` for float32 magnitudes ``a`` (0 below float32's
    normals), read off the exponent bits; returns ``out``."""
    np.bitwise_and(a.view(np.uint32), _EXP32, out=out.view(np.uint32))
    return out


def round_magnitudes32(
    a: np.ndarray, binade: np.ndarray, r: Rounder32, out: np.ndarray, c: np.ndarray
) -> int:
    """``out = `` finite non-negative float32 ``a`` rounded into ``r.fmt`` (nearest,
    ties to even), given ``binade = binades32(a)``; ``c`` is scratch (it may be
    ``binade``, which is then overwritten). Contiguous 1-d arrays of one size.
    Returns how many values rounded beyond the largest finite value."""
    np.clip(binade, r.low, r.high, out=c)  # 2**e, clamped to the format's binades
    np.multiply(c, r.shift, out=c)  # C = 2**(e + 23 - m): exact
    np.add(a, c, out=out)
    np.subtract(out, c, out=out)
    return _overflow(out, r.max, r.overflow_value)


def round_magnitudes64(
    a: np.ndarray, r: NearestRounder, out: np.ndarray, scratch: NearestScratch
) -> int:
    """``out = `` finite non-negative float64 ``a`` rounded into ``r.fmt``, as
    :func:`fpexplore._kernels.round.nearest.round_nearest` does (``out`` may not
    be ``a``). Returns how many values rounded beyond the largest finite value."""
    _, magic = scratch.take(a.size)
    np.bitwise_and(a.view(np.uint64), _EXP64, out=magic)
    c = magic.view(np.float64)
    np.clip(c, r.low, r.high, out=c)
    np.multiply(c, r.shift, out=c)
    np.add(a, c, out=out)
    np.subtract(out, c, out=out)
    return _overflow(out, r.max, r.overflow_value)


def _overflow(t: np.ndarray, top: float | np.floating[Any], value: float | np.floating[Any]) -> int:
    if not t.size or not t.max() > top:
        return 0
    over = t > top
    if value == top:  # saturating: a clamp, not a masked store (blocks of 1 clip often);
        np.clip(t, 0, top, out=t)  # (t >= 0: np.minimum by a scalar is three times slower)
    else:
        np.copyto(t, value, where=over)
    return int(np.count_nonzero(over))
