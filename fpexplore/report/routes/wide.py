"""The wide route of a tensor report: every row in float64, for any real input.

A piece is copied once into a float64 work buffer (the tensor's own dtype is
read there: float32, bfloat16, FP8 and integers below 2**53 exactly), its
non-finite values set aside, and each row computes

* ``none``: ``q = round(x)``;
* ``per_tensor``: ``stored = round(x s)`` saturating, ``s`` the float32 scale, with
  ``x s`` formed exactly (for float64 inputs the rounding of the product is
  corrected where it lands on a tie, so ``stored`` is rounded once from the exact
  product); its errors are measured in the scaled domain;
* ``block``: MX element formats: ``X = 2**(floor(log2(amax)) - emax_elem)`` per
  block (OCP's floor rule), ``stored = round(x / X)`` saturating, ``q = stored X``
  (exact); other block formats (NVFP4, MXINT8) and other scale rules (``rceil``,
  ``ceil``, ``even``) through :func:`fpexplore.quantize_blocks`.

Nearest-even rounding of IEEE-like formats goes through
:mod:`fpexplore._kernels.round.nearest` (float64 addition), other formats
through :func:`fpexplore.codes.round_values`; both are bit for bit the same
rounding (tested), so a row's numbers do not depend on the route. The relative
errors ``|q - x| / |x|`` are binned into the row's
:class:`fpexplore.report.routes.stats.Bins` (values below ``2**-64`` share the
lowest bin when drained). Inputs whose values are all float32s take the narrow
route (:mod:`fpexplore.report.routes.narrow`), which calls :func:`row_stats`
here for the rows it does not cover.
"""

from __future__ import annotations

import math

import numpy as np

from ... import codes as K
from ..._kernels.round.nearest import (
    NearestRounder,
    NearestScratch,
    round_nearest,
    rounded_magnitudes,
)
from ..._kernels.scaled import round_scaled
from ...formats import Format
from ...scaling.block_formats import element_values_of
from ...scaling.blocks import quantize_blocks
from . import stats as S
from .blocks import block_max, spread
from .nvfp4 import nvfp4_magnitudes
from .rows import Row, RowPlan, Work

__all__ = ["row_stats", "wide_piece_stats"]

_REL_SHIFT = np.uint64(52 - S.REL_BITS)
_LOW_EDGE = 2.0**-64
_LOG2_SHIFT = np.uint64(52 - S.LOG2_BITS)


def _overflowing(y: np.ndarray, fmt: Format | None) -> np.ndarray:
    """Scaled values that round (to nearest even) beyond the largest finite value."""
    if fmt is None:  # MXINT8 elements: k/64, k in -128..127
        return np.asarray((y * 64.0 >= 127.5) | (y * 64.0 < -128.5))
    top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
    odd = fmt.max_mantissa % 2 == 1  # a tie at ``top`` rounds away from max
    a = np.abs(y)
    return np.asarray((a >= top) if odd else (a > top))


def finite_magnitudes(x: np.ndarray, a: np.ndarray) -> tuple[float, int]:
    """Write ``|x|`` into ``a`` and set every inf and NaN of ``x`` (and ``a``) to 0:
    the largest finite magnitude (0.0 for an empty ``x``) and how many were cleared."""
    np.abs(x, out=a)
    return finite_amax(a, x)


def finite_amax(a: np.ndarray, *alike: np.ndarray) -> tuple[float, int]:
    """The largest finite value of the magnitudes ``a`` (0.0 for none), every inf and
    NaN of ``a``, and the same places of each array of ``alike``, set to 0; and how
    many were."""
    amax = float(a.max()) if a.size else 0.0
    if math.isfinite(amax):
        return amax, 0
    nonfinite = ~np.isfinite(a)
    for other in alike:
        other[nonfinite] = 0.0
    a[nonfinite] = 0.0
    return float(a.max()), int(np.count_nonzero(nonfinite))


def wide_piece_stats(piece: np.ndarray, plan: RowPlan, w: Work) -> S.TensorStats:
    """The statistics of one piece (block axis last) for every row of ``plan``."""
    lead, length = piece.shape[:-1], piece.shape[-1]
    padded = plan.padded(length)
    rows = math.prod(lead)
    m = rows * padded
    if m > w.n:
        raise ValueError(f"a piece of {m} elements exceeds the work buffers ({w.n})")
    x2 = w.x[:m].reshape(rows, padded)
    if padded > length:
        x2[:, length:] = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(x2.reshape(*lead, padded)[..., :length], piece, casting="unsafe")
    x, a = w.x[:m], w.a[:m]
    amax, bad = finite_magnitudes(x, a)
    context = wide_context(x, a, rows, padded, w)
    zeros = context[3]
    if plan.figure:
        log2 = w.log2_bins()
        index = w.index[:m]
        np.right_shift(a.view(np.uint64), _LOG2_SHIFT, out=index)
        log2.add(index.view(np.int64), amax)
        log2.exact += zeros
    n = rows * length
    out = S.TensorStats([], n, n - bad, m - zeros, amax)
    out.signal.parts.append(S.ScaledSum.of(x, amax, w.y[:m]))
    for i, (row, rounder, scale) in enumerate(zip(plan.rows, plan.rounders, plan.scales,
                                                  strict=True)):  # fmt: skip
        out.rows.append(row_stats(i, row, rounder, scale, plan, context, w))
    return out


Context = tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int]


def wide_context(x: np.ndarray, a: np.ndarray, rows: int, padded: int, w: Work) -> Context:
    """What the rows of a piece share: float64 ``x`` and ``a = |x|`` (finite, in
    ``w.x`` and ``w.a``), the denominators (``a``, a zero input's 1), the number
    of zeros (their flags in ``w.zero``), the piece's rows and padded length."""
    m = x.size
    flags = w.flags[:m]
    zeros = int(np.count_nonzero(np.equal(a, 0.0, out=flags)))
    den = a
    if zeros:
        den = w.den[:m]
        np.add(a, flags, out=den)  # a zero input divides by 1: its error is 0
        np.copyto(w.zero[:m], flags)
    return x, a, den, zeros, rows, padded


def row_stats(
    i: int, row: Row, rounder: NearestRounder | None, scale: float | None, plan: RowPlan,
    context: Context, w: Work,
) -> S.RowStats:  # fmt: skip
    """Row ``i``'s statistics of a piece, by the wide route."""
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN results are counted
        return _row_stats(row, rounder, scale, plan, context, w, w.row_bins(i))


def _row_stats(
    row: Row, rounder: NearestRounder | None, scale: float | None, plan: RowPlan,
    context: Context, w: Work, bins: S.Bins,
) -> S.RowStats:  # fmt: skip
    x, a, den, zeros, rows, padded = context
    m = x.size
    q, err = w.q[:m], w.err[:m]
    stats = S.RowStats()
    if row.scaling == "none":
        ref = x
        if rounder is not None:
            stats.overflow = round_nearest(x, rounder, q, w.nearest)
            mags = rounded_magnitudes(w.nearest, m)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                assert row.fmt is not None
                q[...] = K.round_values(x, row.fmt)
            stats.overflow = int(np.count_nonzero(_overflowing(x, row.fmt)))
            mags = np.abs(q)
        small = row.fmt.smallest_normal if row.fmt is not None else 0.0
    elif row.scaling == "per_tensor":
        assert scale is not None and row.fmt is not None
        ref = w.y[:m]
        np.multiply(x, scale, out=ref)  # (may overflow: a float32 scale rounded up)
        if rounder is not None:
            stats.clipped = round_nearest(ref, rounder, q, w.nearest)
            if not plan.exact_product:
                _correct_ties(x, scale, ref, rounder, q, w)
        else:  # the general route: x * s rounded once (fl(x * s) only where it is exact)
            if plan.exact_product:
                q[...] = K.round_values(ref, row.fmt, overflow="saturate")
            else:
                q[...] = round_scaled(x, scale, row.fmt, "nearest_even", overflow="saturate")
            stats.clipped = int(np.count_nonzero(_overflowing(ref, row.fmt)))
        mags = np.abs(q, out=w.mags[:m])
        den = np.multiply(den, scale, out=w.sden[:m])
        small = row.fmt.smallest_normal
    else:
        assert row.block is not None
        ref = x
        mags, small, stats.clipped = _block_row(row, rounder, plan, x, a, rows, padded, q, w)
    if zeros:  # zeros (and padding) are left out, also where a format has no zero (E8M0)
        zero = w.zero[:m]
        q[zero] = 0.0
        mags[zero] = 0.0
    np.subtract(q, ref, out=err)
    _common(stats, err, den, mags, small, a, zeros, w, bins)
    if row.scaling != "none":
        stats.overflow += stats.nonfinite
    return stats


def _block_row(
    row: Row, rounder: NearestRounder | None, plan: RowPlan, x: np.ndarray, a: np.ndarray,
    rows: int, padded: int, q: np.ndarray, w: Work,
) -> tuple[np.ndarray, float, int]:  # fmt: skip
    """q: the block-scaled values; returns (stored magnitudes, smallest normal of the
    element format, clipped count)."""
    block = row.block
    assert block is not None
    k = block.block_size
    assert isinstance(k, int)  # 2-D rows arrive as their 1-D twins (routes/tiles)
    k = min(k, padded)  # an axis shorter than a block: a block a row
    element = block.element_format
    if block.scale == "e4m3" and plan.exact_product and element is not None:
        t, magnitudes, clipped = nvfp4_magnitudes(a, k, block, plan.tensor_amax, w)
        np.copysign(magnitudes, x, out=q)  # 24-bit inputs: routes/nvfp4, the same numbers
        return t, element.smallest_normal, clipped
    if rounder is None:  # NVFP4, MXINT8: the general route
        tensor_amax = plan.tensor_amax if block.scale == "e4m3" else None
        rule = row.rule if block.scale in ("e8m0", "float32_pow2") else None
        blocks = quantize_blocks(x.reshape(rows, padded), block, tensor_amax=tensor_amax,
                                 scale_rule=rule)  # fmt: skip
        q[...] = blocks.values.reshape(-1)
        factor = blocks.scale_values * (blocks.tensor_scale or 1.0)
        scale = np.repeat(factor, block.block_size, axis=-1)[:, :padded].reshape(-1)
        y = w.y[: x.size]
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(x, scale, out=y, where=scale > 0)
        y[scale == 0] = 0.0
        clipped = int(np.count_nonzero(_overflowing(y, element)))
        stored = element_values_of(blocks.codes, block).reshape(-1)
        small = element.smallest_normal if element is not None else 0.0
        return np.abs(stored), small, clipped
    assert element is not None
    amax = block_max(a.view(np.uint64), k).view(np.float64)  # (bits order as a's values)
    exponent = np.frexp(amax)[1].astype(np.int64) - 1  # floor(log2(amax))
    shared = np.where(amax > 0, exponent - block.emax_elem, -127)
    if shared.size and shared.max() > 127:
        big = float(amax[shared > 127].max())
        raise ValueError(
            f"a block's amax {big!r} needs the shared scale 2**{int(shared.max())}, beyond "
            f"E8M0's largest 2**127; {block.name} cannot hold it"
        )
    np.maximum(shared, -127, out=shared)
    y, factor = w.y[: x.size], w.sden[: x.size]
    np.multiply(x, spread(np.ldexp(1.0, -shared), k, factor), out=y)
    clipped = round_nearest(y, rounder, q, w.nearest)
    np.multiply(q, spread(np.ldexp(1.0, shared), k, factor), out=q)
    return rounded_magnitudes(w.nearest, x.size), element.smallest_normal, clipped


def _correct_ties(
    x: np.ndarray, scale: float, y: np.ndarray, r: NearestRounder, q: np.ndarray, w: Work
) -> None:
    """Round again, from the exact product, the values whose float64 product
    ``y = fl(x s)`` landed exactly on a tie of the format while ``x s`` did not."""
    mags = np.abs(q)
    gap = np.abs(mags - np.abs(y))
    magic = w.nearest.magic[: y.size].view(np.float64)  # the C of each value
    tie = gap == magic * 2.0**-53
    if not tie.any():
        return
    index = np.flatnonzero(tie)
    xs = x[index]
    split = xs * 134217729.0  # Veltkamp: xs = high + low, each times s exact
    high = split - (split - xs)
    low = xs - high
    product = y[index]
    residual = (high * scale - product) + low * scale  # x s - fl(x s), exactly
    moved = np.where(residual > 0, np.nextafter(product, np.inf), product)
    moved = np.where(residual < 0, np.nextafter(product, -np.inf), moved)
    fixed = np.empty_like(moved)
    round_nearest(moved, r, fixed, NearestScratch(moved.size))
    q[index] = fixed


def _common(
    stats: S.RowStats, err: np.ndarray, den: np.ndarray, mags: np.ndarray, small: float,
    a: np.ndarray, zeros: int, w: Work, bins: S.Bins,
) -> None:  # fmt: skip
    """Counts, histogram, maximum and noise of a row from its errors ``err``."""
    m = err.size
    np.abs(err, out=err)
    rel = w.rel[:m]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        np.divide(err, den, out=rel)
    top = float(rel.max()) if m else 0.0
    cleared = 0
    if not math.isfinite(top):
        cleared = stats.clear_nonfinite(rel, err, a)
        top = float(rel.max())
    flags = w.flags[:m]
    exact = int(np.count_nonzero(np.equal(rel, 0.0, out=flags)))
    stats.zero = exact - zeros - cleared
    index = w.index[:m]
    np.clip(rel, _LOW_EDGE, math.inf, out=rel)  # below 2**-64 (zeros too): the lowest bin
    # (rel is finite and >= 0 here; np.maximum by a scalar takes twice as long as np.clip)
    np.right_shift(rel.view(np.uint64), _REL_SHIFT, out=index)
    bins.add(index.view(np.int64), top)
    bins.exact += exact
    stats.max_rel = top
    stats.flushed_to_zero = int(np.count_nonzero(np.equal(mags, 0.0, out=flags))) - zeros
    if small > 0:  # 0 < |stored| < small, on the bits: (bits - 1) < (bits of small) - 1
        bits = w.index[:m]
        np.subtract(mags.view(np.uint64), np.uint64(1), out=bits)
        small_bits = np.uint64(int(np.float64(small).view(np.uint64)) - 1)
        stats.subnormal = int(np.count_nonzero(np.less(bits, small_bits, out=flags)))
    noise = S.ScaledSum.of(err, float(err.max()) if m else 0.0, rel)
    stats.noise.parts.append(noise)
    if cleared:
        stats.noise.parts.append((math.inf, 0))
