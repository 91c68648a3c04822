"""tensor_report(): will this tensor survive this format?

For each format, plain (``scaling="none"``), scaled by its amax
(``"per_tensor"``, :func:`fpexplore.core.scaling.scale_per_tensor`'s current
recipe, saturating) and block-scaled (``"block"``, the MX format of that element
type, or a block format named directly, along ``axis``): how many values
overflow, are clipped by the scaling rule, flush to zero or land among the
subnormals; the relative error's median, p99 and max over the nonzero finite
inputs; and the signal-to-quantization-noise ratio
``10 log10(sum x**2 / sum (x - q)**2)`` in dB.

The report streams: a numpy array (a memory map too) is read in chunks of at
most ``chunk_bytes`` bytes, a dask array chunk by chunk, and each chunk worked
through in cache-sized pieces (:mod:`fpexplore.report.routes.rows`; inputs whose
values are all float32s by a narrow route that forms errors in float32 where they
are exact, with the same numbers), so memory is
bounded by the chunk size whatever the tensor's. One pass reads the amax first
where a per-tensor scale (or NVFP4's) needs it. Counts and the maximum are exact,
the SNR is exact up to the rounding of float64 sums, and the median and p99 come
from fixed histograms: never below the exact quantile and at most a factor
``1 + 2**-6`` above it (:mod:`fpexplore.report.routes.stats`). The numbers do not
depend on the chunking, the threads or whether the input is numpy or dask.

Examples
--------
>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(1000)
>>> r = tensor_report(x, ["float8_e4m3fn"])
>>> [(row["scaling"], row["overflow"], row["clipped"]) for row in r.to_records()]
[('none', 0, 0), ('per_tensor', 0, 0), ('block', 0, 15)]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .. import codes as K
from ..formats import Format
from ..lazy import is_dask
from ..scaling.blocks import BlockFormat
from .routes import stats as S
from .routes.chunks import CHUNK_BYTES
from .routes.rows import Row, row_scales
from .routes.stream import numpy_stats
from .routes.tiles import tile_axis as resolve_tile_axis
from .rows_of import MX_OF_ELEMENT, SCALINGS, parse_formats, pow2_row

__all__ = ["MX_OF_ELEMENT", "SCALINGS", "TensorReport", "parse_formats", "tensor_report"]

LOG2_LOW, LOG2_HIGH = -160, 160  # the figure's |x| histogram: quarter binades in this range


@dataclass(frozen=True, eq=False)
class TensorReport:
    """The result of :func:`tensor_report`: one record per (format, scaling)."""

    records: list[dict[str, Any]]
    size: int
    finite: int
    amax: float
    exact: bool  # always False: quantiles come from histograms (kept for 0.1's readers)
    formats: list[Format | BlockFormat]
    log2_hist: np.ndarray = field(repr=False)
    log2_zero: int = 0
    dtype: str = "float64"
    axis: int = -1

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (format, scaling): ``format``, ``scaling``, ``block_format``,
        ``scale``, ``overflow``, ``clipped``, ``flushed_to_zero``, ``subnormal``,
        ``nonzero``, ``median_rel_error``, ``p99_rel_error``, ``max_rel_error``,
        ``snr_db``, ``became_inf``, ``became_nan``, ``nonfinite_from``, ``axis``
        (the block axis, counted from 0: the same in every row), ``short_blocks``
        (a block row whose axis, or either axis of a 2-D tile, is shorter than a
        block: each block holds the whole axis, fewer values than the format's
        block) and ``scale_rule`` (a power-of-two block scale's rule; None for
        other rows)."""
        return [dict(r) for r in self.records]

    def log2_edges(self) -> np.ndarray:
        """log2 of the edges of the bins of :attr:`log2_hist`: four bins a binade,
        ``[2**e (1 + j/4), 2**e (1 + (j+1)/4))``."""
        index = np.arange((1023 + LOG2_LOW) << 2, ((1023 + LOG2_HIGH) << 2) + 1)
        return np.log2([S.bin_edge(int(i), S.LOG2_BITS) for i in index])

    def table(self) -> Any:
        """The report as a :class:`fpexplore.render.table.Table`."""
        from ..render.report import report_table

        return report_table(self)

    def __str__(self) -> str:
        return str(self.table())

    def __repr__(self) -> str:
        return str(self.table())

    def _repr_html_(self) -> str:
        html: str = self.table()._repr_html_()
        return html

    def plot(self, ax: Any = None, *, log: bool = False) -> Any:
        """The histogram of log2|x| with each format's ranges over it (``log``: a
        logarithmic count axis); returns the Axes."""
        from ..plot.report import plot_report

        return plot_report(self, ax=ax, log=log)


def tensor_report(
    x: Any,
    formats: Any,
    *,
    axis: int | None = None,
    scalings: Iterable[str] = SCALINGS,
    chunk_bytes: int = CHUNK_BYTES,
    scale_rule: str | None = None,
    tile_axis: int | None = None,
) -> TensorReport:
    """Report what storing ``x`` in each of ``formats`` does to it.

    Parameters
    ----------
    x : array_like of real numbers (numpy, a memory map, ml_dtypes), or a dask array
        Read in chunks of at most ``chunk_bytes`` bytes (a dask array: its own
        chunks), in two passes where a per-tensor scale needs the amax first.
    formats : format spec or list of them
        Plain formats (``"float8_e4m3fn"``, ``"bfloat16"``, a dtype...) give rows
        ``none`` and ``per_tensor``, and ``block`` for an MX element format; block
        formats (``"mxfp4"``, ``"nvfp4"``...) give a ``block`` row. A name outside
        the catalogue that reads as a custom eXmY format (``"e4m4"``) warns
        (``UserWarning``) with the nearest catalogue names, and is reported as asked.
    axis : int, optional
        The block axis: consecutive elements along it share a block scale
        (default: the last axis). A Keras Dense kernel ``(in, out)`` is
        block-scaled along its input axis, ``axis=0``; a PyTorch Linear weight
        ``(out, in)`` and an ONNX or PyTorch convolution ``(out, in, *kernel)``
        along axis 1 (:func:`fpexplore.checkpoint_report` finds each tensor's).
        A block row whose axis is shorter than a block says so (``short_blocks``
        in its record, a note in the table).
    scalings : iterable of str
        The rows to compute, some of ``"none"``, ``"per_tensor"``, ``"block"``.
    chunk_bytes : int
        Input bytes read at a time (numpy inputs).
    scale_rule : str, optional
        The rule of the power-of-two block scales (MX's E8M0, ``float32_pow2``):
        ``"floor"`` (OCP, the default), ``"rceil"``, ``"ceil"`` or ``"even"``, as
        :func:`fpexplore.quantize_blocks` takes it; rows of other scales (NVFP4's
        E4M3, float32) keep theirs; a ``ValueError`` if no row has such a scale.
        Each record says its rule (``scale_rule``; None for other rows).
    tile_axis : int, optional
        For a block format of 2-D tiles (``block_size=(b0, b1)``): the axis of
        ``b0`` (``b1`` runs along ``axis``); by default the last axis that is not
        ``axis``, so a matrix's other axis. The tiles are those of
        ``quantize_blocks(np.moveaxis(x, (tile_axis, axis), (-2, -1)), fmt,
        block_size=(b0, b1))``: each slice along the other axes tiled on its own,
        a partial tile at an edge scaled on its own, a 1-D tensor one row of
        ``1 x b1`` tiles. For an ONNX or PyTorch convolution ``(out, in, kh, kw)``
        along ``axis=1``, ``tile_axis=0`` makes ``out x in`` tiles at each tap.

    Returns
    -------
    TensorReport
    """
    if isinstance(x, str | os.PathLike | Mapping):
        raise TypeError(
            f"tensor_report takes one array, got a {type(x).__name__}; for a checkpoint file "
            "or a mapping of names to arrays use checkpoint_report(source, formats) (every "
            "tensor), or open_checkpoint(source)[name] for one tensor"
        )
    parsed, rows = parse_formats(formats, scalings, scale_rule)
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive int, got {chunk_bytes!r}")
    if is_dask(x):
        from .routes.dask_run import dask_stats

        arr, ax = x, _block_axis(axis, max(x.ndim, 1))
        other = resolve_tile_axis(max(x.ndim, 1), ax, tile_axis)
        stats, amax = dask_stats(x, rows, ax, other)
    else:
        arr = K.real_array(x)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        ax = _block_axis(axis, arr.ndim)
        other = resolve_tile_axis(arr.ndim, ax, tile_axis)
        stats, amax = numpy_stats(arr, rows, ax, chunk_bytes, other=other)
    return build_report(stats, rows, amax, parsed, arr.dtype, ax, tuple(arr.shape), other)


def _block_axis(axis: Any, ndim: int) -> int:
    if axis is None:
        return ndim - 1
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"axis must be an int or None, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for an array of {ndim} dimension(s)")
    return int(axis) % ndim


def build_report(
    stats: S.TensorStats, rows: list[Row], amax: float, parsed: list[Format | BlockFormat],
    dtype: Any, axis: int, shape: tuple[int, ...] = (), other: int | None = None,
) -> TensorReport:  # fmt: skip
    """A :class:`TensorReport` from a tensor's combined statistics (``shape``: the
    tensor's, and ``other`` the axis of a 2-D tile's first size, None for a tensor of
    one axis, for ``short_blocks``)."""
    length = int(shape[axis]) if len(shape) > axis else 1
    across = int(shape[other]) if other is not None else 1
    scales = row_scales(rows, amax)
    signal = stats.signal.log2()  # (the rows share it)
    records = []
    for i, (row, r) in enumerate(zip(rows, stats.rows, strict=True)):
        scale = scales[i]
        median, p99 = S.quantiles(r, (0.5, 0.99))
        records.append({
            "format": row.label, "scaling": row.scaling,
            "block_format": row.block.name if row.block is not None else None,
            "scale": scale, "overflow": r.overflow, "clipped": r.clipped,
            "flushed_to_zero": r.flushed_to_zero, "subnormal": r.subnormal,
            "nonzero": stats.nonzero,
            "median_rel_error": median, "p99_rel_error": p99,
            "max_rel_error": (math.inf if r.nonfinite else r.max_rel) if stats.nonzero
            else math.nan,
            "snr_db": S.snr_of_log2(signal, r.noise, scale) if stats.finite or not stats.n
            else math.nan,  # NaN and inf alone: no signal to measure (and no pass)
            "became_inf": r.became_inf, "became_nan": r.became_nan,
            "nonfinite_from": r.overflow_from if r.nonfinite else None, "axis": axis,
            "short_blocks": _short(row, length, across),
            "scale_rule": row.rule if pow2_row(row) else None,
        })  # fmt: skip
    hist, zero = _figure_hist(stats)
    return TensorReport(records, stats.n, stats.finite, amax, False, parsed, hist, zero,
                        dtype_name(dtype), axis)  # fmt: skip


@lru_cache(maxsize=64)
def dtype_name(dtype: Any) -> str:
    """``str(np.dtype(dtype))``, remembered (it takes 5 µs, a small tensor's report 100)."""
    return str(np.dtype(dtype))


def _short(row: Row, length: int, across: int = 1) -> bool:
    """Whether a block row's axis (of ``length`` values) is shorter than its blocks,
    or, for 2-D tiles, either of the tile's axes (``across``: the other's length)."""
    size = row.block.block_size if row.block is not None else None
    if isinstance(size, tuple):
        return across < size[0] or length < size[1]
    return isinstance(size, int) and length < size


def _figure_hist(stats: S.TensorStats) -> tuple[np.ndarray, int]:
    """The |x| histogram on the figure's range (values beyond it in the end bins)."""
    low, high = (1023 + LOG2_LOW) << 2, (1023 + LOG2_HIGH) << 2
    out = np.zeros(high - low, np.int64)
    h = stats.log2_hist
    if h.counts.size:
        index = np.clip(np.arange(h.offset, h.offset + h.counts.size), low, high - 1) - low
        np.add.at(out, index, h.counts)
    zero = stats.finite - stats.nonzero
    return out, zero
