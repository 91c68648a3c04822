"""Pairwise summation in a format: sums of halves, level by level.

Level ``k + 1`` of a sum of ``n`` values holds ``L[i] + L[i + n//2]`` for each
``i < n//2`` (an odd one out moves up as it is), each sum rounded into the
accumulator's format. Every partial sum combines two groups of (nearly) equal
size, so the error grows like ``log2(n)`` rather than ``n``. Each level is one
contiguous add; the first :data:`FUSED_LEVELS` levels of a long sum are computed
chunk by chunk, so that they stay in cache (the same additions, in another order
of evaluation, so the same result).

>>> import numpy as np
>>> from fpexplore import get_format
>>> pairwise_sum(np.ones(4096), get_format("float16"))
4096.0
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import codes as K
from .._kernels.arith import round_float32_nearest_even, round_to_odd_sum
from ..formats import Format, get_format

__all__ = ["FUSED_LEVELS", "pairwise_adder", "pairwise_sum", "working_terms"]

FUSED_LEVELS = 4
"""Levels computed together, chunk by chunk, for long sums."""

_CHUNK = 1 << 14


def pairwise_adder(acc: Format, native: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Elementwise ``a + b`` rounded into ``acc`` (on float32 arrays for native float16
    and float32, float64 otherwise)."""
    if native and acc.name == "float16":  # float16 + float16 in float32: 24 >= 2p + 2
        return lambda a, b: (a + b).astype(np.float16).astype(np.float32)
    if native:
        return np.add
    if float32_like(acc):  # sums of two such values in float32, then the last bits rounded
        return lambda a, b: round_float32_nearest_even(a + b, acc.mantissa_bits)
    if acc.mantissa_bits + 1 <= 25:  # float64's sum rounded once more is correct
        return lambda a, b: K.round_values(a + b, acc)
    return lambda a, b: K.round_values(round_to_odd_sum(a, b), acc)


def float32_like(acc: Format) -> bool:
    """float32's exponent range and at most 10 mantissa bits (bfloat16, tf32): sums
    in float32 rounded once more are correct (24 >= 2p + 2)."""
    return (
        acc.exponent_bits == 8
        and acc.bias == 127
        and acc.nan_encoding == "ieee"
        and acc.mantissa_bits <= 10
    )


def _levels(level: np.ndarray, add: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> float:
    while level.size > 1:
        n, half = level.size, level.size // 2
        pair = add(level[:half], level[half : 2 * half])
        level = np.append(pair, level[-1]) if n % 2 else pair
    return float(level[0])


def _fused(x: np.ndarray, add: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Level :data:`FUSED_LEVELS` of ``x``, computed in chunks that stay in cache."""
    sizes = [x.size]
    for _ in range(FUSED_LEVELS):
        sizes.append(sizes[-1] - sizes[-1] // 2)

    def level(k: int, lo: int, hi: int) -> np.ndarray:  # L_k[lo:hi]
        if k == 0:
            return x[lo:hi]
        n, half = sizes[k - 1], sizes[k - 1] // 2
        top = min(hi, half)
        parts = []
        if lo < top:
            parts.append(add(level(k - 1, lo, top), level(k - 1, lo + half, top + half)))
        if hi > half:  # the odd one out of level k - 1, moved up
            parts.append(level(k - 1, n - 1, n))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    size = sizes[-1]
    return np.concatenate(
        [level(FUSED_LEVELS, i, min(i + _CHUNK, size)) for i in range(0, size, _CHUNK)]
    )


def working_terms(
    x: np.ndarray, acc: Format
) -> tuple[np.ndarray, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
    """``x`` (values of ``acc`` or of a narrower format) in the dtype its additions
    in ``acc`` are computed in, and the adder that rounds each of them into ``acc``."""
    dtype = {"float16": np.float32, "float32": np.float32, "float64": np.float64}.get(acc.name)
    native = dtype is not None and acc == get_format(acc.name)
    with np.errstate(invalid="ignore"):  # a signalling NaN narrows without a warning
        terms = x.astype(dtype, copy=False) if native else x
        if float32_like(acc):
            terms = x.astype(np.float32)  # exact: values of acc
    return terms, pairwise_adder(acc, native)


def pairwise_sum(x: np.ndarray, acc: Format) -> float:
    """The pairwise sum of ``x`` (values of ``acc`` or of a narrower format), each
    addition rounded into ``acc``."""
    if x.size == 0:
        return 0.0
    level, add = working_terms(x, acc)
    with np.errstate(all="ignore"):
        if level.size >= 4 * _CHUNK << FUSED_LEVELS:
            level = _fused(level, add)
        return _levels(level, add)
