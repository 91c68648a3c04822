"""The statistics of :func:`fpexplore.tensor_report`, as partials that combine.

One chunk of a tensor gives, for each (format, scaling) row, counts (overflow,
flush to zero, subnormal results), sums of squares for the SNR, the largest
relative error, and a fixed-bin histogram of the relative errors: 64 bins an
octave over ``[2**REL_LOW, 2**REL_HIGH)``, read straight off the float64 bits (the
exponent and the top 6 significand bits), so the binning is exact. Partials of
any number of chunks add up (:func:`combine`), so a dask array is reported chunk
by chunk; a chunk is itself worked through in cache-sized pieces.

A quantile read from the histogram (:func:`quantile`) is the upper edge of the
bin holding it, capped at the exact maximum: never below the exact quantile
(``method="inverted_cdf"``) and at most a factor ``QUANTILE_BOUND = 1 + 2**-6``
above it (a bin spans ``[2**e (1 + j/64), 2**e (1 + (j+1)/64))``). Relative errors
below ``2**REL_LOW`` share the first bin, and are reported as at most its top.

>>> import numpy as np
>>> p = {"rel_hist": np.zeros(N_REL_BINS, np.int64), "zero": 1, "nonfinite": 0}
>>> p["rel_hist"] += _rel_hist(np.array([0.25]), np.array([True]))
>>> quantile(p, 0.9, max_rel=0.25)
0.25
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from .._kernels.scaled import round_scaled
from ..formats import Format
from .block_formats import _element_values
from .blocks import BlockFormat, quantize_blocks
from .scaling import compute_scale

REL_LOW, REL_HIGH, REL_BITS = -128, 8, 6  # 2**REL_BITS bins an octave
N_REL_BINS = (REL_HIGH - REL_LOW) << REL_BITS
_REL_BASE = (1023 + REL_LOW) << REL_BITS
QUANTILE_BOUND = 1 + 2.0**-REL_BITS
"""An estimated quantile lies within this factor above the exact one."""
LOG2_LOW, LOG2_HIGH, LOG2_BITS = -160, 160, 2  # the histogram of |x| (the figure): 1/4 octaves
N_LOG2_BINS = (LOG2_HIGH - LOG2_LOW) << LOG2_BITS
_LOG2_BASE = (1023 + LOG2_LOW) << LOG2_BITS
PIECE = 1 << 16  # elements worked on at a time
Row = tuple[str, Any, Any, str]
"""A report row: (scaling, format or None, block format or None, label)."""


def _binned(a: np.ndarray, valid: np.ndarray, bits: int, base: int, n: int) -> np.ndarray:
    """Counts of non-negative float64 ``a`` (where ``valid``) in bins of ``2**-bits``
    of an octave, linear in the significand: bin ``(float64 bits >> (52 - bits)) -
    base``, clipped to ``0..n-1``."""
    index = (a.reshape(-1).view(np.uint64) >> np.uint64(52 - bits)).astype(np.int64)
    index -= base
    np.clip(index, 0, n - 1, out=index)
    index[~valid.reshape(-1)] = n  # left out
    return np.bincount(index, minlength=n + 1)[:n]


def _rel_hist(rel: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return _binned(rel, valid, REL_BITS, _REL_BASE, N_REL_BINS)


def bin_edge(index: int, bits: int = REL_BITS, base: int = _REL_BASE) -> float:
    """The lower edge of histogram bin ``index`` (``index + 1``: its upper edge)."""
    return float(np.uint64((index + base) << (52 - bits)).view(np.float64))


def log2_edges() -> np.ndarray:
    """log2 of the edges of the |x| histogram's bins."""
    return np.log2([bin_edge(i, LOG2_BITS, _LOG2_BASE) for i in range(N_LOG2_BINS + 1)])


def _overflowing(y: np.ndarray, fmt: Format | None) -> np.ndarray:
    """Scaled values that round (to nearest even) beyond the largest finite value."""
    if fmt is None:  # MXINT8 elements: k/64, k in -128..127
        return np.asarray((y * 64.0 >= 127.5) | (y * 64.0 < -128.5))
    top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
    odd = fmt.max_mantissa % 2 == 1  # a tie at ``top`` rounds away from max
    a = np.abs(y)
    return np.asarray((a >= top) if odd else (a > top))


def _scaled_results(
    x: np.ndarray, row: Row, amax: float
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
        stored = round_scaled(x, s, fmt, "nearest_even", overflow="saturate")  # rounded once
        return stored / s, y, stored, fmt
    blocks = quantize_blocks(x, block, axis=-1, tensor_amax=amax if block.scale == "e4m3" else None)
    factor = blocks.scale_values * (blocks.tensor_scale or 1.0)
    scale = np.repeat(factor, block.block_size, axis=-1)[..., : x.shape[-1]]
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(scale > 0, x / scale, 0.0)  # a zero block scale flushes its block
    return blocks.values, y, _element_values(blocks.codes, block), block.element_format


def _pieces(x: np.ndarray) -> list[np.ndarray]:
    """Cache-sized pieces of ``x``: whole rows of its last axis (blocks stay whole)."""
    if x.ndim == 1:
        return [x[i : i + PIECE] for i in range(0, x.size, PIECE)]
    rows = x.reshape(-1, x.shape[-1])
    step = max(1, PIECE // max(1, x.shape[-1]))
    return [rows[i : i + step] for i in range(0, rows.shape[0], step)]


def partials(
    x: np.ndarray, rows: list[Row], amax: float, *, keep_rel: bool = False
) -> dict[str, Any]:
    """The combinable statistics of one chunk ``x`` for each row ``(scaling, format,
    block format or None, ...)``; ``amax`` is the whole tensor's (for per-tensor
    scales). ``keep_rel`` also keeps each row's relative errors (for exact quantiles)."""
    x = np.asarray(x)
    total: dict[str, Any] | None = None
    for piece in _pieces(x):
        part = _piece_partials(piece, rows, amax, keep_rel)
        total = part if total is None else combine(total, part, keep_rel=keep_rel)
    if total is None:
        total = _piece_partials(x.reshape(-1)[:0], rows, amax, keep_rel)
    return total


def _piece_partials(x: np.ndarray, rows: list[Row], amax: float, keep_rel: bool) -> dict[str, Any]:
    x64 = x.astype(np.float64)
    finite = np.isfinite(x64)
    all_finite = bool(finite.all())
    if not all_finite:
        x64[~finite] = 0.0  # left out of every statistic below
    a = np.abs(x64)
    valid = a > 0  # nonzero and finite
    out: dict[str, Any] = {
        "n": x.size, "finite": int(np.count_nonzero(finite)),
        "log2_hist": _binned(a, valid, LOG2_BITS, _LOG2_BASE, N_LOG2_BINS),
        "log2_zero": int(np.count_nonzero(finite) - np.count_nonzero(valid)), "rows": [],
    }  # fmt: skip
    flat = a.reshape(-1)
    signal = float(np.sum(np.square(flat)))  # (np.dot would start BLAS threads)
    for row in rows:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            q, y, stored, element = _scaled_results(x64, row, amax)
            err = np.abs(q - x64)
            if not np.isfinite(q).all():
                err[~np.isfinite(q)] = np.inf
            rel = err / a
        small = element.smallest_normal if element is not None else 0.0
        stored_abs = np.abs(stored)
        finite_rel = np.isfinite(rel)
        zero = int(np.count_nonzero(valid & (rel == 0)))
        nonfinite = int(np.count_nonzero(valid & ~finite_rel))
        hist = _rel_hist(np.where(finite_rel, rel, 0.0), valid)
        hist[0] -= zero  # exact zeros have a count of their own
        err_flat = err.reshape(-1)
        out["rows"].append({
            "overflow": int(np.count_nonzero(_overflowing(y, element))),
            "flushed_to_zero": int(np.count_nonzero(valid & (q == 0))),
            "subnormal": int(np.count_nonzero((stored_abs > 0) & (stored_abs < small))),
            "nonzero": int(np.count_nonzero(valid)), "zero": zero, "nonfinite": nonfinite,
            "rel_hist": hist, "max_rel": float(np.max(rel, where=valid, initial=0.0)),
            "signal": signal, "noise": float(np.sum(np.square(err_flat))),
            "rel": [rel[valid]] if keep_rel else None,
        })  # fmt: skip
    return out


def combine(a: dict[str, Any], b: dict[str, Any], *, keep_rel: bool = False) -> dict[str, Any]:
    """Two chunks' partials as one (the exact ``rel`` arrays joined if ``keep_rel``)."""
    out = {key: a[key] + b[key] for key in ("n", "finite", "log2_hist", "log2_zero")}
    out["rows"] = []
    for ra, rb in zip(a["rows"], b["rows"], strict=True):
        row = {key: ra[key] + rb[key] for key in ra if key not in ("max_rel", "rel")}
        row["max_rel"] = max(ra["max_rel"], rb["max_rel"])
        row["rel"] = ra["rel"] + rb["rel"] if keep_rel else None  # lists, joined once
        out["rows"].append(row)
    return out


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
    if index == N_REL_BINS - 1:  # the last bin is open above: its values are <= max
        return max_rel
    return min(bin_edge(index + 1), max_rel)


def exact_quantiles(rel: list[np.ndarray], qs: tuple[float, ...]) -> list[float]:
    """The exact quantiles (``inverted_cdf``) of the relative errors kept in pieces."""
    joined = np.concatenate(rel) if rel else np.empty(0)
    if joined.size == 0:
        return [float("nan")] * len(qs)
    joined[np.isnan(joined)] = np.inf
    return [float(v) for v in np.quantile(joined, qs, method="inverted_cdf")]


__all__ = ["QUANTILE_BOUND", "BlockFormat", "combine", "log2_edges", "partials", "quantile"]
