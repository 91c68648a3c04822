"""The numpy path of a tensor report: chunks read in turn, pieces shared among threads.

A numpy array (a memory map too) is cut into chunks of at most ``chunk_bytes``
(:func:`fpexplore.report.routes.chunks.plan_chunks`, whole blocks along the block
axis); each chunk into pieces that fit the work buffers, which a few threads
(:func:`fpexplore.codes.set_threads`) take in turn, each with buffers of its own
(:class:`fpexplore.report.routes.rows.Work`). After each chunk the pages of a
memory-mapped input are handed back, so resident memory stays bounded by the
chunk size. Partials combine exactly (counts, maxima, histograms) or through
``math.fsum`` (sums), so the result does not depend on which thread took which
piece. Where a per-tensor (or NVFP4) scale needs the amax, a first pass reads it.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..._kernels.blocks import threads_for
from . import stats as S
from .chunks import CHUNK_BYTES, PIECE, plan_chunks, release_pages
from .narrow import narrow_piece_stats
from .rows import Row, RowPlan, Work, make_plan, row_align
from .tiles import flat_row, is_tiled, tile_axis, tile_pieces
from .wide import wide_piece_stats

__all__ = [
    "chunk_amax",
    "chunk_stats",
    "needs_amax",
    "numpy_stats",
    "piece_stats",
    "tiled_stats",
]


def needs_amax(rows: list[Row]) -> bool:
    """Whether a pass for the amax must come first (a per-tensor or NVFP4 scale)."""
    return any(r.scaling == "per_tensor" or (r.block and r.block.scale == "e4m3") for r in rows)


def piece_limit(shape: tuple[int, ...], axis: int, plan: RowPlan) -> int:
    """Elements per piece such that, padded to whole blocks, a piece fits :data:`PIECE`."""
    length = shape[axis] if shape else 1
    padded = plan.padded(length)
    return max(plan.align, PIECE * max(length, 1) // max(padded, 1))


def chunk_amax(chunk: np.ndarray, work: Work | None = None) -> float:
    """The largest finite magnitude of a chunk: two reductions over a float chunk
    (its largest and smallest value), else (non-finite values, other dtypes) read
    piece by piece."""
    if chunk.dtype.kind == "f" and chunk.size:
        high, low = float(chunk.max()), float(chunk.min())
        if math.isfinite(high) and math.isfinite(low):
            return max(high, -low, 0.0)
    flat = chunk.reshape(-1) if chunk.flags.c_contiguous else None
    boxes = plan_chunks(chunk.shape, PIECE) if flat is None else None
    work = work or Work(PIECE)
    best = 0.0
    pieces = (
        (flat[i : i + PIECE] for i in range(0, flat.size, PIECE)) if flat is not None
        else (chunk[box] for box in boxes or ())
    )  # fmt: skip
    for piece in pieces:
        buf = work.x[: piece.size].reshape(piece.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(buf, piece, casting="unsafe")
        a = np.abs(buf.reshape(-1), out=work.a[: piece.size])
        top = float(a.max()) if a.size else 0.0
        if not math.isfinite(top):
            top = float(a[np.isfinite(a)].max(initial=0.0))
        best = max(best, top)
    return best


def piece_stats(piece: np.ndarray, plan: RowPlan, w: Work) -> S.TensorStats:
    """The statistics of one piece (block axis last) for every row of ``plan``, by
    the plan's route; its histograms go to ``w``'s bins (:meth:`Work.drain`)."""
    if plan.narrow:
        return narrow_piece_stats(piece, plan, w)
    return wide_piece_stats(piece, plan, w)


def chunk_stats(chunk: np.ndarray, plan: RowPlan, axis: int, works: list[Work],
                pool: ThreadPoolExecutor | None = None) -> S.TensorStats:  # fmt: skip
    """The statistics of a chunk, its pieces shared among ``works`` (one per thread)."""
    limit = piece_limit(chunk.shape, axis, plan)
    boxes = list(plan_chunks(chunk.shape, limit, axis=axis, align=plan.align))

    def run(t: int) -> S.TensorStats | None:
        total = None
        for box in boxes[t :: len(works)]:
            piece = chunk[box]
            if axis != piece.ndim - 1:
                piece = np.moveaxis(piece, axis, -1)
            part = piece_stats(piece, plan, works[t])
            total = part if total is None else total.add(part)
        if total is not None:
            works[t].drain(total)
        return total

    if pool is None or len(works) == 1 or len(boxes) == 1:
        parts = [run(t) for t in range(len(works))]
    else:
        parts = list(pool.map(run, range(len(works))))
    found = [p for p in parts if p is not None]
    total = found[0]
    for part in found[1:]:
        total = total.add(part)
    return total


def numpy_stats(
    x: np.ndarray, rows: list[Row], axis: int, chunk_bytes: int = CHUNK_BYTES,
    advance: Callable[[int], None] | None = None, *, figure: bool = True,
    narrow: bool | None = None, amax: float | None = None, other: int | None = None,
) -> tuple[S.TensorStats, float]:  # fmt: skip
    """Statistics of a numpy array (a memory map read chunk by chunk); ``advance``
    is told how many values each chunk (of each pass) covered; ``figure=False``
    leaves out the ``|x|`` histogram (only the report's figure reads it);
    ``narrow=False`` takes the wide route whatever the dtype (for the tests);
    ``amax``, where given, is the tensor's (no pass reads it). A row of 2-D blocks
    is computed on the tensor's tiles laid out as 1-D blocks, ``other`` the axis
    of the tiles' first size (:mod:`~fpexplore.report.routes.tiles`)."""
    if any(is_tiled(row) for row in rows):
        plain = [row for row in rows if not is_tiled(row)]
        base, found_amax = numpy_stats(x, plain, axis, chunk_bytes, advance, figure=figure,
                                       narrow=narrow, amax=amax)  # fmt: skip
        tiled = {i: tiled_stats(x, row, axis, other, found_amax, chunk_bytes, narrow)
                 for i, row in enumerate(rows) if is_tiled(row)}  # fmt: skip
        plain_rows = iter(base.rows)
        base.rows[:] = [tiled[i] if i in tiled else next(plain_rows) for i in range(len(rows))]
        return base, found_amax
    limit = max(1, chunk_bytes // max(1, x.dtype.itemsize))
    threads = min(threads_for(x.size), 8)
    works = _take_works(threads)
    total, found = _numpy_stats(x, rows, axis, limit, advance, figure, narrow, works, amax)
    _give_back(works)  # not after an error: their bins may hold counts
    return total, found


def tiled_stats(
    x: np.ndarray, row: Row, axis: int, other: int | None, amax: float,
    chunk_bytes: int = CHUNK_BYTES, narrow: bool | None = None,
) -> S.RowStats:  # fmt: skip
    """One row of 2-D blocks: the statistics of ``x``'s tiles (whole and partial,
    :func:`~fpexplore.report.routes.tiles.tile_pieces`), each part's as 1-D blocks
    of its tiles' size, all with the tensor's ``amax`` (``other``: None for the
    default tile axis)."""
    assert row.block is not None and isinstance(row.block.block_size, tuple)
    b0, b1 = row.block.block_size
    total: S.RowStats | None = None
    for part in tile_pieces(x, axis, tile_axis(x.ndim, axis, other), b0, b1):
        stats, _ = numpy_stats(part, [flat_row(row, part.shape[1])], 1, chunk_bytes,
                               figure=False, narrow=narrow, amax=amax)  # fmt: skip
        total = stats.rows[0] if total is None else total.add(stats.rows[0])
    return total if total is not None else S.RowStats()


_SPARE: list[Work] = []
_SPARE_LOCK = threading.Lock()


def _take_works(n: int) -> list[Work]:
    """``n`` work areas, reused from earlier tensors where there are some."""
    with _SPARE_LOCK:
        taken = [_SPARE.pop() for _ in range(min(n, len(_SPARE)))]
    return taken + [Work(2 * PIECE) for _ in range(n - len(taken))]


def _give_back(works: list[Work]) -> None:
    for w in works:
        w.reset()
    with _SPARE_LOCK:
        _SPARE.extend(works[: max(0, 8 - len(_SPARE))])


def _numpy_stats(
    x: np.ndarray, rows: list[Row], axis: int, limit: int,
    advance: Callable[[int], None] | None, figure: bool, narrow: bool | None, works: list[Work],
    given: float | None = None,
) -> tuple[S.TensorStats, float]:  # fmt: skip
    align = row_align(rows)
    threads = len(works)
    amax = 0.0 if given is None else given
    if needs_amax(rows) and given is None:
        for box in plan_chunks(x.shape, limit):
            chunk = x[box]
            amax = max(amax, chunk_amax(chunk, works[0]))
            release_pages(x)
            if advance:
                advance(chunk.size)
    plan = make_plan(rows, amax, x.dtype, figure=figure, narrow=narrow)
    total: S.TensorStats | None = None
    with ThreadPoolExecutor(threads) if threads > 1 else _no_pool() as pool:
        for box in plan_chunks(x.shape, limit, axis=axis, align=align):
            chunk = x[box]
            part = chunk_stats(chunk, plan, axis, works, pool)
            total = part if total is None else total.add(part)
            release_pages(x)
            if advance:
                advance(chunk.size)
    assert total is not None
    return total, total.amax if not needs_amax(rows) and given is None else amax


class _no_pool:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
