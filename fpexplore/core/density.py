"""How many values a format has where: exact counts in closed form (claim 7).

Examples
--------
>>> count_between(3, 4, "float32")  # a finite number of values between 3 and 4
4194304
>>> count_between(1, 2, "float16") == count_between(1024, 2048, "float16") == 2**10
True
>>> count_between(0, "6.1e-5", "float16")  # zero and the 1023 subnormals
1024
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .. import codes as K
from ..exact import ExactReal, parse_real, round_real
from ..formats import Format, FormatLike, get_format

__all__ = ["Binade", "BinadeTable", "binade_table", "count_between", "values_between"]


def _bound(x: Any, name: str) -> ExactReal:
    exact = parse_real(x)
    if exact.special == "nan":
        raise ValueError(f"{name} must be a number or +-inf, got {x!r}")
    return exact


def _count_below(t: ExactReal, fmt: Format) -> int:
    """Number of representable non-NaN values v < t (zero once, +-inf included)."""
    positives = fmt.max_code  # codes 1..max_code are the positive finite values
    has_inf = int(fmt.has_infinity)
    if t.special == "inf":
        return 0 if t.sign else has_inf + 2 * positives + 1
    assert t.magnitude is not None  # finite: _bound refuses NaN
    if t.magnitude == 0:
        return has_inf + positives
    if t.sign:  # below -r: -inf and the negatives of magnitude > r
        at_most_r = round_real(t._replace(sign=0), fmt, "toward_zero", "saturate")
        return has_inf + positives - at_most_r
    if t.magnitude > Fraction(fmt.max):
        return has_inf + 2 * positives + 1
    at_least_t = round_real(t, fmt, "up")
    return has_inf + positives + at_least_t  # = ... + 1 (zero) + (at_least_t - 1)


def count_between(lo: Any, hi: Any, fmt: FormatLike) -> int:
    """Exact number of distinct representable values v with ``lo <= v < hi``.

    Zero is counted once (+0 and -0 are one value); infinities count when in
    range; NaN never does. Closed form (no enumeration), for any range of any
    format. Bounds are taken exactly, like :func:`fpexplore.decode` inputs, so
    ``"0.1"`` means one tenth.

    Examples
    --------
    >>> count_between(-1, 1, "float8_e4m3fn")  # 56 negatives, zero, 55 positives
    112
    >>> count_between("-inf", "inf", "float16")  # -inf, 63487 finite values
    63488
    """
    fmt = get_format(fmt)
    low, high = _bound(lo, "lo"), _bound(hi, "hi")
    return max(0, _count_below(high, fmt) - _count_below(low, fmt))


def _values_at(rank: np.ndarray, fmt: Format) -> np.ndarray:
    """The representable values at signed ranks: 0 is zero, +k the k-th positive
    value (its code is k), -k its negative, and +-(max_code + 1) the infinities."""
    positives = fmt.max_code
    code = np.abs(rank).astype(np.uint64)
    values = K.codes_to_values(np.minimum(code, positives).astype(K.code_dtype(fmt)), fmt)
    values[code > positives] = np.inf
    return np.where(rank < 0, -values, values)


def values_between(lo: Any, hi: Any, fmt: FormatLike, *, limit: int | None = 100_000) -> np.ndarray:
    """All representable values v with ``lo <= v < hi``, ascending, as float64.

    Raises
    ------
    ValueError
        When there are more than ``limit`` of them (pass a larger limit, or
        ``limit=None`` for no limit at all).

    Examples
    --------
    >>> values_between(0, 1, "float4_e2m1fn")
    array([0. , 0.5])
    """
    fmt = get_format(fmt)
    low, high = _bound(lo, "lo"), _bound(hi, "hi")
    start, stop = _count_below(low, fmt), _count_below(high, fmt)
    if limit is not None and stop - start > limit:
        raise ValueError(
            f"[{lo}, {hi}) holds {stop - start} values of {fmt.name}, more than "
            f"limit={limit}; pass a larger limit or a narrower range"
        )
    if stop <= start:
        return np.empty(0)
    first_rank = start - int(fmt.has_infinity) - fmt.max_code  # ranks fit in int64
    return _values_at(np.arange(first_rank, first_rank + stop - start, dtype=np.int64), fmt)


@dataclass(frozen=True)
class Binade:
    """One interval ``[lo, hi)`` between powers of two and what it holds."""

    exponent: int  # lo == 2**exponent
    lo: float
    hi: float
    count: int  # representable values in [lo, hi)
    spacing: float  # distance between neighbours there
    kind: str  # "subnormal" or "normal"


class BinadeTable(list[Binade]):
    """The binades of ``format``, smallest first: a list of :class:`Binade` that prints
    as a short summary (its first and last rows) and shows as an HTML table."""

    def __init__(self, rows: Iterable[Binade], fmt: Format) -> None:
        super().__init__(rows)
        self.format = fmt

    def __repr__(self) -> str:
        from ..render.summary import binades_table  # the documented upward import

        return str(binades_table(self))

    def _repr_html_(self) -> str:
        from ..render.summary import binades_table

        return binades_table(self)._repr_html_()


def _pow2(exponent: int) -> float:
    try:
        return math.ldexp(1.0, exponent)
    except OverflowError:
        return math.inf


def binade_table(fmt: FormatLike) -> BinadeTable:
    """Every binade of positive values, smallest first, with its exact count.

    In the normal range each holds ``2**mantissa_bits`` values (claim 7). Below
    it, the subnormals hold 1, 2, 4, ... values per binade; the top binade of
    an 'fn' format holds one fewer (its last pattern is NaN).

    Examples
    --------
    >>> [(b.exponent, b.count) for b in binade_table("float4_e2m1fn")]
    [(-1, 1), (0, 2), (1, 2), (2, 2)]
    """
    fmt = get_format(fmt)
    m = fmt.mantissa_bits
    rows = []
    for exponent in range(fmt.emin - m, fmt.emax + 1):
        lo, hi = Fraction(2) ** exponent, Fraction(2) ** (exponent + 1)
        rows.append(
            Binade(
                exponent=exponent,
                lo=math.ldexp(1.0, exponent),
                hi=_pow2(exponent + 1),
                count=count_between(lo, hi, fmt),
                spacing=float(Fraction(2) ** (max(exponent, fmt.emin) - m)),
                kind="subnormal" if exponent < fmt.emin else "normal",
            )
        )
    return BinadeTable(rows, fmt)
