"""tensor_report over a dask array: the same statistics, chunk by chunk, lazily.

The array is rechunked along the block axis where a chunk boundary would cut a
block, then each chunk is one task that computes its partial statistics
(:func:`fpexplore.report.routes.stream.chunk_stats`, the numpy path's own code); the
partials are combined in a tree, so finished ones are freed as the computation
goes. Where a per-tensor scale needs the amax, a first pass computes it the same
way. dask is imported here only (the ``dask`` extra).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ...lazy import check_known_chunks
from . import stats as S
from .chunks import PIECE
from .rows import Row, RowPlan, Work, make_plan, row_align

__all__ = ["dask_stats"]


def _dask() -> Any:
    try:
        return importlib.import_module("dask")
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            'this needs dask; from a clone of fpexplore (not on PyPI yet): pip install -e ".[dask]"'
        ) from error


def _check_dtype(dtype: np.dtype) -> None:
    from ... import codes as K

    try:
        K.real_array(np.empty(0, dtype))
    except TypeError:
        raise TypeError(f"expected a dask array of real numbers, got dtype {dtype}") from None


def _chunk_amax(chunk: np.ndarray) -> float:
    from .stream import chunk_amax

    return chunk_amax(np.asarray(chunk))


def _chunk_stats(chunk: np.ndarray, plan: RowPlan, axis: int) -> S.TensorStats:
    from .stream import chunk_stats

    return chunk_stats(np.asarray(chunk), plan, axis, [Work(2 * PIECE)])


def _add(a: S.TensorStats, b: S.TensorStats) -> S.TensorStats:
    return a.add(b)


def dask_stats(
    x: Any, rows: list[Row], axis: int, other: int | None = None
) -> tuple[S.TensorStats, float]:
    """The combined statistics of a dask array, and its amax (``other``: the axis of
    a 2-D tile's first size, None for the default)."""
    from .stream import needs_amax
    from .tiles import is_tiled

    dask = _dask()
    check_known_chunks(x, "tensor_report")
    _check_dtype(np.dtype(x.dtype))
    if x.ndim == 0:
        x = x.reshape(1)
    plain = [row for row in rows if not is_tiled(row)]
    amax = 0.0
    if needs_amax(rows):
        parts = [dask.delayed(_chunk_amax)(c) for c in x.to_delayed().ravel().tolist()]
        (amax,) = dask.compute(_tree(dask, parts, max))
    px = _whole_blocks(x, {axis: row_align(plain)})
    plan = make_plan(plain, amax, np.dtype(x.dtype))
    parts = [dask.delayed(_chunk_stats)(c, plan, axis) for c in px.to_delayed().ravel().tolist()]
    tiled = [_tiled(dask, x, row, axis, other, amax) for row in rows if is_tiled(row)]
    total, *tiled_rows = dask.compute(_tree(dask, parts, _add), *tiled)  # one run for all rows
    if tiled_rows:
        found, tiles = iter(total.rows), iter(tiled_rows)
        total.rows[:] = [next(tiles) if is_tiled(row) else next(found) for row in rows]
    return total, amax if needs_amax(rows) else total.amax


def _whole_blocks(x: Any, steps: dict[int, int]) -> Any:
    """``x`` rechunked where a chunk boundary along an axis of ``steps`` would cut a
    block (a tile) of that many elements."""
    wanted = {}
    for a, align in steps.items():
        along = x.chunks[a]
        if align > 1 and len(along) > 1 and any(c % align for c in along[:-1]):
            wanted[a] = max(align, (max(along) // align) * align)
    return x.rechunk(wanted) if wanted else x


def _tiled(dask: Any, x: Any, row: Row, axis: int, other: int | None, amax: float) -> Any:
    """A row of 2-D blocks, delayed: each chunk's tiles (chunks cut at whole tiles),
    combined."""
    from .tiles import tile_axis

    assert row.block is not None and isinstance(row.block.block_size, tuple)
    b0, b1 = row.block.block_size
    tiles_along = tile_axis(x.ndim, axis, other)
    tx = _whole_blocks(x, {axis: b1, tiles_along: b0} if tiles_along is not None else {axis: b1})
    task = dask.delayed(_tile_chunk)
    parts = [task(c, row, axis, tiles_along, amax) for c in tx.to_delayed().ravel().tolist()]
    return _tree(dask, parts, _add_rows)


def _tile_chunk(chunk: np.ndarray, row: Row, axis: int, other: int | None, amax: float) -> Any:
    from .stream import tiled_stats

    return tiled_stats(np.asarray(chunk), row, axis, other, amax)


def _add_rows(a: S.RowStats, b: S.RowStats) -> S.RowStats:
    return a.add(b)


def _tree(dask: Any, parts: list[Any], func: Any) -> Any:
    """Pairwise reduction of delayed values, so that finished partials are freed."""
    combine = dask.delayed(func)
    while len(parts) > 1:
        parts = [combine(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]  # fmt: skip
    return parts[0]
