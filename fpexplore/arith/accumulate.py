"""Sums and dot products in a format, with an accumulator format and a summation order.

Mixed precision lives here: each value is first rounded into ``fmt``; every
addition is rounded into the accumulator's format (``accumulate``, by default
``fmt``), round to nearest even, in one of four orders:

``sequential``
    ``((x0 + x1) + x2) + ...``: once the running sum is large, each small value
    is a fraction of its spacing and may be lost entirely (absorbed). In float16,
    adding ones stalls at :math:`2^{11} = 2048`, where the spacing becomes 2.
``pairwise``
    sums of halves, level by level (element ``i`` plus element ``i + n/2``;
    numpy's ``np.sum`` pairs contiguous blocks instead): partial sums meet
    values of their own size, and the error grows like ``log2(n)``, not ``n``.
``kahan``
    sequential with a compensation term that carries each addition's rounding
    error into the next (Kahan 1965), all in the accumulator's format.
``numpy``
    numpy's own order for ``np.sum`` of a contiguous run: eight interleaved running
    sums per block of at most 128 values, blocks combined by halves
    (:mod:`.numpy_order`). In float32 and float64 it gives ``np.sum`` bit for bit.

A dot product rounds each product ``a[i] * b[i]`` (exact) once into the
accumulator's format, as tensor cores do with float16 inputs and a float32
accumulator, then sums the products in the given order. The result carries the
exact sum (of the values as given) and its error.

Examples
--------
>>> import numpy as np
>>> sum(np.ones(4096), "float16").value  # sequential: stalls at 2048
2048.0
>>> sum(np.ones(4096), "float16", order="pairwise").value
4096.0
>>> sum(np.ones(4096), "float16", accumulate="float32").value
4096.0
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from .. import codes as K
from ..exact import check_arithmetic_format, to_float
from ..formats import Format, FormatLike, get_format
from .exact_sums import exact_dot, exact_sum
from .numpy_order import numpy_order_sum
from .pairwise import pairwise_sum

__all__ = ["ORDERS", "Accumulation", "dot", "sum"]

ORDERS = ("sequential", "pairwise", "kahan", "numpy")


@dataclass(frozen=True, eq=False)
class Accumulation:
    """The result of :func:`sum` or :func:`dot`.

    Attributes
    ----------
    value : float
        The sum as computed (a value of the accumulator's format).
    exact : Fraction or None
        The exact sum of the values (products) as given; None if any is inf/NaN.
    stored_exact : Fraction or None
        The exact sum of the values after rounding them into ``format``.
    abs_error, rel_error : float
        ``|value - exact|`` and that over ``|exact|``.
    absorbed_at : int or None
        Sequential order: the first index where adding a nonzero value left the
        running sum unchanged (absorption), else None.
    """

    kind: str
    value: float
    format: Format
    accumulate: Format
    order: str
    n: int
    absorbed_at: int | None = None
    absorbed_sum: float | None = None
    _exact_of: Callable[[], tuple[Fraction | None, Fraction | None]] | None = field(
        default=None, repr=False
    )  # computes (exact, stored_exact) when first read

    @cached_property
    def _exact_pair(self) -> tuple[Fraction | None, Fraction | None]:
        return (None, None) if self._exact_of is None else self._exact_of()

    @property
    def exact(self) -> Fraction | None:
        return self._exact_pair[0]

    @property
    def stored_exact(self) -> Fraction | None:
        return self._exact_pair[1]

    @property
    def abs_error(self) -> float:
        if self.exact is None or not math.isfinite(self.value):
            return math.nan if self.exact is None else math.inf
        return to_float(builtins.abs(Fraction(self.value) - self.exact))

    @property
    def rel_error(self) -> float:
        if self.exact == 0:
            return 0.0 if self.abs_error == 0 else math.inf
        if self.exact is None or not math.isfinite(self.value):
            return self.abs_error
        return to_float(builtins.abs(Fraction(self.value) - self.exact) / builtins.abs(self.exact))

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return (
            f"Accumulation({self.kind} of {self.n} values in {self.format.name}, accumulated "
            f"in {self.accumulate.name}, {self.order}: {self.value!r}, rel error "
            f"{self.rel_error:.3g})"
        )

    def __str__(self) -> str:
        from ..explain.accumulate import accumulation_text

        return accumulation_text(self)

    def _repr_html_(self) -> str:
        from ..explain.accumulate import accumulation_html

        return accumulation_html(self)


def _rounder(acc: Format) -> Any:
    """A scalar round-to-nearest-even into ``acc`` on Python floats (which it
    holds exactly); overflow follows the format's convention."""
    if acc.tabulated:  # fnuz, P3109, E8M0: the tables' rounding, which knows their rules
        return lru_cache(maxsize=1 << 12)(lambda t: float(K.round_values(np.array([t]), acc)[0]))
    p, emin, top = acc.mantissa_bits + 1, acc.emin, acc.max
    big = math.inf if acc.has_infinity else (math.nan if acc.has_nan else top)

    def round_nearest(t: float) -> float:
        if t == 0 or not math.isfinite(t):
            return t
        q = builtins.max(math.frexp(t)[1] - 1, emin) - (p - 1)
        r = math.ldexp(round(math.ldexp(t, -q)), q)
        return r if builtins.abs(r) <= top else math.copysign(big, t)

    return round_nearest


def _add(acc: Format) -> Any:
    """Scalar ``s + x`` rounded once into ``acc`` (round to odd in float64 first)."""
    rnd = _rounder(acc)
    exact64 = acc == get_format("float64")

    def add(s: float, x: float) -> float:
        t = s + x
        if exact64 or not math.isfinite(t):
            return float(rnd(t)) if acc.tabulated else t
        v = t - s
        err = (s - (t - v)) + (x - v)
        if err and not int(np.float64(t).view(np.uint64)) & 1:
            t = math.nextafter(t, math.inf if err > 0 else -math.inf)
        return float(rnd(t))

    return add


def _sequential(x: np.ndarray, acc: Format) -> tuple[float, int | None, float | None]:
    """``((x0 + x1) + x2) + ...`` from ``x0`` itself (so a sum of -0s is -0, as IEEE 754's
    additions give)."""
    add = _add(acc)
    values = x.tolist()
    s, absorbed, at = (values[0] if values else 0.0), None, None
    for i, v in enumerate(values[1:], 1):
        new = add(s, v)
        if absorbed is None and v != 0 and new == s:
            absorbed, at = i, s
        s = new
    return s, absorbed, at


def _kahan(x: np.ndarray, acc: Format) -> float:
    add = _add(acc)
    values = x.tolist()
    s, c = (values[0] if values else 0.0), 0.0
    for v in values[1:]:
        y = add(v, -c)
        t = add(s, y)
        c = add(add(t, -s), -y)
        s = t
    return s


def _accumulate(
    kind: str, terms: np.ndarray, exact_of: Any, fmt: Format, acc: Format, order: str
) -> Accumulation:
    absorbed = absorbed_sum = None
    if order == "sequential":
        value, absorbed, absorbed_sum = _sequential(terms, acc)
    elif order == "kahan":
        value = _kahan(terms, acc)
    elif order == "numpy":
        value = numpy_order_sum(terms, acc)
    else:
        value = pairwise_sum(terms, acc)
    return Accumulation(kind, value, fmt, acc, order, terms.size, absorbed, absorbed_sum, exact_of)


def _check(
    values: Any, fmt: FormatLike, accumulate: Any, order: str
) -> tuple[np.ndarray, Format, Format]:
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; expected one of {', '.join(ORDERS)}")
    fmt = check_arithmetic_format(fmt)
    acc = fmt if accumulate is None else check_arithmetic_format(accumulate)
    return _exact_array(values), fmt, acc


def _exact_array(values: Any) -> np.ndarray:
    """The values, flat: integers as they are (exact beyond 2**53, where float64
    is not), anything else as float64."""
    arr = K.real_array(values).reshape(-1)
    return arr if arr.dtype.kind in "iu" else K.as_float64(arr)


def sum(
    values: Any, fmt: FormatLike, *, accumulate: FormatLike | None = None, order: str = "sequential"
) -> Accumulation:
    """Sum ``values`` in ``fmt``, accumulating in ``accumulate`` (default ``fmt``).

    Examples
    --------
    >>> import numpy as np
    >>> r = sum(np.full(10000, 0.1), "bfloat16", accumulate="float32")
    >>> r.value, round(r.rel_error, 4)
    (1000.9765625, 0.001)
    >>> sum(np.full(10000, 0.1), "bfloat16").value  # a bfloat16 accumulator stalls
    32.0
    """
    if isinstance(values, np.ndarray) and values.dtype == np.float32 and order == "pairwise":
        fmt, acc = get_format(fmt), get_format(fmt if accumulate is None else accumulate)
        if fmt == acc == get_format("float32"):  # values of the format already: no copies
            x = values.reshape(-1)
            return _accumulate("sum", x, lambda: (exact_sum(x),) * 2, fmt, acc, order)
    x, fmt, acc = _check(values, fmt, accumulate, order)
    stored = K.round_values(x, fmt)
    terms = K.round_values(stored, acc)  # a narrower accumulator holds its own values only
    return _accumulate("sum", terms, lambda: (exact_sum(x), exact_sum(stored)), fmt, acc, order)


def dot(
    a: Any,
    b: Any,
    fmt: FormatLike,
    *,
    accumulate: FormatLike | None = None,
    order: str = "sequential",
) -> Accumulation:
    """The dot product of ``a`` and ``b`` in ``fmt``, accumulated in ``accumulate``.

    Each product of two values of ``fmt`` is exact, then rounded once into the
    accumulator's format; the products are summed in ``order``.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.full(4096, 0.5)
    >>> dot(a, a, "float16").value, dot(a, a, "float16", accumulate="float32").value
    (512.0, 1024.0)
    """
    xa, fmt, acc = _check(a, fmt, accumulate, order)
    xb = _exact_array(b)
    if xa.shape != xb.shape:
        raise ValueError(f"dot: a has {xa.size} values and b has {xb.size}; expected equal sizes")
    sa, sb = K.round_values(xa, fmt), K.round_values(xb, fmt)
    products = rounded_products(sa, sb, fmt, acc)
    exact_of = lambda: (exact_dot(xa, xb), exact_dot(sa, sb))  # noqa: E731 - computed when read
    return _accumulate("dot", products, exact_of, fmt, acc, order)


def rounded_products(a: np.ndarray, b: np.ndarray, fmt: Format, acc: Format) -> np.ndarray:
    """Each exact product rounded once into the accumulator's format."""
    if fmt.mantissa_bits <= 25 and K.float64_path("mul", fmt):
        with np.errstate(all="ignore"):
            return K.round_values(a * b, acc)  # exact in float64 (2p <= 53)
    from ..exact import parse_real, round_real

    with np.errstate(all="ignore"):
        out = K.round_values(a * b, acc)  # right where a factor is inf or NaN
    finite = np.flatnonzero(np.isfinite(a) & np.isfinite(b)).tolist()
    exact = (Fraction(float(a[i])) * Fraction(float(b[i])) for i in finite)
    codes = [round_real(parse_real(p), acc) for p in exact]
    out[finite] = K.codes_to_values(np.array(codes, dtype=K.code_dtype(acc)), acc)
    return out
