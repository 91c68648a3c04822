"""Every bit pattern of a format, classified and counted: claim 7 by brute force.

:func:`float_census` runs the vectorized classifier that :func:`fpexplore.decode_array`
uses over every code of a format (all 2**32 of float32 in a few seconds, in blocks
that keep memory near 30 MB) and counts the codes per sign, exponent field and kind.
:meth:`Census.compare` then sets each binade's count beside the closed form
:func:`fpexplore.count_between`: two independent ways to the same numbers, one
that looks at every pattern and one that looks at none.

Examples
--------
>>> census = float_census("float16")
>>> census.by_kind()
{'zero': 2, 'subnormal': 2046, 'normal': 61440, 'inf': 2, 'nan': 2046}
>>> int(census.counts[0, 15].sum())  # exponent field 15: the binade [1, 2)
1024
>>> census.agrees()
True
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import codes as K
from ..codes import Kind
from ..formats import Format, FormatLike, get_format
from .density import count_between

__all__ = ["BinadeCount", "Census", "float_census"]

BLOCK = 1 << 20
"""Codes per block: 4 MB of float32 codes and their kinds per worker."""

MAX_BITS = 32

_N_KINDS = len(Kind)


@dataclass(frozen=True)
class BinadeCount:
    """One binade of one sign: the values the census found there and the closed form."""

    sign: int
    exponent: int  # the biased exponent field
    lo: Fraction  # magnitudes in [lo, hi)
    hi: Fraction
    census: int
    closed_form: int

    @property
    def agrees(self) -> bool:
        return self.census == self.closed_form


@dataclass(frozen=True, eq=False)
class Census:
    """Codes of ``format`` in ``[start, stop)`` counted per sign, exponent field and kind.

    ``counts[sign, exponent, kind]`` is a number of codes; ``kind`` indexes
    :class:`fpexplore.Kind` in order (zero, subnormal, normal, inf, nan).
    """

    format: Format
    counts: np.ndarray
    start: int
    stop: int
    seconds: float

    @property
    def total(self) -> int:
        """Number of codes counted: ``stop - start``."""
        return int(self.counts.sum())

    def by_kind(self) -> dict[str, int]:
        """Codes per kind, over both signs and every exponent."""
        per_kind = self.counts.sum(axis=(0, 1))
        return {kind.value: int(n) for kind, n in zip(Kind, per_kind, strict=True)}

    def _covers(self, sign: int, exponent: int) -> bool:
        m = self.format.mantissa_bits
        first = (sign << (self.format.bits - 1)) | (exponent << m)
        return self.start <= first and first + (1 << m) <= self.stop

    def compare(self) -> list[BinadeCount]:
        """Each binade the census covers whole, beside :func:`count_between`.

        The census side counts codes whose class is subnormal or normal, so it
        is the number of nonzero finite values in that binade. Negative binades
        are counted with bounds a hair above ``-hi`` and ``-lo``, so that both
        sides hold magnitudes in ``[lo, hi)``.
        """
        fmt = self.format
        finite = [Kind.SUBNORMAL, Kind.NORMAL]
        columns = [list(Kind).index(k) for k in finite]
        hair = Fraction(fmt.smallest_subnormal) / 2
        rows = []
        for sign in (0, 1) if fmt.is_signed else (0,):
            for exponent in range(fmt.max_exponent_field + 1):
                if not self._covers(sign, exponent):
                    continue
                if exponent == 0 and fmt.has_subnormals:
                    lo, hi = Fraction(fmt.smallest_subnormal), Fraction(fmt.smallest_normal)
                else:
                    lo = Fraction(2) ** fmt.field_exponent(exponent)
                    hi = 2 * lo
                if sign:
                    closed = count_between(-hi + hair, -lo + hair, fmt)
                else:
                    closed = count_between(lo, hi, fmt)
                found = int(self.counts[sign, exponent, columns].sum())
                rows.append(BinadeCount(sign, exponent, lo, hi, found, closed))
        return rows

    def agrees(self) -> bool:
        """Whether every binade covered agrees with the closed form, and, for a
        whole-format census, the totals: finite values, infinities and NaNs."""
        if not all(row.agrees for row in self.compare()):
            return False
        if self.start != 0 or self.stop != self.format.n_codes:
            return True
        fmt, kinds = self.format, self.by_kind()
        zeros = kinds["zero"] // (2 if fmt.has_negative_zero else 1)  # one value
        finite_values = zeros + kinds["subnormal"] + kinds["normal"]
        everything = count_between("-inf", "inf", fmt) - (1 if fmt.n_inf == 2 else 0)  # -inf
        return (
            finite_values == everything == fmt.n_finite
            and kinds["inf"] == fmt.n_inf
            and kinds["nan"] == fmt.n_nan
        )

    def __str__(self) -> str:
        """What was counted, the counts per kind, and the first and last binades
        beside the closed form."""
        from ..render.summary import census_table  # the documented upward import

        return str(census_table(self))

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        from ..render.summary import census_table

        return census_table(self)._repr_html_()


def float_census(
    fmt: FormatLike = "float32",
    progress: bool | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    workers: int | None = None,
) -> Census:
    """Classify every code in ``[start, stop)`` of ``fmt`` and count them.

    Parameters
    ----------
    fmt : str, Format or dtype
        A format of at most 32 bits (2**64 float64 patterns would take centuries;
        :func:`fpexplore.count_between` answers for float64 in closed form).
    progress : bool, optional
        Print a progress line to stderr; by default when stderr is a terminal.
    start, stop : int
        The code range; by default every code.
    workers : int, optional
        Threads (numpy releases the GIL in its loops); by default the CPU count, at most 4.

    Examples
    --------
    >>> float_census("float32", start=0x3F800000, stop=0x40000000).compare()[0].census
    8388608
    """
    fmt = get_format(fmt)
    if fmt.bits > MAX_BITS:
        raise ValueError(
            f"{fmt.name} has 2**{fmt.bits} codes, too many to enumerate; "
            f"expected a format of at most {MAX_BITS} bits (count_between covers any format)"
        )
    stop = fmt.n_codes if stop is None else stop
    if not 0 <= start <= stop <= fmt.n_codes:
        raise ValueError(f"expected 0 <= start <= stop <= 2**{fmt.bits}, got [{start}, {stop})")
    if progress is None:
        progress = sys.stderr.isatty()
    workers = workers or min(os.cpu_count() or 1, 4)
    blocks = [(s, min(s + BLOCK, stop)) for s in range(start, stop, BLOCK)]
    done = [0] * workers
    began = time.perf_counter()
    shares = [blocks[i::workers] for i in range(workers)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_count, fmt, share, done, i) for i, share in enumerate(shares)]
        while progress and not all(f.done() for f in futures):
            _report(fmt, sum(done), stop - start, time.perf_counter() - began)
            time.sleep(0.25)
        counts = sum((f.result() for f in futures), np.zeros(_shape(fmt), np.int64))
    seconds = time.perf_counter() - began
    if progress:
        _report(fmt, stop - start, stop - start, seconds)
        print(file=sys.stderr)
    return Census(fmt, counts, start, stop, seconds)


def _shape(fmt: Format) -> tuple[int, int, int]:
    return (2, 1 << fmt.exponent_bits, _N_KINDS)


def _count(fmt: Format, blocks: list[tuple[int, int]], done: list[int], worker: int) -> np.ndarray:
    """Counts over some blocks: make the codes, classify them, count per (field, kind)."""
    dtype = K.code_dtype(fmt)
    counts = np.zeros(2 * (1 << fmt.exponent_bits) * _N_KINDS, np.int64)
    offsets = np.arange(BLOCK, dtype=dtype)
    codes, kind = np.empty(BLOCK, dtype), np.empty(BLOCK, np.uint8)
    key = np.empty(BLOCK, np.uint32)
    m = fmt.mantissa_bits
    for first, last in blocks:
        n = last - first
        c, k = codes[:n], kind[:n]
        np.add(offsets[:n], dtype.type(first), out=c)
        K.split_codes(c, fmt, parts=False, out=(None, None, None, k))
        field = first >> m  # sign and exponent field together
        if field == (last - 1) >> m:  # the whole block lies in one binade
            for kind_code in range(_N_KINDS):
                counts[field * _N_KINDS + kind_code] += np.count_nonzero(k == kind_code)
        else:
            np.right_shift(c, m, out=key[:n], casting="unsafe")
            np.multiply(key[:n], _N_KINDS, out=key[:n])
            np.add(key[:n], k, out=key[:n])
            counts += np.bincount(key[:n], minlength=counts.size)
        done[worker] += n
    return counts.reshape(_shape(fmt))


def _report(fmt: Format, done: int, total: int, seconds: float) -> None:
    share = done / total if total else 1.0
    print(
        f"\r{fmt.name} census: {share:6.1%} of {total:,} codes, {seconds:5.1f} s",
        end="",
        file=sys.stderr,
        flush=True,
    )
