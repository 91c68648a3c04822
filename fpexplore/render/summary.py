"""Short summaries of the results that hold many rows.

A census, the errors of many values, decoded arrays and a format's binades print a
line or two (what it is, how many, the totals) and their first and last rows with a
row of ``...`` between, so ``print(binade_table("float64"))`` fits on a screen; in
Jupyter the same table shows as HTML. The objects call these through lazy imports in
their own ``__str__`` / ``__repr__`` / ``_repr_html_``.

Examples
--------
>>> from fpexplore import binade_table
>>> print(binade_table("float16"))
float16: 40 binades of positive values, 2**-24 to 2**16
exponent  lo           hi           count  spacing      kind
--------  -----------  -----------  -----  -----------  ---------
     -24  5.96046e-08  1.19209e-07      1  5.96046e-08  subnormal
     -23  1.19209e-07  2.38419e-07      2  5.96046e-08  subnormal
     -22  2.38419e-07  4.76837e-07      4  5.96046e-08  subnormal
     ...          ...          ...    ...          ...  ...
      13       8192.0      16384.0   1024          8.0  normal
      14      16384.0      32768.0   1024         16.0  normal
      15      32768.0      65536.0   1024         32.0  normal
31,743 positive finite values: 10 subnormal binades, 30 normal
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import codes as K
from ..codes import Kind
from .table import Table

if TYPE_CHECKING:
    from ..core.arrays import ArrayParts
    from ..core.census import Census
    from ..core.density import BinadeTable
    from ..core.error import RepresentationError

__all__ = ["EDGE", "arrays_table", "binades_table", "census_table", "errors_table", "shown_rows"]

EDGE = 3
"""Rows shown at each end of a long table; the rows between become one row of ``...``."""

_KIND_NAMES = np.array([kind.value for kind in Kind])


def shown_rows(n: int, edge: int = EDGE) -> list[int | None]:
    """Indices of the rows shown out of ``n``: every row when there are few, else the
    first and last ``edge`` with None (the row of ``...``) between.

    Examples
    --------
    >>> shown_rows(5), shown_rows(10)
    ([0, 1, 2, 3, 4], [0, 1, 2, None, 7, 8, 9])
    """
    if n <= 2 * edge + 1:
        return list(range(n))
    return [*range(edge), None, *range(n - edge, n)]


def _table(columns: list[str], rows: list[list[Any] | None], **kwargs: Any) -> Table:
    """A Table whose None rows become rows of ``...``."""
    filled = [[...] * len(columns) if row is None else row for row in rows]
    return Table(columns, filled, **kwargs)


def _count(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1: "1 value", "2,048 values"."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _shape_text(shape: tuple[int, ...]) -> str:
    return "" if len(shape) == 1 else f" (shape {shape})"


def _index(i: int, shape: tuple[int, ...]) -> Any:
    """The position of flat index ``i``: an int for 1-d arrays, else a tuple as text."""
    if len(shape) == 1:
        return i
    return str(tuple(int(j) for j in np.unravel_index(i, shape)))


def census_table(census: Census) -> Table:
    """A census: its code range and counts per kind, and each binade beside the
    closed form :func:`fpexplore.count_between`.

    Examples
    --------
    >>> from fpexplore import float_census
    >>> c = float_census("float4_e2m1fn", progress=False)
    >>> print(census_table(c).to_records()[0])
    {'sign': 0, 'exponent field': 0, 'lo': 0.5, 'hi': 1.0, 'census': 1, 'count_between': 1, \
'agrees': True}
    """
    rows = census.compare()
    agree = sum(row.agrees for row in rows)
    kinds = ", ".join(f"{k} {n:,}" for k, n in census.by_kind().items())
    shown: list[list[Any] | None] = []
    for i in shown_rows(len(rows)):
        if i is None:
            shown.append(None)
            continue
        r = rows[i]
        shown.append(
            [r.sign, r.exponent, float(r.lo), float(r.hi), r.census, r.closed_form, r.agrees]
        )
    return _table(
        ["sign", "exponent field", "lo", "hi", "census", "count_between", "agrees"],
        shown,
        title=(
            f"{census.format.name} census of codes [{census.start:#x}, {census.stop:#x}): "
            f"{census.total:,} codes in {census.seconds:.1f} s"
        ),
        notes=[kinds, f"{agree} of {len(rows)} binades agree with count_between"],
    )


def errors_table(err: RepresentationError) -> Table:
    """Representation errors: how many values, the largest and mean errors, and the
    first and last values with their errors.

    Examples
    --------
    >>> from fpexplore import representation_error
    >>> print(representation_error([0.1, 1000.1], "float16"))
    representation error of 2 values stored in float16
    index  value   rounded    abs_error    rel_error    ulp_error
    -----  ------  ---------  -----------  -----------  ---------
        0     0.1  0.0999756  2.44141e-05  0.000244141        0.4
        1  1000.1     1000.0          0.1    9.999e-05        0.2
    max: abs_error 0.1, rel_error 0.000244, ulp_error 0.4 (finite values)
    mean: abs_error 0.05, rel_error 0.000172, ulp_error 0.3
    """
    shape = tuple(err.values.shape)
    columns = ["values", "rounded", "abs_error", "rel_error", "ulp_error"]
    flat = [np.ravel(getattr(err, name)) for name in columns]
    shown: list[list[Any] | None] = []
    for i in shown_rows(flat[0].size):
        shown.append(None if i is None else [_index(i, shape), *(float(a[i]) for a in flat)])
    s = err.summary()
    names = ("abs_error", "rel_error", "ulp_error")
    return _table(
        ["index", "value", "rounded", "abs_error", "rel_error", "ulp_error"],
        shown,
        title=(
            f"representation error of {_count(flat[0].size, 'value')}{_shape_text(shape)} "
            f"stored in {err.format.name}"
        ),
        notes=[
            "max: " + ", ".join(f"{n} {s['max_' + n]:.3g}" for n in names) + " (finite values)",
            "mean: " + ", ".join(f"{n} {s['mean_' + n]:.3g}" for n in names),
        ],
    )


def arrays_table(parts: ArrayParts) -> Table:
    """Decoded arrays: how many values of each kind, and the fields of the first and
    last ones (values computed for the rows shown only).

    Examples
    --------
    >>> import numpy as np
    >>> from fpexplore import decode_array
    >>> print(decode_array(np.array([1.0, -2.5, np.inf]), "float16"))
    3 float16 values, decoded: normal 2, inf 1
    index  code    sign  exponent  mantissa  kind    value
    -----  ------  ----  --------  --------  ------  -----
        0  0x3C00     0        15         0  normal    1.0
        1  0xC100     1        16       256  normal   -2.5
        2  0x7C00     0        31         0  inf       inf
    """
    fmt = parts.format
    shape = tuple(parts.code.shape)
    code, sign, exponent, mantissa, kind = (
        np.ravel(a) for a in (parts.code, parts.sign, parts.exponent, parts.mantissa, parts.kind)
    )
    picked = shown_rows(code.size)
    idx = np.array([i for i in picked if i is not None], dtype=np.intp)
    values = iter(K.codes_to_values(code[idx], fmt).tolist())
    names = iter(_KIND_NAMES[kind.view(np.ndarray)[idx]].tolist())
    digits = (fmt.bits + 3) // 4
    shown: list[list[Any] | None] = []
    for i in picked:
        if i is None:
            shown.append(None)
            continue
        fields = (int(sign[i]), int(exponent[i]), int(mantissa[i]))
        shown.append(
            [_index(i, shape), f"0x{int(code[i]):0{digits}X}", *fields, next(names), next(values)]
        )
    counts = np.bincount(kind.view(np.ndarray), minlength=len(Kind))
    found = ", ".join(f"{k.value} {n:,}" for k, n in zip(Kind, counts.tolist(), strict=True) if n)
    return _table(
        ["index", "code", "sign", "exponent", "mantissa", "kind", "value"],
        shown,
        title=(
            f"{_count(code.size, fmt.name + ' value')}{_shape_text(shape)}, decoded: "
            f"{found or 'none'}"
        ),
    )


def binades_table(binades: BinadeTable) -> Table:
    """A format's binades: how many, the first and last with their counts and spacing."""
    fmt = binades.format
    shown: list[list[Any] | None] = []
    for i in shown_rows(len(binades)):
        b = None if i is None else binades[i]
        shown.append(None if b is None else [b.exponent, b.lo, b.hi, b.count, b.spacing, b.kind])
    subnormal = sum(b.kind == "subnormal" for b in binades)
    span = f", 2**{binades[0].exponent} to 2**{binades[-1].exponent + 1}" if binades else ""
    return _table(
        ["exponent", "lo", "hi", "count", "spacing", "kind"],
        shown,
        title=f"{fmt.name}: {_count(len(binades), 'binade')} of positive values{span}",
        notes=[
            f"{_count(sum(b.count for b in binades), 'positive finite value')}: "
            f"{subnormal} subnormal binades, {len(binades) - subnormal} normal"
        ],
    )
