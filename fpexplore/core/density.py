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
        raise ValueError(f"{name} must be a number or +-inf, got {x!s:.40}")
    return exact


def _ranks(fmt: Format) -> tuple[int, int, int]:
    """(values below zero, whether zero is one, positive finite values): the
    values in ascending order are -inf, the negatives, zero, the positives, +inf."""
    positives = fmt.n_positive
    below_zero = (positives + int(fmt.has_infinity)) if fmt.is_signed else 0
    return below_zero, int(fmt.has_zero), positives


def _positives_below(r: Fraction, fmt: Format) -> int:
    """Number of positive finite values v < r (r > 0)."""
    if r > Fraction(fmt.max):
        return fmt.n_positive
    at_least_r = round_real(ExactReal(0, r), fmt, "up")  # a magnitude code
    return at_least_r - int(fmt.has_zero)


def _count_below(t: ExactReal, fmt: Format) -> int:
    """Number of representable non-NaN values v < t (zero once, +-inf included)."""
    below_zero, zero, positives = _ranks(fmt)
    if t.special == "inf":
        return 0 if t.sign else below_zero + zero + positives
    assert t.magnitude is not None  # finite: _bound refuses NaN
    if t.magnitude == 0:
        return below_zero
    if t.sign:  # below -r: -inf and the negatives of magnitude > r
        if not fmt.is_signed:
            return 0
        r = t.magnitude
        at_most_r = _positives_below(r, fmt) + (r <= Fraction(fmt.max) and _representable(r, fmt))
        return below_zero - at_most_r
    return below_zero + zero + _positives_below(t.magnitude, fmt)


def _representable(r: Fraction, fmt: Format) -> bool:
    code = round_real(ExactReal(0, r), fmt, "up")
    return Fraction(float(K.codes_to_values(np.array([code]), fmt)[0])) == r


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


def _values_at(offset: np.ndarray, fmt: Format) -> np.ndarray:
    """The representable values at offsets from the first value not below zero
    (see _ranks): 0 is zero (or the smallest positive value without zero), -1
    the negative value nearest zero, and so on."""
    _, zero, positives = _ranks(fmt)
    magnitude_k = np.where(offset < 0, -1 - offset, offset - zero)  # from 0 up, both sides
    code = np.clip(magnitude_k, 0, positives - 1) + zero
    values = K.codes_to_values(code.astype(K.code_dtype(fmt)), fmt)
    values[magnitude_k >= positives] = np.inf
    values[magnitude_k < 0] = 0.0
    return np.where(offset < 0, -values, values)


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
            f"[{low.to_float()!r}, {high.to_float()!r}) holds {stop - start} values of "
            f"{fmt.name}, more than "
            f"limit={limit}; pass a larger limit or a narrower range"
        )
    if stop <= start:
        return np.empty(0)
    first = start - _ranks(fmt)[0]  # offsets fit in int64, ranks may not
    return _values_at(np.arange(first, first + stop - start, dtype=np.int64), fmt)


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
