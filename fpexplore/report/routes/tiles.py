"""2-D blocks in the reports: each tile laid out as one 1-D block.

A report's statistics (counts, error quantiles, SNR) do not depend on the order
of the elements, and a 16x16 tile quantizes exactly as a block of 256 holding the
same elements does (one amax, one scale). So a row whose block format has a 2-D
``block_size`` ``(b0, b1)`` is computed on the tensor's tiles laid out as rows of
1-D blocks, with the same format's 1-D twin (:func:`flat_row`).

The tiles are those of ``quantize_blocks(np.moveaxis(x, (other, axis), (-2, -1)),
fmt, axis=-1, block_size=(b0, b1))``: ``b1`` along the report's block ``axis``,
``b0`` along the tile's ``other`` axis (:func:`tile_axis`: by default the last
axis that is not the block axis, so a matrix's other axis, and for a larger array
the tiles of :func:`fpexplore.quantize_blocks` when ``axis`` is its last), each
slice along the remaining axes tiled on its own. A 1-D tensor is one row: its
tiles are ``1 x b1``. A partial tile at an edge is scaled on its own, as
``quantize_blocks`` scales it: :func:`tile_pieces` gives the whole tiles, then
the strips along the two far edges and their corner, each as blocks of its own
(smaller) size.

>>> x = np.arange(20.0).reshape(4, 5)
>>> [(p.shape, p[0].tolist()) for p in tile_pieces(x, 1, 0, 2, 2)]  # doctest: +NORMALIZE_WHITESPACE
[((4, 4), [0.0, 1.0, 5.0, 6.0]), ((2, 2), [4.0, 9.0])]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from .rows import Row

__all__ = ["flat_row", "is_tiled", "tile_axis", "tile_pieces"]


def is_tiled(row: Row) -> bool:
    """Whether ``row`` has a block format with a 2-D ``block_size``."""
    return row.block is not None and isinstance(row.block.block_size, tuple)


def flat_row(row: Row, size: int | None = None) -> Row:
    """The row with its block format's 1-D twin: a block of ``size`` (default
    ``b0 * b1``, a whole tile's) elements."""
    assert row.block is not None and isinstance(row.block.block_size, tuple)
    b0, b1 = row.block.block_size
    k = b0 * b1 if size is None else size
    return row._replace(block=dataclasses.replace(row.block, block_size=k))


def tile_axis(ndim: int, axis: int, other: Any = None) -> int | None:
    """The axis a 2-D tile's first size runs along, for a tensor of ``ndim``
    dimensions blocked along ``axis`` (counted from 0): ``other`` checked, or by
    default the last axis that is not ``axis``; None for a 1-D tensor.

    >>> tile_axis(2, 1), tile_axis(2, 0), tile_axis(4, 1), tile_axis(4, 3), tile_axis(1, 0)
    (0, 1, 3, 2, None)
    """
    if other is None:
        if ndim < 2:
            return None
        return ndim - 1 if axis != ndim - 1 else ndim - 2
    if isinstance(other, bool) or not isinstance(other, int | np.integer):
        raise TypeError(f"tile_axis must be an int or None, got {other!r}")
    if not -ndim <= other < ndim:
        raise ValueError(f"tile_axis {other} is out of range for an array of {ndim} dimension(s)")
    if int(other) % ndim == axis:
        raise ValueError(
            f"tile_axis {other} is the block axis {axis}: a 2-D tile needs another axis"
        )
    return int(other) % ndim


def tile_pieces(
    x: np.ndarray, axis: int, other: int | None, b0: int, b1: int
) -> Iterator[np.ndarray]:
    """``x``'s tiles of ``b0`` along ``other`` by ``b1`` along ``axis`` as arrays
    ``(tiles, elements)``: the whole tiles first, then the partial ones at the far
    edge of ``axis``, of ``other``, and their corner (each array's tiles of one
    size; a part that is empty is left out)."""
    if other is None:
        m = x.reshape(1, 1, -1)
    else:
        moved = np.moveaxis(x, (other, axis), (-2, -1))
        m = moved.reshape(-1, moved.shape[-2], moved.shape[-1])
    _, rows, cols = m.shape
    r0, c0 = rows - rows % b0, cols - cols % b1
    for top, bottom, h in ((0, r0, b0), (r0, rows, rows - r0)):
        for left, right, w in ((0, c0, b1), (c0, cols, cols - c0)):
            if bottom == top or right == left:
                continue
            part = m[:, top:bottom, left:right]
            n, r, c = part.shape
            tiles = part.reshape(n, r // h, h, c // w, w).transpose(0, 1, 3, 2, 4)
            yield np.ascontiguousarray(tiles.reshape(-1, h * w))
