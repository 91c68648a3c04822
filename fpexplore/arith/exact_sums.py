"""Exact sums and dot products of float64 arrays, as Fractions, vectorized.

>>> import numpy as np
>>> exact_sum(np.array([0.1, 0.2])) == Fraction(0.1) + Fraction(0.2)
True
"""

from __future__ import annotations

import builtins
from fractions import Fraction

import numpy as np

__all__ = ["exact_dot", "exact_sum"]


def exact_sum(values: np.ndarray) -> Fraction | None:
    """The exact sum of float64 values (None if any is inf or NaN), vectorized:
    every float64 is an integer times 2**-1074; integer sums per exponent."""
    x = np.asarray(values, np.float64).reshape(-1)
    if not np.isfinite(x).all():
        return None
    mantissa, exponent = np.frexp(x)
    integer = np.ldexp(mantissa, 53).astype(np.int64)  # x = integer * 2**(exponent - 53)
    shift = (exponent.astype(np.int64) - 53 + 1074).clip(0)
    integer >>= (-1021 - exponent.astype(np.int64)).clip(0)  # subnormals: exact shift
    high, low = integer >> 26, integer & ((1 << 26) - 1)
    total = 0
    for part, scale in ((high, 26), (low, 0)):
        sums = np.bincount(shift, weights=part.astype(np.float64), minlength=1)
        for e in np.flatnonzero(sums):
            total += int(sums[e]) << (int(e) + scale)
    return Fraction(total, 1 << 1074)


def exact_dot(a: np.ndarray, b: np.ndarray) -> Fraction | None:
    """The exact dot product of float64 arrays (None if any is inf or NaN): each
    product split into two floats exactly (Dekker), away from under/overflow;
    by Fractions otherwise."""
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    big = np.abs(a) * np.abs(b)
    with np.errstate(all="ignore"):
        safe = bool(((big == 0) | ((big > 2.0**-900) & (big < 2.0**900))).all())
        safe = safe and bool((np.abs(a) < 2.0**900).all() and (np.abs(b) < 2.0**900).all())
    if not safe:
        return builtins.sum(
            (Fraction(float(p)) * Fraction(float(q)) for p, q in zip(a, b, strict=True)),
            Fraction(0),
        )
    product = a * b  # Dekker: a * b = product + error exactly, away from under/overflow
    split = 134217729.0
    ah = a * split - (a * split - a)
    bh = b * split - (b * split - b)
    al, bl = a - ah, b - bh
    error = ((ah * bh - product) + ah * bl + al * bh) + al * bl
    total = exact_sum(np.concatenate([product, error]))
    return total
