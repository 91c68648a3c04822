"""The narrow route of a tensor report: inputs whose every value is a float32.

For float32, float16, bfloat16 and FP8 inputs (and integers of at most 16 bits) a
piece is copied into float32, and each row works on magnitudes (``|q - x| =
||q| - |x||``: a rounded value keeps its input's sign), in as few passes as the
numbers allow:

* ``none`` rows of the FP8/FP6/FP4 formats and float16 (``none32``) and MX block
  rows (``block32``) round in float32 (a kernel on the magnitudes' 32-bit codes)
  and form the error ``|q - x|`` in float32;
* ``per_tensor`` rows, and ``none`` rows of wider formats such as bfloat16
  (``mag64``), round ``|x| s`` in float64, where the product is exact;
* the other rows (NVFP4, MXINT8, tabulated formats) take the wide route
  (:func:`fpexplore.report.routes.wide.row_stats`).

Flushes and subnormal results are counted on the magnitudes before rounding,
against the limits of :func:`fpexplore.report.routes.rows.stored_limits`; the
exact results are bin 0 of the histogram (no nonzero relative error of these
inputs is below ``2**-48``).

**Why float32 is exact enough: it is exact.** (1) The float32 kernel rounds
once, correctly (its module says why). (2) The error is exact in float32: ``q``
lies on the format's grid, which in ``x``'s binade is at least as coarse as
float32's spacing ``ulp(x)`` there (the format has fewer mantissa bits, and its
subnormal spacing ``2**(emin - m)`` exceeds float32's in that range), so ``q - x``
is a multiple of ``ulp(x)`` smaller than ``2**(e + 1)`` in magnitude (rounding
to nearest moves ``x`` by at most ``|x|``, or to the clamp value just below it):
24 significant bits at most. The one exception, a ``none`` row of a format with
neither inf nor NaN that saturates a value far beyond its range, takes its errors
in float64, as the wide route does. (3) Block scaling by ``2**-shared`` is exact
unless ``|x| 2**-shared`` falls below float32's normals (``2**-126``), and such a
value rounds to zero in every MX element format whatever its last bits; the
unscaled ``q = t 2**shared`` is exact down to the smallest element subnormal with
``shared = -127`` (``2**(emin - m - 127) >= 2**-149`` is checked per format).
(4) The relative error is the float64 quotient of the exact float32 error and
``|x|``: the very float64 the wide route computes. Its histogram bin is the
exact quotient's: a quotient of two numbers of at most 24 significant bits that
lies below a bin edge (7 significant bits) lies below it by a relative ``2**-31``
at least, far more than float64's rounding (``2**-53``) can close. (5) The sums of
squares are float64 sums of the exact float64 squares. So every count, maximum,
histogram and sum equals the wide route's: the tests compare both routes on
adversarial tensors.
"""

from __future__ import annotations

import math

import numpy as np

from ..._kernels.round.magnitudes import (
    binades32,
    round_magnitudes32,
    round_magnitudes64,
)
from . import stats as S
from .blocks import Blocks
from .nvfp4 import nvfp4_magnitudes
from .rows import Row, RowPlan, Work
from .wide import Context, finite_amax, finite_magnitudes, row_stats, wide_piece_stats

__all__ = ["narrow_piece_stats"]

_REL_SHIFT_INT = np.int64(52 - S.REL_BITS)
_LOG2_SHIFT = np.uint64(52 - S.LOG2_BITS)


def narrow_piece_stats(piece: np.ndarray, plan: RowPlan, w: Work) -> S.TensorStats:
    """The statistics of one piece (block axis last) for every row of ``plan``."""
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN results are counted
        return _piece_stats(piece, plan, w)


def _piece_stats(piece: np.ndarray, plan: RowPlan, w: Work) -> S.TensorStats:
    lead, length = piece.shape[:-1], piece.shape[-1]
    padded = plan.padded(length)
    rows = math.prod(lead)
    m = rows * padded
    if m == 0:
        return wide_piece_stats(piece, plan, w)
    if m > w.n:
        raise ValueError(f"a piece of {m} elements exceeds the work buffers ({w.n})")
    x, a, binade, t, y, q, c, *shared = (b[:m] for b in w.f32())
    if piece.dtype == np.float32 and "wide" not in plan.kinds:  # |x| alone: no copy of x
        a2 = a.reshape(rows, padded)
        if padded > length:
            a2[:, length:] = 0.0
        np.abs(piece, out=a2.reshape(*lead, padded)[..., :length])
        amax, bad = finite_amax(a)
    else:
        x2 = x.reshape(rows, padded)
        if padded > length:
            x2[:, length:] = 0.0
        np.copyto(x2.reshape(*lead, padded)[..., :length], piece, casting="unsafe")
        amax, bad = finite_magnitudes(x, a)
    a64, flags = w.a[:m], w.flags[:m]
    np.copyto(a64, a)
    zeros = int(np.count_nonzero(np.equal(a, 0.0, out=flags)))
    den = a64
    if zeros:
        den = np.add(a64, flags, out=w.den[:m])  # a zero input divides by 1: its error is 0
        np.copyto(w.zero[:m], flags)
    if plan.figure:
        log2, index = w.log2_bins(), w.index[:m]
        np.right_shift(a64.view(np.uint64), _LOG2_SHIFT, out=index)
        log2.add(index.view(np.int64), amax)
        log2.exact += zeros
    n = rows * length
    out = S.TensorStats([], n, n - bad, m - zeros, amax)
    out.signal.parts.append((float(np.einsum("i,i->", a64, a64)), 0))  # float32s: in range
    binades32(a, binade)
    blocks: dict[int, Blocks] = {}
    context: Context | None = None
    for i, (row, kind) in enumerate(zip(plan.rows, plan.kinds, strict=True)):
        if kind == "wide":
            if context is None:
                np.copyto(w.x[:m], x)
                context = (w.x[:m], a64, den, zeros, rows, padded)
            out.rows.append(row_stats(i, row, plan.rounders[i], plan.scales[i], plan,
                                      context, w))  # fmt: skip
            continue
        stats, limits = S.RowStats(), plan.limits[i]
        if kind == "nvfp4":
            _nvfp4(stats, row, plan, a64, a, padded, zeros, w)
            _finish(stats, w.err[:m], den, a64, zeros, w, i)
        elif kind == "mag64":
            assert limits is not None
            err, y64 = _mag64(stats, plan, i, a64, w)
            den_s, scale = den, plan.scales[i]
            if scale is not None:  # the scaled domain's |x s|
                den_s = np.multiply(den, scale, out=w.sden[:m]) if zeros else y64
            _stored(stats, a, limits, zeros, flags)
            _finish(stats, err, den_s, a64, zeros, w, i)
        else:
            r32 = plan.rounders32[i]
            assert r32 is not None and limits is not None
            if kind == "none32":
                stats.overflow = round_magnitudes32(a, binade, r32, t, c)
                _stored(stats, a, limits, zeros, flags)
                far = r32.overflow_value == r32.max and stats.overflow > 0
                err = _errors(t, a, a64, c, far, w)
            else:
                assert row.block is not None
                k, emax = row.block.block_size, row.block.emax_elem
                assert isinstance(k, int)  # 2-D rows arrive as 1-D twins (routes/tiles)
                k = min(k, padded)  # an axis shorter than a block: a block a row
                if k not in blocks:
                    blocks[k] = Blocks(a, k, shared)
                stats.clipped = blocks[k].round(a, emax, r32, (y, t, q, c))
                _stored(stats, y, limits, zeros, flags)
                err = _errors(q, a, a64, c, False, w)
            _finish(stats, err, den, a64, zeros, w, i)
        if row.scaling != "none":
            stats.overflow += stats.nonfinite
        out.rows.append(stats)
    return out


def _nvfp4(stats: S.RowStats, row: Row, plan: RowPlan, a64: np.ndarray, a32: np.ndarray,
           padded: int, zeros: int, w: Work) -> None:  # fmt: skip
    """An NVFP4 row (routes/nvfp4): its counts, and its errors ``|q - x|`` in ``w.err``
    (float64, as the wide route forms them; a nonzero relative error is at least
    ``2**-31``: ``q`` and ``x`` lie within a factor 8 of each other, on grids of
    ``2**-28`` and ``2**-24`` of their size)."""
    block = row.block
    assert block is not None and isinstance(block.block_size, int)
    assert block.element_format is not None
    m, flags = a64.size, w.flags[: a64.size]
    k = min(block.block_size, padded)
    t, q, stats.clipped = nvfp4_magnitudes(a64, k, block, plan.tensor_amax, w, a32)
    flushed = int(np.count_nonzero(np.equal(t, 0.0, out=flags)))
    below = int(np.count_nonzero(np.less(t, block.element_format.smallest_normal, out=flags)))
    stats.flushed_to_zero, stats.subnormal = flushed - zeros, below - flushed
    err = np.subtract(q, a64, out=w.err[:m])
    np.abs(err, out=err)


def _mag64(stats: S.RowStats, plan: RowPlan, i: int, a64: np.ndarray,
           w: Work) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A ``per_tensor`` row (or a ``none`` row of a wide format) in float64: the
    errors (in ``w.err``) and the magnitudes rounded (``|x| s``, exact)."""
    m = a64.size
    rounder, scale = plan.rounders[i], plan.scales[i]
    assert rounder is not None
    y = a64 if scale is None else np.multiply(a64, scale, out=w.y[:m])
    t = w.q[:m]
    beyond = round_magnitudes64(y, rounder, t, w.nearest)
    if scale is None:
        stats.overflow = beyond
    else:
        stats.clipped = beyond
    err = np.subtract(t, y, out=w.err[:m])
    np.abs(err, out=err)
    return err, y


def _stored(stats: S.RowStats, v: np.ndarray, limits: tuple[np.float32, np.float32],
            zeros: int, flags: np.ndarray) -> None:  # fmt: skip
    """Flushes and subnormal results, from the magnitudes ``v`` before rounding."""
    flushed = int(np.count_nonzero(np.less_equal(v, limits[0], out=flags)))
    below = int(np.count_nonzero(np.less(v, limits[1], out=flags)))
    stats.flushed_to_zero, stats.subnormal = flushed - zeros, below - flushed


def _errors(q: np.ndarray, a: np.ndarray, a64: np.ndarray, scratch: np.ndarray, far: bool,
            w: Work) -> np.ndarray:  # fmt: skip
    """``|q - x|`` in float64 (``w.err``) from the stored magnitudes ``q`` (float32),
    formed in float32, where it is exact, unless ``far``: a format without inf and
    NaN saturated values that may lie far beyond its range, where only float64
    forms the difference as the wide route does."""
    err = w.err[: a.size]
    if far:
        np.copyto(err, q)
        np.subtract(err, a64, out=err)
        np.abs(err, out=err)
        return err
    np.subtract(q, a, out=scratch)
    np.abs(scratch, out=err)  # (exact: float32 to float64)
    return err


def _finish(stats: S.RowStats, err: np.ndarray, den: np.ndarray, a64: np.ndarray, zeros: int,
            w: Work, i: int) -> None:  # fmt: skip
    """Histogram, maximum and noise of row ``i`` from its float64 errors ``err``."""
    m = err.size
    rel = np.divide(err, den, out=w.rel[:m])
    top = float(rel.max())
    cleared = 0
    if not math.isfinite(top):
        cleared = stats.clear_nonfinite(rel, err, a64)
        top = float(rel.max())
    stats.zero = -zeros - cleared  # the exact zeros are bin 0's (Work.drain adds them)
    stats.max_rel = top
    index = w.index[:m].view(np.int64)  # (rel >= 0: its bits shift alike as int64)
    np.right_shift(rel.view(np.int64), _REL_SHIFT_INT, out=index)
    w.row_bins(i, zero_bin=True).add(index, top)
    stats.noise.parts.append((float(np.einsum("i,i->", err, err)), 0))  # (not BLAS: threads)
    if cleared:
        stats.noise.parts.append((math.inf, 0))
