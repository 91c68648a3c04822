"""Exact sums and dot products of float64 or integer arrays, as Fractions, vectorized.

>>> import numpy as np
>>> exact_sum(np.array([0.1, 0.2])) == Fraction(0.1) + Fraction(0.2)
True
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

__all__ = ["CHUNK", "exact_dot", "exact_sum"]


CHUNK = 1 << 22
"""Values summed per pass of :func:`exact_sum`."""

_PART = 18  # bits of each of the three parts of a 53-bit significand
# one pass adds at most CHUNK parts below 2**18 into a bin: below 2**40, exact in float64
assert CHUNK << _PART <= 1 << 53


def _float64_pieces(values: np.ndarray) -> list[np.ndarray]:
    """Float64 arrays whose elementwise sum is exactly ``values``: an integer array
    is cut into multiples of 2**26 (at most 38 significant bits) and the low 26
    bits, each exact in float64 at any magnitude up to 2**64."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize <= 4:  # exact in float64 as they are
        return [np.asarray(arr, np.float64).reshape(-1)]
    arr = arr.reshape(-1)
    high = (arr >> 26).astype(np.float64) * 2.0**26  # floor division: exact
    return [high, (arr & ((1 << 26) - 1)).astype(np.float64)]


def exact_sum(values: np.ndarray) -> Fraction | None:
    """The exact sum of float64 (or integer) values (None if any is inf or NaN);
    integers are taken exactly, beyond 2**53 too (:func:`_float64_pieces`).

    >>> exact_sum(np.array([2**63 - 1, -(2**63)]))
    Fraction(-1, 1)
    """
    return _total(_exact_float64_sum(piece) for piece in _float64_pieces(values))


def _exact_float64_sum(values: np.ndarray) -> Fraction | None:
    """The exact sum of float64 values (None if any is inf or NaN), vectorized:
    every float64 is an integer times 2**-1074, cut into three parts of at most 18
    bits that ``np.bincount`` sums per exponent in passes of :data:`CHUNK` values,
    so that no bin's float64 sum ever exceeds 2**53; the passes add up as Python
    integers."""
    x = np.asarray(values, np.float64).reshape(-1)
    total = 0
    for start in range(0, x.size, CHUNK):
        part = x[start : start + CHUNK]
        if not np.isfinite(part).all():
            return None
        total += _integer_sum(part)
    return Fraction(total, 1 << 1074)


def _integer_sum(x: np.ndarray) -> int:
    """The sum of finite float64 values, in units of 2**-1074."""
    mantissa, exponent = np.frexp(x)
    integer = np.ldexp(mantissa, 53).astype(np.int64)  # x = integer * 2**(exponent - 53)
    e = exponent.astype(np.int64)
    shift = (e - 53 + 1074).clip(0)
    integer >>= (-1021 - e).clip(0)  # subnormals: exact shift
    mask = (1 << _PART) - 1
    parts = (integer & mask, (integer >> _PART) & mask, integer >> (2 * _PART))  # signed top
    total = 0
    for k, piece in enumerate(parts):
        sums = np.bincount(shift, weights=piece.astype(np.float64), minlength=1)
        for b in np.flatnonzero(sums).tolist():
            total += int(sums[b]) << (b + k * _PART)
    return total


def exact_dot(a: np.ndarray, b: np.ndarray) -> Fraction | None:
    """The exact dot product of float64 (or integer) arrays (None if any is inf
    or NaN); integers are taken exactly, beyond 2**53 too.

    >>> exact_dot(np.array([2**62 + 1]), np.array([3]))
    Fraction(13835058055282163715, 1)
    """
    pieces = [_float64_pieces(a), _float64_pieces(b)]
    return _total(_exact_float64_dot(p, q) for p in pieces[0] for q in pieces[1])


def _total(parts: Iterable[Fraction | None]) -> Fraction | None:
    """The sum of exact parts, None if any is None (an inf or NaN among them)."""
    total = Fraction(0)
    for part in parts:
        if part is None:
            return None
        total += part
    return total


def _exact_float64_dot(a: np.ndarray, b: np.ndarray) -> Fraction | None:
    """The exact dot product of float64 arrays (None if any is inf or NaN): each
    product split into two floats exactly (Dekker), away from under/overflow;
    by Fractions otherwise."""
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    a, b = np.asarray(a, np.float64).reshape(-1), np.asarray(b, np.float64).reshape(-1)
    with np.errstate(all="ignore"):  # products may overflow or underflow: see `safe`
        big = np.abs(a) * np.abs(b)
        safe = (a == 0) | (b == 0) | ((big > 2.0**-900) & (big < 2.0**900))
        safe &= (np.abs(a) < 2.0**900) & (np.abs(b) < 2.0**900)
        x, y = a[safe], b[safe]
        product = x * y  # Dekker: x * y = product + error exactly, away from under/overflow
        split = 134217729.0
        xh = x * split - (x * split - x)
        yh = y * split - (y * split - y)
        xl, yl = x - xh, y - yh
        error = ((xh * yh - product) + xh * yl + xl * yh) + xl * yl
    total = _exact_float64_sum(np.concatenate([product, error]))
    assert total is not None  # finite inputs, products in range
    rest = zip(a[~safe].tolist(), b[~safe].tolist(), strict=True)
    return total + builtins.sum((Fraction(p) * Fraction(q) for p, q in rest), Fraction(0))
