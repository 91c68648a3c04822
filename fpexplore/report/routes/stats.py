"""The statistics of a tensor report, as partials that add up chunk by chunk.

A piece of a tensor gives, for each (format, scaling) row, exact counts, the
largest relative error, sums of squares for the SNR and a histogram of the
relative errors; partials of any number of pieces and chunks combine
(:meth:`RowStats.add`), in any order, to the same counts, maxima and histograms.

**Relative errors** ``|q - x| / |x|`` over the nonzero finite inputs, computed in
float64 (per-tensor rows: ``|stored - x s| / |x s|``, the same real number). For
inputs whose values are all float32s, ``|q - x|`` is formed in float32, where it
is exact, and divided in float64: the same float64
(:mod:`fpexplore.report.routes.narrow`), whose bin is then the exact quotient's.

**Quantiles** come from a histogram of those float64 values with 64 bins a
binade, read straight off the bits (exponent and top 6 significand bits; counted
with ``np.add.at`` into :class:`Bins` a thread keeps for a chunk), over
``[2**-64, inf)``: every finite relative error above ``2**-64`` is binned exactly
(no rounding into a format of at most 64 bits gives a nonzero relative error
below that). Exact zeros, and results that became inf or NaN, have counts of
their own and rank first and last (NaN as inf). The reported q-quantile
(:func:`quantile`, numpy's ``method="inverted_cdf"``) is the upper edge of the
bin that holds it, capped at the exact maximum: **never below the exact quantile
and at most a factor** ``QUANTILE_BOUND = 1 + 2**-6`` **above it**, for every
input (an exact zero or inf is reported exactly).

**SNR** ``10 log10(sum x**2 / sum (x - q)**2)`` from sums kept with a power-of-two
exponent of their own (:class:`ScaledSum`), so neither sum underflows nor
overflows: a tensor whose every value flushes to zero has SNR 0 dB. Sums over
pieces are added with ``math.fsum``, so the result does not depend on the order
in which pieces finish.

>>> h = Hist.of(np.array([0.25, 0.25, 0.3]))
>>> stats = RowStats(hist=h, max_rel=0.3)
>>> quantile(stats, 0.5), quantile(stats, 1.0)
(0.25390625, 0.3)
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import numpy as np

__all__ = ["QUANTILE_BOUND", "Bins", "Hist", "RowStats", "ScaledSum", "TensorStats", "quantile",
           "quantiles"]  # fmt: skip

REL_BITS = 6  # 2**REL_BITS bins a binade
_SHIFT = np.uint64(52 - REL_BITS)
LOW_BIN = (1023 - 64) << REL_BITS  # the bin of 2**-64: smaller values share it
_LOW_EDGE = 2.0**-64
QUANTILE_BOUND = 1 + 2.0**-REL_BITS
"""A quantile read from the histogram lies within this factor above the exact one."""
_BITS, _DOUBLE = struct.Struct("<Q"), struct.Struct("<d")
LOG2_BITS = 2  # the |x| histogram of the figure: quarter binades
N_LOG2_BINS = 2047 << LOG2_BITS  # every finite float64, by exponent and 2 top bits


def bin_edge(index: int, bits: int = REL_BITS) -> float:
    """The lower edge of histogram bin ``index`` (``index + 1``: its upper edge)."""
    edge: float = _DOUBLE.unpack(_BITS.pack(index << (52 - bits)))[0]
    return edge


def float_bits(value: float) -> int:
    """The bits of a non-negative float64 as an int (``np.float64(value).view(np.uint64)``)."""
    bits: int = _BITS.unpack(_DOUBLE.pack(value))[0]
    return bits


@dataclass
class Hist:
    """Counts of bins ``offset, offset + 1, ...`` (a window of the full range)."""

    offset: int = 0
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def of(cls, rel: np.ndarray, index: np.ndarray | None = None) -> Hist:
        """The histogram of finite non-negative float64 ``rel`` (zeros included: the
        caller takes them out of :data:`LOW_BIN`), which this raises to at least
        ``2**-64`` in place. ``index``: a uint64 work array."""
        if index is None:
            index = np.empty(rel.size, np.uint64)
        np.maximum(rel, _LOW_EDGE, out=rel)  # (the caller is done with rel's small values)
        np.right_shift(rel.view(np.uint64), _SHIFT, out=index)
        signed = index.view(np.int64)
        if not signed.size:
            return cls()
        low = int(signed.min())
        np.subtract(signed, low, out=signed)
        return cls(low, np.bincount(signed))

    def add(self, other: Hist) -> Hist:
        if not other.counts.size:
            return self
        if not self.counts.size:
            return Hist(other.offset, other.counts.copy())
        low = min(self.offset, other.offset)
        high = max(self.offset + self.counts.size, other.offset + other.counts.size)
        out = np.zeros(high - low, np.int64)
        out[self.offset - low : self.offset - low + self.counts.size] += self.counts
        out[other.offset - low : other.offset - low + other.counts.size] += other.counts
        return Hist(low, out)

    def take_from_low(self, n: int) -> None:
        """Remove ``n`` counts from the lowest bin (the exact zeros put there)."""
        if n:
            self.counts[LOW_BIN - self.offset] -= n

    def total(self) -> int:
        return int(self.counts.sum())


class Bins:
    """Histogram counts accumulated piece after piece, drained into a :class:`Hist`.

    Indexed by a non-negative float64's bits shifted right by ``52 - bits``
    (every finite value has its bin; ``bits=REL_BITS``: 2**17 bins, 1 MiB), filled
    with ``np.add.at`` (several times faster than ``np.bincount``, which scans
    and converts its input first) into one array kept for the whole chunk. Bins
    ``1 .. low - 1`` are never used (relative errors: ``low = LOW_BIN``, smaller
    values are raised to ``2**-64`` or are exact zeros in bin 0), so a drain reads
    bin 0 and bins ``low`` to the largest one filled. ``exact`` counts the values
    to take out of bin ``low`` at the end (bin 0 is folded into it first: the exact
    zeros, or the zero inputs of the ``|x|`` histogram, ``low = 0``); with
    ``zero_bin``, bin 0 holds the exact zeros and nothing else, which
    :meth:`fpexplore.report.routes.rows.Work.drain` reads.

    >>> b = Bins(low=LOW_BIN)
    >>> rel = np.array([0.25, 0.25, 0.3, 0.0])
    >>> b.add(np.maximum(rel, 2.0**-64).view(np.int64) >> (52 - REL_BITS), 0.3)
    >>> b.exact = 1
    >>> h = b.drain()
    >>> bool(np.array_equal(h.counts, Hist.of(rel[:3]).counts)), h.offset == Hist.of(rel[:3]).offset
    (True, True)
    """

    def __init__(self, bits: int = REL_BITS, *, low: int = 0, zero_bin: bool = False) -> None:
        self.bits, self.low, self.zero_bin = bits, low, zero_bin
        self.counts = np.zeros(2047 << bits, np.int64)
        self.exact = 0
        self.high = -1  # the largest bin filled so far

    def add(self, index: np.ndarray, top: float) -> None:
        """Count one value in each bin of ``index`` (an int64 array); ``top`` is the
        largest of the values (finite)."""
        np.add.at(self.counts, index, 1)
        self.high = max(self.high, float_bits(top) >> (52 - self.bits))

    def drain(self) -> Hist:
        """The counts so far as a :class:`Hist` (bin 0 folded into bin ``low``, less
        ``exact``), and start again."""
        counts, low = self.counts, self.low
        zero, counts[0] = int(counts[0]), 0
        counts[low] += zero - self.exact
        window = counts[low : max(self.high, low) + 1]
        self.exact, self.high = 0, -1
        used = window != 0  # (argmax finds the first; the largest value's bin is the last)
        first = int(used.argmax())
        if not used[first]:
            return Hist()
        last = window.size if used[-1] else int(np.flatnonzero(used)[-1]) + 1
        hist = Hist(low + first, window[first:last].copy())
        window[first:last] = 0  # (the rest of the window is 0 already)
        return hist


@dataclass
class ScaledSum:
    """A sum of squares kept as ``fsum(parts) * 2**(2 * exponent)`` per part."""

    parts: list[tuple[float, int]] = field(default_factory=list)

    @staticmethod
    def of(values: np.ndarray, top: float, work: np.ndarray) -> tuple[float, int]:
        """``sum(values**2)`` as ``(s, k)`` with the values scaled by ``2**-k``
        (``k`` from ``top``, their largest magnitude) where squares could leave
        float64's range."""
        if top == 0 or not math.isfinite(top):
            return (0.0 if top == 0 else math.inf), 0
        k = math.frexp(top)[1]
        if -400 < k < 400:
            return float(np.einsum("i,i->", values, values)), 0
        np.multiply(values, math.ldexp(1.0, -k // 2), out=work)  # 2**-k in two exact steps
        np.multiply(work, math.ldexp(1.0, -k - (-k // 2)), out=work)  # (2**1026 overflows)
        return float(np.einsum("i,i->", work, work)), k

    def add(self, other: ScaledSum) -> ScaledSum:
        return ScaledSum(self.parts + other.parts)

    def log2(self) -> float:
        """log2 of the sum (-inf for 0, inf for inf)."""
        finite = []
        top = None
        for s, k in self.parts:
            if s > 0:
                if s == math.inf:
                    return math.inf
                finite.append((s, k))
                top = k if top is None or k > top else top
        if top is None:
            return -math.inf
        total = math.fsum(math.ldexp(s, 2 * (k - top)) for s, k in finite)
        return math.log2(total) + 2 * top


@dataclass
class RowStats:
    """One (format, scaling) row's partial statistics."""

    overflow: int = 0  # rounded beyond the format's range without scaling
    clipped: int = 0  # set to the element format's largest value by a scaling rule
    flushed_to_zero: int = 0
    subnormal: int = 0
    zero: int = 0  # exact results (relative error 0)
    became_inf: int = 0
    became_nan: int = 0
    overflow_from: float = math.inf  # smallest |x| whose result became inf or NaN
    hist: Hist = field(default_factory=Hist)
    max_rel: float = 0.0
    noise: ScaledSum = field(default_factory=ScaledSum)

    def add(self, o: RowStats) -> RowStats:
        return RowStats(
            self.overflow + o.overflow, self.clipped + o.clipped,
            self.flushed_to_zero + o.flushed_to_zero, self.subnormal + o.subnormal,
            self.zero + o.zero, self.became_inf + o.became_inf, self.became_nan + o.became_nan,
            min(self.overflow_from, o.overflow_from), self.hist.add(o.hist),
            max(self.max_rel, o.max_rel), self.noise.add(o.noise),
        )  # fmt: skip

    @property
    def nonfinite(self) -> int:
        return self.became_inf + self.became_nan

    def clear_nonfinite(self, rel: np.ndarray, err: np.ndarray, magnitudes: np.ndarray) -> int:
        """Count the values whose result became inf or NaN (their relative error
        ``rel`` is not finite), note the smallest of their input ``magnitudes``, and
        set their ``rel`` and ``err`` to 0 so the histogram and the noise leave them
        out: they are counted apart. Returns how many there were."""
        inf, nan = np.isinf(rel), np.isnan(rel)
        self.became_inf, self.became_nan = int(np.count_nonzero(inf)), int(np.count_nonzero(nan))
        bad = inf | nan
        self.overflow_from = float(magnitudes[bad].min())
        rel[bad] = 0.0
        err[bad] = 0.0
        return self.nonfinite


@dataclass
class TensorStats:
    """A tensor's partial statistics: its counts, |x| histogram and rows."""

    rows: list[RowStats]
    n: int = 0
    finite: int = 0
    nonzero: int = 0
    amax: float = 0.0
    log2_hist: Hist = field(default_factory=Hist)
    signal: ScaledSum = field(default_factory=ScaledSum)

    def add(self, o: TensorStats) -> TensorStats:
        return TensorStats(
            [a.add(b) for a, b in zip(self.rows, o.rows, strict=True)], self.n + o.n,
            self.finite + o.finite, self.nonzero + o.nonzero, max(self.amax, o.amax),
            self.log2_hist.add(o.log2_hist), self.signal.add(o.signal),
        )  # fmt: skip


def quantile(row: RowStats, q: float) -> float:
    """The q-quantile (``inverted_cdf``) of a row's relative errors, from its
    histogram (see the module notes for the bound)."""
    return quantiles(row, (q,))[0]


def quantiles(row: RowStats, qs: tuple[float, ...]) -> list[float]:
    """:func:`quantile` at each of ``qs``, the histogram summed once."""
    counts = row.hist.counts
    cumulative = counts.cumsum() if counts.size else counts
    counted = int(cumulative[-1]) if cumulative.size else 0
    n = row.zero + counted + row.nonfinite
    out: list[float] = []
    inside: list[tuple[int, int]] = []  # (place in out, rank among the binned values)
    for q in qs:
        rank = max(1, math.ceil(q * n))
        if n == 0 or rank <= row.zero or rank > row.zero + counted:
            out.append(math.nan if n == 0 else 0.0 if rank <= row.zero else math.inf)
            continue
        inside.append((len(out), rank - row.zero))
        out.append(math.nan)
    if inside:  # the bins holding those ranks, found at once
        found = cumulative.searchsorted([rank for _, rank in inside]).tolist()
        for (place, _), index in zip(inside, found, strict=True):
            out[place] = min(bin_edge(index + row.hist.offset + 1), row.max_rel)
    return out


def snr_db(signal: ScaledSum, noise: ScaledSum, scale: float | None = None) -> float:
    """``10 log10(signal / noise)``; ``noise`` summed in a domain scaled by ``scale``
    (per-tensor rows) is divided by ``scale**2`` first. inf for no noise, -inf for
    an infinite noise."""
    return snr_of_log2(signal.log2(), noise, scale)


def snr_of_log2(top: float, noise: ScaledSum, scale: float | None = None) -> float:
    """:func:`snr_db` from the signal's ``log2`` (a tensor's rows share it)."""
    bottom = noise.log2()
    if bottom == -math.inf:
        return math.inf
    if bottom == math.inf:
        return -math.inf
    if top == -math.inf:
        return -math.inf
    if scale is not None:
        bottom -= 2 * math.log2(scale)
    return 10 * math.log10(2) * (top - bottom)
