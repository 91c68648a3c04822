"""A piece's blocks of ``k`` consecutive values, at one cost a value for every ``k``.

numpy's reductions and broadcasts over a short inner axis pay a loop per block:
``np.maximum.reduceat`` costs 2-4 ns a value for blocks of 2 to 4 where a plain
pass costs 0.1-0.3, and a ``(blocks, 1)`` broadcast as much. So a block's maximum
is taken by halving pairwise for blocks of 2, 4, 8 and 16, ``k`` strided passes
for other short blocks (``reduceat`` for long ones, the values themselves for
blocks of 1), and a value per block is spread over its
elements the same way (:func:`spread`). :class:`Blocks` holds the MX scales that
a piece's narrow block rows share (:mod:`fpexplore.report.routes.narrow`).
"""

from __future__ import annotations

import numpy as np

from ..._kernels.round.magnitudes import Rounder32, binades32, round_magnitudes32

__all__ = ["Blocks", "block_max", "spread"]

_ONE = np.float32(1.0)
STRIDED = 8
"""Blocks of at most this many values are reduced and spread by strided passes."""
HALVED = 16
"""Blocks of a power of two values up to this many are reduced by halving."""


def block_max(a: np.ndarray, k: int) -> np.ndarray:
    """The largest of each ``k`` consecutive values of the 1-d ``a`` (whose size ``k``
    divides); ``a`` itself for ``k = 1`` (not a copy). Blocks of a power of two
    values are halved pairwise (``log2 k`` passes over half, a quarter... of the
    values: 0.3 ns a value for blocks of 16 unsigned integers, where ``reduceat``
    takes 0.5, and 1.2 over float64s; for 32, as ``reduceat``); the bits of
    non-negative floats order as the floats do, so callers pass such views."""
    if k == 1 or not a.size:
        return a if k == 1 else a[:0]
    if k & (k - 1) == 0 and k <= HALVED:
        top: np.ndarray = np.maximum(a[0::2], a[1::2])
        while k > 2:
            k //= 2
            top = np.maximum(top[0::2], top[1::2])
        return top
    if k > STRIDED:
        return np.maximum.reduceat(a, np.arange(0, a.size, k))
    top = a[0::k].copy()
    for j in range(1, k):
        np.maximum(top, a[j::k], out=top)
    return top


def spread(values: np.ndarray, k: int, out: np.ndarray) -> np.ndarray:
    """``out`` (``k`` times the size of ``values``) with each value repeated ``k`` times."""
    if k == 1:
        np.copyto(out, values)
    elif k > STRIDED:
        np.copyto(out.reshape(-1, k), values[:, None])
    else:
        for j in range(k):
            out[j::k] = values
    return out


class Blocks:
    """A piece's MX blocks of ``k`` float32 magnitudes: ``2**top`` for each element,
    ``top = floor(log2(block amax))``, and ``a 2**-top`` (exact, or below ``2**-126``
    where it flushes in every element format), shared by the rows."""

    def __init__(self, a: np.ndarray, k: int, buffers: list[np.ndarray]) -> None:
        top = block_max(a.view(np.uint32), k)  # the bits of non-negative floats order as they do
        exponent = np.frexp(top.view(np.float32))[1]
        exponent -= 1  # a block of zeros gets -1: any scale keeps its values 0
        smallest = int((top - np.uint32(1)).min(initial=2**32 - 1)) + 1  # the least nonzero top
        found = 0 < smallest < 2**32
        self.low = int(np.frexp(np.uint32(smallest).view(np.float32))[1]) - 1 if found else 1000
        self.k, self.top, self.exponent = k, top, exponent
        self.up, down, self.normal = buffers
        spread(np.ldexp(_ONE, exponent), k, self.up)
        spread(np.ldexp(_ONE, -exponent), k, down)
        np.multiply(a, down, out=self.normal)

    def round(self, a: np.ndarray, emax: int, r: Rounder32, buffers: tuple[np.ndarray, ...]) -> int:
        """``t = round(|x| / X)`` saturating, ``X = 2**shared``, ``shared = max(top -
        emax, -127)`` per block (OCP MX v1.0, 6.3): ``y = |x| / X`` in ``buffers[0]``,
        ``t`` in ``buffers[1]``, ``q = t X`` in ``buffers[2]``; returns the clipped count."""
        y, t, q, c = buffers
        if self.low - emax >= -127:  # no block's scale is clamped: the shared factors
            np.multiply(self.normal, np.float32(2.0**emax), out=y)
            clipped = round_magnitudes32(y, binades32(y, c), r, t, c)
            np.multiply(t, np.float32(2.0**-emax), out=q)
            np.multiply(q, self.up, out=q)
            return clipped
        shared = self.exponent - emax
        shared[self.top == 0] = -127
        np.maximum(shared, -127, out=shared)
        factor = spread(np.ldexp(_ONE, -shared), self.k, c)
        np.multiply(a, factor, out=y)
        clipped = round_magnitudes32(y, binades32(y, c), r, t, c)
        np.multiply(t, spread(np.ldexp(_ONE, shared), self.k, c), out=q)
        return clipped
