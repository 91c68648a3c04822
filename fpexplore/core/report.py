"""tensor_report(): will this tensor survive this format?

For each format, plain (``scaling="none"``), scaled by its amax
(``"per_tensor"``, :func:`fpexplore.core.scaling.scale_per_tensor`'s current
recipe, saturating) and block-scaled (``"block"``, the MX format of that element
type, or a block format named directly): how many values overflow, flush to zero
or land among the subnormals; the relative error's median, p99 and max over the
nonzero finite inputs; and the signal-to-quantization-noise ratio
``10 log10(sum x**2 / sum (x - q)**2)`` in dB.

A numpy array is measured exactly. A dask array is measured chunk by chunk and
lazily, with bounded memory: one pass for the amax, one for the partial counts,
sums and fixed-bin histograms, combined in a tree. Its counts, max and SNR are
exact (the SNR up to the order of float64 sums); its median and p99 come from
histograms of the relative error, 64 bins an octave, and lie within a factor
``QUANTILE_BOUND = 1 + 2**-6`` above the exact values
(:mod:`fpexplore.core.report_stats`).

Examples
--------
>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(1000)
>>> r = tensor_report(x, ["float8_e4m3fn"])
>>> [(row["scaling"], row["overflow"]) for row in r.to_records()]  # MX E4M3 clips (464, 512)
[('none', 0), ('per_tensor', 0), ('block', 15)]
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import codes as K
from ..formats import Format, get_format
from . import report_stats as S
from .blocks import BLOCK_FORMATS, BlockFormat, get_block_format
from .lazy import check_known_chunks, is_dask

__all__ = ["SCALINGS", "TensorReport", "tensor_report"]

SCALINGS = ("none", "per_tensor", "block")
MX_OF_ELEMENT = {spec.element: spec for spec in BLOCK_FORMATS.values() if spec.name != "nvfp4"}
"""The MX block format of each element format (the ``block`` row of a plain format)."""


@dataclass(frozen=True, eq=False)
class TensorReport:
    """The result of :func:`tensor_report`: one record per (format, scaling)."""

    records: list[dict[str, Any]]
    size: int
    finite: int
    amax: float
    exact: bool  # quantiles exact (numpy input) or from histograms (dask)
    formats: list[Format | BlockFormat]
    log2_hist: np.ndarray = field(repr=False)
    log2_zero: int = 0
    dtype: str = "float64"

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (format, scaling): ``format``, ``scaling``, ``block_format``,
        ``scale``, ``overflow``, ``flushed_to_zero``, ``subnormal``, ``nonzero``,
        ``median_rel_error``, ``p99_rel_error``, ``max_rel_error``, ``snr_db``."""
        return [dict(r) for r in self.records]

    def log2_edges(self) -> np.ndarray:
        """log2 of the edges of the bins of :attr:`log2_hist`: four bins an octave,
        ``[2**e (1 + j/4), 2**e (1 + (j+1)/4))``."""
        return S.log2_edges()

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


def _parse_formats(formats: Any) -> tuple[list[Format | BlockFormat], list[S.Row]]:
    """The formats asked for, and the rows ``(scaling, format, block format)``."""
    if isinstance(formats, str | Format | BlockFormat) or not hasattr(formats, "__iter__"):
        formats = [formats]
    parsed: list[Format | BlockFormat] = []
    rows: list[S.Row] = []
    for spec in formats:
        if isinstance(spec, BlockFormat) or (isinstance(spec, str) and _is_block(spec)):
            block = get_block_format(spec)
            parsed.append(block)
            rows.append(("block", block.element_format, block, block.name))
            continue
        fmt = get_format(spec)
        parsed.append(fmt)
        rows += [("none", fmt, None, fmt.name), ("per_tensor", fmt, None, fmt.name)]
        if fmt.name in MX_OF_ELEMENT and fmt == get_format(fmt.name):
            rows.append(("block", fmt, MX_OF_ELEMENT[fmt.name], fmt.name))
    if not rows:
        raise ValueError("tensor_report needs at least one format")
    return parsed, rows


def _is_block(name: str) -> bool:
    try:
        get_block_format(name)
    except ValueError:
        return False
    return True


def _records(
    total: dict[str, Any], rows: list[S.Row], amax: float, exact: bool
) -> list[dict[str, Any]]:
    from .scaling import compute_scale

    records = []
    for (scaling, fmt, block, name), r in zip(rows, total["rows"], strict=True):
        if exact:
            median, p99 = S.exact_quantiles(r["rel"], (0.5, 0.99))
        else:
            median, p99 = (S.quantile(r, q, r["max_rel"]) for q in (0.5, 0.99))
        noise, signal = r["noise"], r["signal"]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            snr = float(10 * np.log10(signal / noise)) if noise > 0 else math.inf
        if math.isnan(snr):  # inf / inf: an overflow to inf with an inf signal sum
            snr = -math.inf
        records.append({
            "format": name, "scaling": scaling,
            "block_format": block.name if block is not None else None,
            "scale": compute_scale(amax, fmt) if scaling == "per_tensor" else None,
            "overflow": r["overflow"], "flushed_to_zero": r["flushed_to_zero"],
            "subnormal": r["subnormal"], "nonzero": r["nonzero"],
            "median_rel_error": median, "p99_rel_error": p99,
            "max_rel_error": r["max_rel"] if r["nonzero"] else math.nan, "snr_db": snr,
        })  # fmt: skip
    return records


def tensor_report(x: Any, formats: Any) -> TensorReport:
    """Report what storing ``x`` in each of ``formats`` does to it.

    Parameters
    ----------
    x : array_like of real numbers, or a dask array
        Block scaling runs along the last axis. A dask array stays lazy until
        this call, which computes it in two passes (amax, then statistics) with
        memory bounded by a few chunks (see the module notes).
    formats : format spec or list of them
        Plain formats (``"float8_e4m3fn"``, ``"bfloat16"``, a dtype...) give rows
        ``none`` and ``per_tensor``, and ``block`` for an MX element format; block
        formats (``"mxfp4"``, ``"nvfp4"``...) give a ``block`` row.

    Returns
    -------
    TensorReport
    """
    parsed, rows = _parse_formats(formats)
    if is_dask(x):
        return _dask_report(x, parsed, rows)
    arr = np.asarray(K._real_array(x))
    if arr.ndim == 0:
        arr = arr.reshape(1)
    amax = _amax(arr)
    total = S.partials(arr, rows, amax, keep_rel=True)
    return _report(total, rows, amax, True, parsed, arr.dtype)


def _amax(chunk: np.ndarray) -> float:
    a = np.abs(np.asarray(chunk))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size else 0.0


def _report(
    total: dict[str, Any],
    rows: list[S.Row],
    amax: float,
    exact: bool,
    parsed: list[Format | BlockFormat],
    dtype: Any,
) -> TensorReport:
    return TensorReport(
        _records(total, rows, amax, exact), total["n"], total["finite"], amax, exact, parsed,
        total["log2_hist"], total["log2_zero"], str(np.dtype(dtype)),
    )  # fmt: skip


def _chunk_partials(chunk: np.ndarray, rows: list[S.Row], amax: float) -> dict[str, Any]:
    return S.partials(chunk, rows, amax)


def _dask_report(x: Any, parsed: list[Format | BlockFormat], rows: list[S.Row]) -> TensorReport:
    dask: Any = importlib.import_module("dask")  # (untyped)

    compute = dask.compute

    check_known_chunks(x, "tensor_report")
    if x.dtype.kind not in "fiu":
        raise TypeError(f"expected a dask array of real numbers, got dtype {x.dtype}")
    if x.ndim == 0:
        x = x.reshape(1)
    last = x.chunks[-1]
    if len(last) > 1 and any(c % 32 for c in last[:-1]):  # blocks must not straddle chunks
        step = max(32, (max(last) // 32) * 32)
        x = x.rechunk({x.ndim - 1: step})
    chunks = x.to_delayed().ravel().tolist()
    amax_parts = [dask.delayed(_amax)(c) for c in chunks]
    (amax,) = compute(_tree(amax_parts, max))
    parts = [dask.delayed(_chunk_partials)(c, rows, amax) for c in chunks]
    (total,) = compute(_tree(parts, S.combine))
    return _report(total, rows, amax, False, parsed, x.dtype)


def _tree(parts: list[Any], func: Any) -> Any:
    """Pairwise reduction of delayed values, so that finished partials are freed."""
    dask: Any = importlib.import_module("dask")  # (untyped)

    combine = dask.delayed(func)
    while len(parts) > 1:
        parts = [combine(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]  # fmt: skip
    return parts[0]
