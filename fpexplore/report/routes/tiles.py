"""2-D blocks in the reports: each tile laid out as one 1-D block.

A report's statistics (counts, error quantiles, SNR) do not depend on the order
of the elements, and a 16x16 tile quantizes exactly as a block of 256 holding the
same elements does (one amax, one scale). So a row whose block format has a 2-D
``block_size`` ``(b0, b1)`` is computed on the tensor rearranged so that each
tile is one row of ``b0 * b1`` elements, with the same format's 1-D twin. The
tile's second size runs along the report's block axis, its first down the rows
(every other axis, flattened in order). Reports take whole tiles: a tensor whose
rows or block axis a tile size does not divide raises ValueError
(:func:`fpexplore.quantize_blocks` scales partial tiles on their own).

>>> x = np.arange(16.0).reshape(4, 4)
>>> tiles_as_blocks(x, 1, 2, 2)[0].tolist()
[0.0, 1.0, 4.0, 5.0]
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .rows import Row

__all__ = ["flat_row", "is_tiled", "tiles_as_blocks"]


def is_tiled(row: Row) -> bool:
    """Whether ``row`` has a block format with a 2-D ``block_size``."""
    return row.block is not None and isinstance(row.block.block_size, tuple)


def flat_row(row: Row) -> Row:
    """The row with its block format's 1-D twin (a block of ``b0 * b1``)."""
    assert row.block is not None and isinstance(row.block.block_size, tuple)
    b0, b1 = row.block.block_size
    return row._replace(block=dataclasses.replace(row.block, block_size=b0 * b1))


def tiles_as_blocks(x: np.ndarray, axis: int, b0: int, b1: int) -> np.ndarray:
    """``x`` as ``(tiles, b0 * b1)``: tiles of ``b0`` rows by ``b1`` along ``axis``."""
    moved = np.moveaxis(x, axis, -1)
    n = moved.shape[-1] if moved.ndim else 1
    flat = moved.reshape(-1, n)
    rows = flat.shape[0]
    if rows % b0 or n % b1:
        raise ValueError(
            f"a report's {b0}x{b1} blocks need whole tiles: the tensor has {rows} rows and "
            f"{n} elements along axis {axis}; quantize_blocks scales partial tiles on their own"
        )
    tiles = flat.reshape(rows // b0, b0, n // b1, b1).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(tiles.reshape(-1, b0 * b1))
