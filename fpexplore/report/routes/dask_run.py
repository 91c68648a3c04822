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


def dask_stats(x: Any, rows: list[Row], axis: int) -> tuple[S.TensorStats, float]:
    """The combined statistics of a dask array, and its amax."""
    from .stream import needs_amax

    dask = _dask()
    check_known_chunks(x, "tensor_report")
    _check_dtype(np.dtype(x.dtype))
    if x.ndim == 0:
        x = x.reshape(1)
    align = row_align(rows)
    along = x.chunks[axis]
    if align > 1 and len(along) > 1 and any(c % align for c in along[:-1]):
        step = max(align, (max(along) // align) * align)  # blocks must not straddle chunks
        x = x.rechunk({axis: step})
    chunks = x.to_delayed().ravel().tolist()
    amax = 0.0
    if needs_amax(rows):
        parts = [dask.delayed(_chunk_amax)(c) for c in chunks]
        (amax,) = dask.compute(_tree(dask, parts, max))
    plan = make_plan(rows, amax, np.dtype(x.dtype))
    parts = [dask.delayed(_chunk_stats)(c, plan, axis) for c in chunks]
    (total,) = dask.compute(_tree(dask, parts, _add))
    return total, amax if needs_amax(rows) else total.amax


def _tree(dask: Any, parts: list[Any], func: Any) -> Any:
    """Pairwise reduction of delayed values, so that finished partials are freed."""
    combine = dask.delayed(func)
    while len(parts) > 1:
        parts = [combine(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]  # fmt: skip
    return parts[0]
