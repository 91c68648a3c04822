"""The IEEE 754 flags of an array operation, element by element, and counting them.

A :class:`~fpexplore.array.FormatArray` keeps, for the operation that made it, a
way to compute one byte per element: bit ``i`` set when flag ``FLAGS[i]`` was
raised there (``invalid``, ``division_by_zero``, ``overflow``, ``underflow``,
``inexact``). Nothing is computed until someone reads ``.flags`` or
``.flag_counts`` or a :func:`flag_counter` is open, so flags cost nothing when
nobody reads them.

For ``+ - x /``, ``sqrt`` and ``fma`` on the float64 path of the arithmetic
kernels (formats of at most 25 bits of precision) the flags are found
vectorized: an element whose operands and result are finite, with
``smallest_normal < |result| < max``, raises ``inexact`` alone or nothing,
and exactness is decided exactly in float64 (TwoSum for sums, ``r x b == a`` for
quotients, ``r x r == a`` for roots, products exact). Every other element (a
special operand or result, a result at or below the smallest normal, at the
largest finite value) and every element of a wider format takes the exact
reference, :func:`fpexplore.exact.exact_op`, whose flags the scalar operations
report; so the flags are exactly those ``fpx.add`` and its siblings give.

>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> bits = op_flags("mul", [np.array([300.0, 2.0]), np.array([300.0, 3.0])],
...                 np.array([np.inf, 6.0]), get_format("float16"), "nearest_even", None)
>>> [mask_names(b) for b in bits]
[['overflow', 'inexact'], []]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from ... import codes as K
from ...exact import FLAGS, conversion_flags, exact_op, parse_real
from ...formats import Format

__all__ = [
    "BITS",
    "FlagCounter",
    "conversion_mask",
    "count_mask",
    "flag_counter",
    "mask_names",
    "op_flags",
]

BITS = {name: np.uint8(1 << i) for i, name in enumerate(FLAGS)}
"""The bit of each flag in a mask byte."""

INEXACT, OVERFLOW, UNDERFLOW = BITS["inexact"], BITS["overflow"], BITS["underflow"]
INVALID, DIVIDE = BITS["invalid"], BITS["division_by_zero"]


def mask_names(bits: Any) -> list[str]:
    """The names of the flags set in one mask byte, in the standard's order."""
    return [name for name in FLAGS if int(bits) & int(BITS[name])]


def _names_to_bits(names: frozenset[str]) -> int:
    return sum(int(BITS[n]) for n in names)


def count_mask(mask: np.ndarray) -> dict[str, int]:
    """How many elements of ``mask`` raise each flag (every flag a key)."""
    return {name: int(np.count_nonzero(mask & BITS[name])) for name in FLAGS}


def _exactness(op: str, xs: list[np.ndarray], r: np.ndarray) -> np.ndarray:
    """Where ``r`` equals the exact result, decided exactly in float64 (the float64
    path's formats: products of two values are exact, as are TwoSum's errors)."""
    if op in ("add", "sub", "fma"):
        if op == "fma":
            x, y = xs[0] * xs[1], xs[2]
        else:
            x, y = xs[0], (xs[1] if op == "add" else -xs[1])
        s = x + y
        v = s - x
        error = (x - (s - v)) + (y - v)
        return (r == s) & (error == 0)
    if op == "mul":
        return r == xs[0] * xs[1]
    if op == "div":
        return r * xs[1] == xs[0]
    return r * r == xs[0]  # sqrt


def _scalar_flags(
    op: str, codes: tuple[int, ...], stored: int, fmt: Format, rounding: str, overflow: str | None
) -> int:
    """The flags :func:`exact_op` raises for one element. Stochastic rounding has
    no fixed direction: the flags are those of the direction that gave ``stored``."""
    if rounding != "stochastic":
        return _names_to_bits(exact_op(op, codes, fmt, rounding, overflow).flags)
    first = None
    for mode in ("toward_zero", "up", "down"):
        result = exact_op(op, codes, fmt, mode, overflow)
        first = result if first is None else first
        if result.code == stored:
            return _names_to_bits(result.flags)
    return _names_to_bits(first.flags) if first is not None else 0


def _reference(
    op: str,
    xs: list[np.ndarray],
    r: np.ndarray,
    where: np.ndarray,
    out: np.ndarray,
    fmt: Format,
    rounding: str,
    overflow: str | None,
) -> None:
    index = np.flatnonzero(where)
    if index.size == 0:
        return
    codes = [K.round_codes(x[index], fmt) for x in xs]
    stored = K.round_codes(r[index], fmt)
    for j, i in enumerate(index.tolist()):
        operand_codes = tuple(int(c[j]) for c in codes)
        out[i] = _scalar_flags(op, operand_codes, int(stored[j]), fmt, rounding, overflow)


def op_flags(
    op: str,
    operands: list[np.ndarray],
    result: np.ndarray,
    fmt: Format,
    rounding: str,
    overflow: str | None,
) -> np.ndarray:
    """One mask byte per element of ``result`` for ``op`` on values of ``fmt``."""
    r = K.as_float64(result).reshape(-1)
    xs = [np.broadcast_to(K.as_float64(x), result.shape).reshape(-1) for x in operands]
    out = np.zeros(r.shape, np.uint8)
    if op in ("neg", "abs"):
        if fmt.tabulated:  # E8M0's -x has no value: invalid (as exact_op says)
            _reference(op, xs, r, np.isnan(r) & ~np.isnan(xs[0]), out, fmt, rounding, overflow)
        return out.reshape(result.shape)
    with np.errstate(all="ignore"):
        finite = np.isfinite(r)
        for x in xs:
            finite &= np.isfinite(x)
        if op == "div":
            finite &= xs[1] != 0
        if K.float64_path(op, fmt):
            exact = finite & _exactness(op, xs, r)
            magnitude = np.abs(r)
            inside = finite & ~exact & (magnitude > fmt.smallest_normal) & (magnitude < fmt.max)
            out[inside] = INEXACT
            hard = ~(exact | inside)
        else:
            hard = np.ones(r.shape, bool)
    _reference(op, xs, r, hard, out, fmt, rounding, overflow)
    return out.reshape(result.shape)


def conversion_mask(original: np.ndarray, stored: np.ndarray, fmt: Format, rounding: str) -> Any:
    """The flags of rounding plain values into ``fmt`` (as :func:`fpexplore.decode`
    raises them): ``inexact`` where the value moved; the exact reference where it
    is at or beyond the largest value or below the smallest normal. 0 for none."""
    x = K.as_float64(original).reshape(-1)
    s = K.as_float64(stored).reshape(-1)
    with np.errstate(invalid="ignore"):
        moved = (x != s) & ~np.isnan(x)
        magnitude = np.abs(x)
        hard = (moved & ~((magnitude > fmt.smallest_normal) & (magnitude < fmt.max))) | (
            np.isinf(x) & ~np.isinf(s)
        )
        if not fmt.is_signed:
            hard |= (x <= 0) & ~np.isnan(x)
    if not moved.any() and not hard.any():
        return 0
    out = np.where(moved, INEXACT, np.uint8(0)).astype(np.uint8)
    mode = "nearest_even" if rounding == "stochastic" else rounding
    index = np.flatnonzero(hard)
    codes = K.round_codes(s[index], fmt)
    for j, i in enumerate(index.tolist()):
        real = parse_real(float(x[i]))
        out[i] = _names_to_bits(conversion_flags(real, int(codes[j]), fmt, mode))
    return out.reshape(np.shape(original))


class FlagCounter(Mapping[str, int]):
    """Flags counted over every :class:`~fpexplore.array.FormatArray` operation
    made while a :func:`flag_counter` block is open: a read-only mapping from each
    flag to its count (``counter["overflow"]``, ``dict(counter)``).

    Attributes
    ----------
    counts : dict of str to int
        For each flag, how many elementary operations (one per element of an
        elementwise operation; each product and addition of a reduction) raised it.
    events : list of tuple
        ``(operation, flag, count, first_index)`` for each operation that raised a
        flag, in the order the operations ran.
    """

    def __init__(self) -> None:
        self.counts: dict[str, int] = dict.fromkeys(FLAGS, 0)
        self.events: list[tuple[str, str, int, tuple[int, ...]]] = []

    def record(self, operation: str, mask: np.ndarray, counts: dict[str, int]) -> None:
        """Add one operation's per-element mask and its counts."""
        for name in FLAGS:
            n = counts.get(name, 0)
            if n:
                self.counts[name] += n
                hits = np.flatnonzero(np.asarray(mask).reshape(-1) & BITS[name])
                first = np.unravel_index(int(hits[0]), np.shape(mask)) if hits.size else ()
                self.events.append((operation, name, n, tuple(int(i) for i in first)))

    def __getitem__(self, flag: str) -> int:
        return self.counts[flag]

    def __iter__(self) -> Iterator[str]:
        return iter(self.counts)

    def __len__(self) -> int:
        return len(self.counts)

    def __repr__(self) -> str:
        raised = ", ".join(f"{k}: {v}" for k, v in self.counts.items() if v) or "no flags"
        return f"FlagCounter({raised})"

    def __str__(self) -> str:
        lines = [repr(self)]
        for operation, name, n, first in self.events:
            at = ", ".join(str(i) for i in first)
            lines.append(f"  {n} {name} in {operation}, first at [{at}]")
        return "\n".join(lines)


_ACTIVE: list[FlagCounter] = []


def active_counters() -> list[FlagCounter]:
    """The counters of the :func:`flag_counter` blocks open now (innermost last)."""
    return _ACTIVE


@contextmanager
def flag_counter() -> Iterator[FlagCounter]:
    """Count the IEEE flags of every FormatArray operation inside the block.

    Yields
    ------
    FlagCounter
        ``counts[flag]``: how many elementary operations raised it; ``str()`` lists
        each operation with its first index.

    Examples
    --------
    >>> import numpy as np
    >>> import fpexplore as fpx
    >>> x = fpx.FormatArray([1.0, 10.0, 12.0], "float16")
    >>> with fpx.flag_counter() as flags:
    ...     y = np.exp(x)
    >>> flags["overflow"], flags["inexact"]
    (1, 3)
    >>> print(flags)
    FlagCounter(overflow: 1, inexact: 3)
      1 overflow in exp, first at [2]
      3 inexact in exp, first at [0]
    """
    counter = FlagCounter()
    _ACTIVE.append(counter)
    try:
        yield counter
    finally:
        _ACTIVE.remove(counter)
