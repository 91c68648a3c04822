"""The statistics of :func:`fpexplore.tensor_report`, as partials that combine.

One chunk of a tensor gives, for each (format, scaling) row, counts (overflow,
flush to zero, subnormal results), sums of squares for the SNR, the largest
relative error, and a fixed-bin histogram of log2 of the relative errors: 64
bins an octave over ``[2**REL_LOW, 2**REL_HIGH)``. Partials of any number of
chunks add up (:func:`combine`), so a dask array is reported chunk by chunk.

A quantile read from the histogram (:func:`quantile`) is the upper edge of the
bin holding it, capped at the exact maximum: never below the exact quantile
(``method="inverted_cdf"``) and at most one bin (a factor ``2**(1/64)``) above
it, two bins where ``log2`` rounds across a bin edge, hence the documented bound
``2**(1/32)``. Relative errors below ``2**REL_LOW`` share the first bin.

>>> import numpy as np
>>> p = {"rel_hist": np.zeros(N_REL_BINS, np.int64), "zero": 1, "nonfinite": 0}
>>> p["rel_hist"][_rel_bins(np.array([0.25]))] += 1
>>> quantile(p, 0.9, max_rel=0.25)
0.25
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from ..formats import Format
from .blocks import BlockFormat, quantize_blocks
from .scaling import compute_scale

REL_LOW, REL_HIGH, REL_PER_OCTAVE = -128, 8, 64
N_REL_BINS = (REL_HIGH - REL_LOW) * REL_PER_OCTAVE
QUANTILE_BOUND = 2.0 ** (1 / 32)
"""An estimated quantile lies within this factor above the exact one."""
LOG2_LOW, LOG2_HIGH, LOG2_PER_OCTAVE = -160, 160, 4  # the histogram of log2|x| (the figure)
N_LOG2_BINS = (LOG2_HIGH - LOG2_LOW) * LOG2_PER_OCTAVE


def _rel_bins(rel: np.ndarray) -> np.ndarray:
    index = np.floor(np.log2(rel) * REL_PER_OCTAVE) - REL_LOW * REL_PER_OCTAVE
    return np.clip(index, 0, N_REL_BINS - 1).astype(np.intp)


def log2_histogram(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Counts of log2|x| in quarter octaves (nonzero finite x), and the zero count."""
    a = np.abs(x[np.isfinite(x)]).astype(np.float64)
    nonzero = a[a > 0]
    index = np.floor(np.log2(nonzero) * LOG2_PER_OCTAVE) - LOG2_LOW * LOG2_PER_OCTAVE
    index = np.clip(index, 0, N_LOG2_BINS - 1).astype(np.intp)
    return np.bincount(index, minlength=N_LOG2_BINS), int(a.size - nonzero.size)


def _overflowing(y: np.ndarray, fmt: Format | None) -> np.ndarray:
    """Scaled values that round (to nearest even) beyond the largest finite value."""
    if fmt is None:  # MXINT8 elements: k/64, k in -128..127
        return (y * 64.0 >= 127.5) | (y * 64.0 < -128.5)
    top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
    odd = fmt.max_mantissa % 2 == 1  # a tie at ``top`` rounds away from max
    a = np.abs(y)
    return (a >= top) if odd else (a > top)


def _scaled_results(
    x: np.ndarray, row: tuple, amax: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Format | None]:
    """(q, y, stored, element format): the unscaled result, the scaled input, the
    stored (scaled) result of each element."""
    scaling, fmt, block = row[:3]
    if scaling == "none":
        q = K.round_values(x, fmt)
        return q, x, q, fmt
    if scaling == "per_tensor":
        s = compute_scale(amax, fmt)
        y = x.astype(np.float64) * s
        stored = K.round_values(y, fmt, overflow="saturate")
        return stored / s, y, stored, fmt
    q = quantize_blocks(x, block, axis=-1, tensor_amax=amax if block.scale == "e4m3" else None)
    scale = np.repeat(q.scale_values * (q.tensor_scale or 1.0), block.block_size, axis=-1)
    scale = scale[..., : x.shape[-1]]
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(scale > 0, x / scale, 0.0)  # a zero block scale flushes its block
    from .blocks import _element_values

    return q.values, y, _element_values(q.codes, block), block.element_format


def partials(x: np.ndarray, rows: list[tuple], amax: float) -> dict[str, Any]:
    """The combinable statistics of one chunk ``x`` for each row ``(scaling, format,
    block format or None)``; ``amax`` is the whole tensor's (for per-tensor scales)."""
    x = np.asarray(x)
    finite = np.isfinite(x)
    xf = np.where(finite, x, 0).astype(np.float64)
    hist, zeros = log2_histogram(x)
    out: dict[str, Any] = {
        "n": x.size, "finite": int(finite.sum()), "log2_hist": hist, "log2_zero": zeros,
        "rows": [],
    }  # fmt: skip
    nonzero = finite & (x != 0)
    signal = float(np.sum(xf * xf))
    for row in rows:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            q, y, stored, element = _scaled_results(xf, row, amax)
            err = np.abs(q - xf)
            err[~np.isfinite(q)] = np.inf
            rel = err[nonzero] / np.abs(xf[nonzero])
        small = element.smallest_normal if element is not None else 0.0
        stored_abs = np.abs(stored)
        positive = rel[(rel > 0) & np.isfinite(rel)]
        out["rows"].append({
            "overflow": int(np.count_nonzero(_overflowing(y, element) & finite)),
            "flushed_to_zero": int(np.count_nonzero(nonzero & (q == 0))),
            "subnormal": int(np.count_nonzero(finite & (stored_abs > 0) & (stored_abs < small))),
            "nonzero": int(rel.size), "zero": int(np.count_nonzero(rel == 0)),
            "nonfinite": int(np.count_nonzero(~np.isfinite(rel))),
            "rel_hist": np.bincount(_rel_bins(positive), minlength=N_REL_BINS),
            "max_rel": float(rel.max()) if rel.size else 0.0,
            "signal": signal, "noise": float(np.sum(np.where(finite, err, 0.0) ** 2)),
            "rel": rel,
        })  # fmt: skip
    return out


def combine(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two chunks' partials as one (the exact ``rel`` arrays are dropped)."""
    out = {key: a[key] + b[key] for key in ("n", "finite", "log2_hist", "log2_zero")}
    out["rows"] = []
    for ra, rb in zip(a["rows"], b["rows"], strict=True):
        row = {key: ra[key] + rb[key] for key in ra if key not in ("max_rel", "rel")}
        row["max_rel"] = max(ra["max_rel"], rb["max_rel"])
        out["rows"].append(row)
    return out


def strip(p: dict[str, Any]) -> dict[str, Any]:
    """Partials without the exact ``rel`` arrays (what a dask task hands on)."""
    return {**p, "rows": [{k: v for k, v in r.items() if k != "rel"} for r in p["rows"]]}


def quantile(row: dict[str, Any], q: float, max_rel: float) -> float:
    """The q-quantile of the relative errors, from a row's histogram (see the
    module notes for its bound)."""
    n = row["zero"] + int(row["rel_hist"].sum()) + row["nonfinite"]
    if n == 0:
        return float("nan")
    rank = max(1, int(np.ceil(q * n)))
    if rank <= row["zero"]:
        return 0.0
    cumulative = row["zero"] + np.cumsum(row["rel_hist"])
    if rank > cumulative[-1]:
        return float("inf")
    index = int(np.searchsorted(cumulative, rank))
    upper = 2.0 ** ((index + 1) / REL_PER_OCTAVE + REL_LOW)
    return min(upper, max_rel)


def exact_quantile(rel: np.ndarray, q: float) -> float:
    """The exact q-quantile (``inverted_cdf``), inf where non-finite errors reach it."""
    if rel.size == 0:
        return float("nan")
    ordered = np.where(np.isfinite(rel), rel, np.inf)
    return float(np.quantile(ordered, q, method="inverted_cdf"))


__all__ = ["QUANTILE_BOUND", "BlockFormat", "combine", "partials", "quantile", "strip"]
