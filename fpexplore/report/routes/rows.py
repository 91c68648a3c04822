"""One piece of a tensor through every row of a report: the plan, the buffers, the route.

A piece (at most :data:`fpexplore.report.routes.chunks.PIECE` elements, the block
axis last, whole blocks) goes through every row of a :class:`RowPlan` by one of
two routes that give the same numbers:

* the **narrow** route (:mod:`fpexplore.report.routes.narrow`) for inputs whose
  values are all float32s (float32, float16, bfloat16, FP8, integers of at most 16
  bits): magnitudes rounded and errors formed in float32 where that is exact,
  per-tensor rows in float64, relative errors in float64;
* the **wide** route (:mod:`fpexplore.report.routes.wide`) for everything else
  (float64 inputs) and for the rows the narrow route does not cover (NVFP4,
  MXINT8, tabulated formats).

Each row's kind is chosen once, in :func:`make_plan`. The histograms of the
relative errors (and of ``|x|``, for the report's figure) are accumulated in
:class:`fpexplore.report.routes.stats.Bins` kept in the thread's :class:`Work`
and drained into the statistics after each chunk (:meth:`Work.drain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..._kernels.round.magnitudes import Rounder32, nearest_rounder32
from ..._kernels.round.nearest import NearestRounder, NearestScratch, nearest_rounder
from ...formats import Format
from ...scaling.block_formats import BlockFormat
from . import stats as S

__all__ = [
    "ALIGN",
    "Row",
    "RowPlan",
    "Work",
    "make_plan",
    "narrow_dtype",
    "row_align",
    "row_scales",
    "stored_limits",
]

ALIGN = 32
SHORT = 16  # the smallest block of the catalogue's block formats (NVFP4's)
"""Pieces and chunks are cut on multiples of 32 along the block axis (and padded to
them) whichever rows are asked: a row's sums then do not depend on the other rows
(``scalings=("none",)`` gives the numbers of the full report's ``none`` rows)."""


class Row(NamedTuple):
    """A report row: its scaling, (element) format, block format and label."""

    scaling: str
    fmt: Format | None
    block: BlockFormat | None
    label: str
    rule: str = "floor"  # a power-of-two block scale's rule (scaling/tiles.pow2_exponents)


@dataclass(frozen=True)
class RowPlan:
    """A tensor's rows with what each needs: its rounder (None: the general
    kernel), the per-tensor scale, NVFP4's tensor amax, and the route."""

    rows: list[Row]
    rounders: list[NearestRounder | None]
    scales: list[float | None]
    exact_product: bool  # inputs of at most 29 significant bits: x * s is exact
    tensor_amax: float
    align: int  # the block size of the block rows (1: none)
    kinds: list[str]  # per row: "none32", "block32", "mag64", "nvfp4" (narrow route) or "wide"
    rounders32: list[Rounder32 | None]
    narrow: bool  # the narrow route (every value of the input is a float32)
    limits: list[tuple[np.float32, np.float32] | None]  # the narrow route's (H, U) per row
    figure: bool = True  # the |x| histogram of the report's figure

    def padded(self, length: int) -> int:
        """A piece's length along the block axis, padded to whole blocks of every
        block row: ``length`` itself for an axis of at most :data:`SHORT` values
        (no longer than any block row's block, each of which is then the whole
        axis), so short axes cost no more a value than long ones. The same whatever
        rows are asked, so that a row's sums are cut into the same pieces."""
        sizes = [row.block.block_size for row in self.rows if row.block is not None]
        if length <= SHORT and all(isinstance(k, int) and length <= k for k in sizes):
            return length
        return -(-length // self.align) * self.align


def narrow_dtype(dtype: np.dtype) -> bool:
    """Whether every value of ``dtype`` is a float32 (the narrow route's inputs)."""
    if dtype.kind == "f":
        return dtype.itemsize <= 4
    return dtype.kind in "iuV" and dtype.itemsize <= 2


def row_scales(rows: list[Row], amax: float) -> list[float | None]:
    """Each row's per-tensor scale for a tensor of largest magnitude ``amax`` (None
    for rows without one): :func:`make_plan`'s ``scales``, without the rest."""
    return [per_tensor_scale(amax, row.fmt) if row.scaling == "per_tensor" and row.fmt else None
            for row in rows]  # fmt: skip


@lru_cache(maxsize=1024)
def per_tensor_scale(amax: float, fmt: Format) -> float:
    """:func:`fpexplore.scaling.per_tensor.compute_scale`, remembered: each tensor asks
    for it twice (its plan and its records), and an exact quotient costs 0.1 ms."""
    from ...scaling.per_tensor import compute_scale

    return compute_scale(amax, fmt)


def make_plan(
    rows: list[Row], amax: float, dtype: np.dtype, *, figure: bool = True,
    narrow: bool | None = None,
) -> RowPlan:  # fmt: skip
    """The plan of ``rows`` for a tensor of ``dtype`` and largest magnitude ``amax``;
    ``narrow=False`` forces the wide route (the tests compare the two)."""
    dtype = np.dtype(dtype)
    narrow = narrow_dtype(dtype) if narrow is None else narrow and narrow_dtype(dtype)
    rounders, exact, kinds, rounders32, align = _static_plan(tuple(rows), dtype, narrow)
    scales: list[float | None] = []
    limits: list[tuple[np.float32, np.float32] | None] = []
    for row, kind in zip(rows, kinds, strict=True):
        fmt = row.fmt
        scale = per_tensor_scale(amax, fmt) if row.scaling == "per_tensor" and fmt else None
        scales.append(scale)
        limited = kind not in ("wide", "nvfp4") and fmt
        limits.append(stored_limits(fmt, scale or 1.0) if limited and fmt else None)
    return RowPlan(list(rows), list(rounders), scales, exact, amax, align, list(kinds),
                   list(rounders32), narrow, limits, figure)  # fmt: skip


@lru_cache(maxsize=256)
def _static_plan(
    rows: tuple[Row, ...], dtype: np.dtype, narrow: bool
) -> tuple[tuple[NearestRounder | None, ...], bool, tuple[str, ...],
           tuple[Rounder32 | None, ...], int]:  # fmt: skip
    """What a plan takes from its rows and dtype alone (the same for every tensor):
    rounders, whether products are exact, kinds, float32 rounders, alignment."""
    rounders: list[NearestRounder | None] = []
    for row in rows:
        fast = row.fmt is not None and (
            row.block is None or (row.block.scale == "e8m0" and row.rule == "floor")
        )
        saturate = row.scaling != "none"
        rounders.append(nearest_rounder(row.fmt, saturate=saturate) if fast else None)
    small_ints = dtype.kind in "iu" and dtype.itemsize <= 2
    exact = dtype.kind == "V" or (dtype.kind == "f" and dtype.itemsize <= 4) or small_ints
    kinds, rounders32 = [], []
    for row, rounder in zip(rows, rounders, strict=True):
        kind, r32 = _kind(row, rounder) if narrow else ("wide", None)
        kinds.append(kind)
        rounders32.append(r32)
    return tuple(rounders), exact, tuple(kinds), tuple(rounders32), row_align(list(rows))


def row_align(rows: list[Row]) -> int:
    """The alignment of pieces and chunks along the block axis: :data:`ALIGN` and
    every block size of ``rows`` divide it."""
    sizes = [row.block.block_size for row in rows if row.block is not None]
    return math.lcm(ALIGN, *(math.prod(b) if isinstance(b, tuple) else b for b in sizes))


@lru_cache(maxsize=1024)
def stored_limits(fmt: Format, scale: float = 1.0) -> tuple[np.float32, np.float32]:
    """``(H, U)`` such that a float32 ``v >= 0`` times ``scale`` (a float32: the product
    is exact in float64) rounds to nearest even to zero in ``fmt`` iff ``v <= H``,
    and to a subnormal iff ``H < v < U``: the exact products ``v s`` against the
    half of the smallest subnormal (a tie rounds to the even zero) and the midpoint
    below the smallest normal (a tie rounds to the even smallest normal).

    >>> from fpexplore.formats import get_format
    >>> stored_limits(get_format("float8_e4m3fn"))  # 2**-10 and 2**-6 - 2**-10
    (np.float32(0.0009765625), np.float32(0.0146484375))
    """
    half = fmt.smallest_subnormal / 2  # both exact in float64
    top = fmt.smallest_normal - half
    return _largest_at_most(half, scale), _smallest_at_least(top, scale)


def _largest_at_most(limit: float, scale: float) -> np.float32:
    f: np.float32 = np.float32(min(limit / scale, 3.4e38))
    down, up = np.float32(-np.inf), np.float32(np.inf)
    while float(f) * scale > limit:
        f = np.float32(np.nextafter(f, down))
    while float(np.nextafter(f, up)) * scale <= limit:
        f = np.float32(np.nextafter(f, up))
    return f


def _smallest_at_least(limit: float, scale: float) -> np.float32:
    f: np.float32 = np.float32(min(limit / scale, 3.4e38))
    down, up = np.float32(-np.inf), np.float32(np.inf)
    while float(f) * scale < limit:
        f = np.float32(np.nextafter(f, up))
    while f > 0 and float(np.nextafter(f, down)) * scale >= limit:
        f = np.float32(np.nextafter(f, down))
    return f


@lru_cache(maxsize=256)
def _kind(row: Row, rounder: NearestRounder | None) -> tuple[str, Rounder32 | None]:
    if row.block is not None and row.block.scale == "e4m3" and row.block.element_format:
        return "nvfp4", None  # routes/nvfp4, the errors as the narrow rows take them
    if rounder is None or row.fmt is None:
        return "wide", None
    if row.scaling == "per_tensor":
        return "mag64", None
    r32 = nearest_rounder32(row.fmt, saturate=row.scaling != "none")
    if row.scaling == "none":
        return ("none32", r32) if r32 is not None else ("mag64", None)
    # q = t * 2**shared stays exact in float32 for shared >= -127 down to the
    # smallest subnormal: 2**(emin - m - 127) >= 2**-149
    if r32 is not None and row.fmt.emin - row.fmt.mantissa_bits >= -22:
        return "block32", r32
    return "wide", None


class Work:
    """Buffers for pieces of up to ``n`` elements, and the histograms a thread
    accumulates (one :class:`~fpexplore.report.routes.stats.Bins` per row)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.x, self.a, self.den, self.y, self.q, self.err, self.rel, self.mags, self.sden = (
            np.empty(n) for _ in range(9)
        )
        self.index = np.empty(n, np.uint64)
        self.flags, self.zero = np.empty(n, bool), np.empty(n, bool)
        self.nearest = NearestScratch(n)
        self.bins: dict[int, S.Bins] = {}
        self.log2: S.Bins | None = None
        self._f32: tuple[np.ndarray, ...] | None = None
        self._spare: dict[bool, list[S.Bins]] = {}  # drained bins, kept for the next tensor

    def reset(self) -> None:
        """Ready for another tensor: its rows' bins, drained (all zero), kept for reuse
        (a row's bins are a megabyte of counts: zeroing them cost more than small
        tensors' work)."""
        for bins in self.bins.values():
            self._spare.setdefault(bins.zero_bin, []).append(bins)
        self.bins = {}

    def f32(self) -> tuple[np.ndarray, ...]:
        """Ten float32 buffers of ``n`` elements (the narrow route's)."""
        if self._f32 is None:
            self._f32 = tuple(np.empty(self.n, np.float32) for _ in range(10))
        return self._f32

    def row_bins(self, i: int, *, zero_bin: bool = False) -> S.Bins:
        """Row ``i``'s relative-error bins (``zero_bin``: the narrow route's)."""
        if i not in self.bins:
            spare = self._spare.get(zero_bin)
            self.bins[i] = spare.pop() if spare else S.Bins(low=S.LOW_BIN, zero_bin=zero_bin)
        return self.bins[i]

    def log2_bins(self) -> S.Bins:
        """The bins of ``|x|`` (the report's figure)."""
        if self.log2 is None:
            self.log2 = S.Bins(S.LOG2_BITS)
        return self.log2

    def drain(self, stats: S.TensorStats) -> None:
        """Move the histograms accumulated so far into ``stats``."""
        for i, bins in self.bins.items():
            row = stats.rows[i]
            if bins.zero_bin:  # the narrow route counts its exact zeros here
                bins.exact = int(bins.counts[0])
                row.zero += bins.exact
            row.hist = row.hist.add(bins.drain())
        if self.log2 is not None:
            stats.log2_hist = stats.log2_hist.add(self.log2.drain())
