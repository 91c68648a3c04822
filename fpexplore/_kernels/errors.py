"""The errors of storing values in a format, in one blocked pass:
:func:`rounding_errors`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exact import check_overflow, check_rounding
from ..formats import Format, FormatLike, get_format
from .blocks import BLOCK, Scratch, run_blocks
from .dtypes import INF_BITS, real_array, widen_into
from .integers import exact_float64, integer_errors, wide_integers
from .round.blocked import blocked_rounder, round_into
from .round.f32 import Scratch32, round_block32, rounder32
from .rounding import round_values


def rounding_errors(
    values: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rounded, abs_error, rel_error, ulp_error)`` of storing ``values`` in ``fmt``,
    in one blocked pass: the arrays of :func:`fpexplore.representation_error`.

    ``abs_error = |rounded - values|`` (0 where they are equal, inf stored as inf
    included), ``rel_error = abs_error / |values|`` and ``ulp_error = abs_error /
    spacing``, where spacing is the format's ULP in the binade of ``|values|``
    (clamped to the subnormal spacing); both 0 where ``abs_error`` is 0.

    Examples
    --------
    >>> rounded, abs_error, rel_error, ulp_error = rounding_errors([0.1, 3.0], "float16")
    >>> ulp_error  # 0.1 lies 0.4 of a spacing from its float16; 3.0 is exact
    array([0.4, 0. ])
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    given = real_array(values)
    # float32 stays as it is (widened a block at a time below); other inputs are made
    # float64 once (integers beyond 2**53 pre-rounded)
    x = given if given.dtype == np.float32 else exact_float64(given, fmt, rounding)
    r = blocked_rounder(fmt, rounding, overflow)
    precomputed = None if r is not None else round_values(x, fmt, rounding, overflow=overflow)
    r32 = rounder32(fmt, rounding, overflow) if x.dtype == np.float32 else None
    outputs = tuple(np.empty(x.shape) for _ in range(4))
    flat, dst = x.reshape(-1), [a.reshape(-1) for a in outputs]

    def work(block: slice, scratch: _BothScratch) -> None:
        k = block.stop - block.start
        rounded, abs_error, rel_error, ulp_error = (a[block] for a in dst)
        if flat.dtype == np.float64:
            xb = flat[block]
        else:  # widened a block at a time (exactly), never the whole array
            xb = scratch.wide.floats("input")[:k]
            widen_into(xb, flat[block])
        # the outputs double as work arrays, so a block touches five arrays only
        np.abs(xb, out=rel_error)
        low, high = np.minimum.reduce(rel_error), np.maximum.reduce(rel_error)
        ordinary = low > 0 and high < np.inf  # no zero, inf or NaN (NaN fails both)
        if r is None:
            assert precomputed is not None
            np.copyto(rounded, precomputed.reshape(-1)[block])
        elif r32 is not None:  # float32 input: rounded on its 32-bit codes
            narrow = scratch.narrow.out32[:k]
            round_block32(flat[block], r32, narrow, scratch.narrow)
            np.copyto(rounded, narrow)
        elif ordinary and r.native in (np.float16, np.float32):  # no NaN payload to keep
            narrow = ulp_error.view(r.native)[:k]
            np.copyto(narrow, xb, casting="same_kind")
            np.copyto(rounded, narrow)
        else:
            round_into(xb, r, rounded, scratch.wide)
        np.subtract(rounded, xb, out=abs_error)
        np.abs(abs_error, out=abs_error)
        np.divide(abs_error, rel_error, out=rel_error)
        _ulp_error_into(abs_error, xb, fmt, ulp_error, tiny=not low >= fmt.smallest_normal)
        if not ordinary:  # 0/0, inf - inf and NaNs
            abs_error[rounded == xb] = 0.0  # also inf stored as inf
            zero = abs_error == 0
            rel_error[zero] = 0.0
            ulp_error[zero] = 0.0
            ulp_error[np.isinf(abs_error)] = np.inf

    run_blocks(flat.size, BLOCK, work, _BothScratch)
    rounded_all, abs_all, rel_all, ulp_all = outputs
    wide = wide_integers(given)
    if wide is not None and wide.any():  # measured from the integers themselves
        abs_all[wide], rel_all[wide], ulp_all[wide] = integer_errors(
            given[wide], rounded_all[wide], fmt
        )
    return rounded_all, abs_all, rel_all, ulp_all


class _BothScratch:
    """Work arrays of the float64 kernel and, for float32 inputs, the float32 one."""

    def __init__(self, n: int) -> None:
        self.wide = Scratch(n)
        self._narrow: Scratch32 | None = None
        self.n = n

    @property
    def narrow(self) -> Scratch32:
        if self._narrow is None:
            self._narrow = Scratch32(self.n)
        return self._narrow


def spacing_exponents(x: np.ndarray, fmt: Format) -> np.ndarray:
    """log2 of the format's spacing in the binade of each finite |x| (the lowest
    binade's for zero and subnormals), as int32 for ``np.ldexp``."""
    exponent = np.frexp(np.abs(x))[1].astype(np.int64) - 1
    exponent[x == 0] = fmt.emin  # frexp(0) has exponent 0, not -inf
    np.maximum(exponent, fmt.emin, out=exponent)
    return (exponent - fmt.mantissa_bits).astype(np.int32)


def _ulp_error_into(
    abs_error: np.ndarray,
    x: np.ndarray,
    fmt: Format,
    out: np.ndarray,
    tiny: bool = True,
) -> None:
    """out = abs_error / (the format's spacing in the binade of each |x|).

    The spacing is a power of two, so where its inverse is a float64 normal the
    division is exactly a multiplication by that inverse, built from the exponent
    bits of x. Inf and NaN get an arbitrary spacing: their errors are 0, inf or
    NaN whatever it is. ``tiny=False`` promises no |x| below smallest_normal."""
    m = fmt.mantissa_bits
    if m >= 1 and fmt.emin - m >= -1022:
        per_ulp = out.view(np.uint64)
        np.bitwise_and(x.view(np.uint64), INF_BITS, out=per_ulp)  # float64 exponent field
        if tiny:  # subnormals and zero: the spacing of the lowest binade
            np.maximum(per_ulp, (fmt.emin + 1023) << 52, out=per_ulp)
        np.subtract((2046 + m) << 52, per_ulp, out=per_ulp)  # 2**(m - exponent)
        np.multiply(abs_error, out, out=out)
    else:  # spacings down to 2**-1074, whose inverse overflows
        np.divide(abs_error, np.ldexp(1.0, spacing_exponents(x, fmt)), out=out)
