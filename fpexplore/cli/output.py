"""Helpers of the command line: colour choice, JSON records, counting text.

Kept apart from :mod:`fpexplore.cli` (argument parsing and dispatch) so each
stays small; nothing here reads ``sys.argv``.

Examples
--------
>>> from fpexplore import decode
>>> record = parts_record(decode("3.14159", "float32"))
>>> record["sign"], record["exponent"], record["mantissa"], record["hex"]
(0, 128, 4788176, '0x40490FD0')
>>> json_number(float("inf")), json_number(0.5)
('inf', 0.5)
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ..core.density import count_between
from ..exact import FLAGS
from ..render.table import Table
from ..render.text import exact_decimal, short_repr
from .jsonout import json_number

if TYPE_CHECKING:
    from ..core.decode import FloatParts
    from ..formats import Format

__all__ = [
    "DEFAULT_FORMAT",
    "PROG",
    "UsageError",
    "UsageParser",
    "count_record",
    "count_text",
    "json_number",
    "parts_record",
    "use_color",
    "wrap_columns",
]

DEFAULT_FORMAT = "float32"
"""The format used without ``-f``: the book's examples (pi, claim 9) are float32."""

PROG = "fpexplore"


class UsageError(Exception):
    """Bad input: reported as one line on stderr, with exit status 2."""


class UsageParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`UsageError` (argparse would
    print its usage and exit by itself)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def use_color(choice: str, stream: TextIO) -> bool:
    """Whether to paint the output with ANSI colours.

    ``"always"`` and ``"never"`` decide alone (a command-line choice overrides
    the environment, as https://no-color.org asks). ``"auto"`` colours only a
    terminal, and not when ``NO_COLOR`` is set to a non-empty value or
    ``TERM`` is ``dumb``.
    """
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def parts_record(parts: FloatParts) -> dict[str, Any]:
    """A JSON-friendly dict of a decoded value.

    Numbers that may be infinite or NaN are given as strings then; ``exact``
    is the stored value's full decimal expansion (None for inf/NaN). The error
    fields are None for a bit pattern, which involves no rounding; ``flags`` are
    the IEEE flags of the rounding (empty for a bit pattern).
    """
    from_bits = parts.rounding is None
    exact = parts.exact
    finite = parts.is_finite
    return {
        "format": parts.format.name,
        "input": parts.input if isinstance(parts.input, str) else short_repr(parts.input),
        "rounding": parts.rounding,
        "sign": parts.sign,
        "exponent": parts.exponent,
        "mantissa": parts.mantissa,
        "bits": parts.bits,
        "hex": parts.hex,
        "kind": parts.kind.value,
        "value": json_number(parts.value),
        "exact": None if exact is None else _signed_decimal(exact, parts.sign),
        "abs_error": None if from_bits else json_number(parts.abs_error),
        "rel_error": None if from_bits else json_number(parts.rel_error),
        "ulp_error": None if from_bits else json_number(parts.ulp_error),
        "ulp": json_number(parts.ulp) if finite else None,
        "next_up": json_number(parts.next_up().value),
        "next_down": json_number(parts.next_down().value),
        "quiet": parts.quiet,
        "nan_payload": parts.nan_payload,
        "flags": [f for f in FLAGS if f in parts.flags],
    }


def _signed_decimal(x: Fraction, sign: int) -> str:
    text = exact_decimal(x)
    return "-0" if sign and x == 0 else text


def count_record(
    lo: str, hi: str, fmt: Format, *, exact: Sequence[Any] | None = None
) -> dict[str, Any]:
    """How many values of ``fmt`` lie in ``[lo, hi)``, next to the count of a
    normal binade (``2**mantissa_bits``). ``exact``: the bounds' values where they are
    not the text as typed (a power such as ``2**-24``)."""
    low, high = (lo, hi) if exact is None else exact
    count = count_between(low, high, fmt)
    per_binade = 2**fmt.mantissa_bits
    return {
        "format": fmt.name,
        "lo": lo,
        "hi": hi,
        "count": count,
        "per_normal_binade": per_binade,
        "binades": float(Fraction(count, per_binade)),
    }


def count_text(records: list[dict[str, Any]]) -> str:
    """Text for one or more :func:`count_record` results.

    Examples
    --------
    >>> from fpexplore import get_format
    >>> print(count_text([count_record("3", "4", get_format("float32"))]))
    4194304 values of float32 lie in [3, 4)
    each normal binade of float32 holds 2**23 = 8388608 values; this is 0.5 times that
    """
    if len(records) == 1:
        (r,) = records
        m = r["per_normal_binade"].bit_length() - 1
        text = f"{r['count']} values of {r['format']} lie in [{r['lo']}, {r['hi']})"
        if r["count"]:
            text += (
                f"\neach normal binade of {r['format']} holds 2**{m} = "
                f"{r['per_normal_binade']} values; this is {r['binades']:g} times that"
            )
        return text
    header = (
        "format",
        f"values in [{records[0]['lo']}, {records[0]['hi']})",
        "per binade",
        "ratio",
    )
    rows = [header] + [
        (
            r["format"],
            str(r["count"]),
            f"2**{r['per_normal_binade'].bit_length() - 1}",
            f"{r['binades']:g}",
        )
        for r in records
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines.append("per binade: values in each normal binade [2**e, 2**(e+1)); ratio: count / that")
    return "\n".join(lines)


def wrap_columns(table: Table, width: int) -> str:
    """``table`` as text no wider than ``width``: its first column, then as many of the
    other columns as fit, repeated in as many pieces as it takes (one column per piece
    at least, however narrow the terminal).

    Examples
    --------
    >>> t = Table(["property", "a", "b"], [["bits", 16, 8], ["max", 65504.0, 448.0]])
    >>> print(wrap_columns(t, 20))
    property  a
    --------  -------
    bits           16
    max       65504.0
    <BLANKLINE>
    property  b
    --------  -----
    bits          8
    max       448.0
    """
    cells = table.cell_strings()
    widths = [max([len(name), *(len(row[j]) for row in cells)])
              for j, name in enumerate(table.columns)]  # fmt: skip
    pieces: list[list[int]] = [[]]
    used = widths[0]
    for j in range(1, len(table.columns)):
        if pieces[-1] and used + 2 + widths[j] > width:
            pieces.append([])
            used = widths[0]
        pieces[-1].append(j)
        used += 2 + widths[j]
    texts = []
    for number, piece in enumerate(pieces):
        keep = [0, *piece]
        part = Table(
            [table.columns[j] for j in keep],
            [[row[j] for j in keep] for row in table.rows],
            title=table.title if number == 0 else None,
            notes=table.notes if number == len(pieces) - 1 else [],
            formatters=table.formatters,
        )
        texts.append(str(part))
    return "\n\n".join(texts)
