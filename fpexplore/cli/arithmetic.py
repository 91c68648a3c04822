"""The command line's arithmetic: ``fpexplore "0.1 + 0.2" -f bfloat16``.

One operation (see :mod:`fpexplore.cli.expression`) computed in one format is
explained step by step; in several formats (``-f all``) it becomes a table of
results, each shown with the fewest digits that read back as it in its format;
``--json`` gives records. An operand that the format cannot hold (it overflows on
the way in, or has no NaN to become) is flagged where it happens. When no chosen
format can compute the operation, that is one error line (exit status 2), with or
without ``--json``.

Examples
--------
>>> from fpexplore import get_format
>>> record = operation_record(compute("add", ("0.1", "0.2"), get_format("bfloat16")))
>>> record["value"], record["hex"], record["flags"]
(0.30078125, '0x3E9A', ['inexact'])
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..arith import arithmetic
from ..arith.operation import Operation
from ..core.decode import FloatParts, decode
from ..exact import FLAGS, parse_real
from ..formats import Format
from ..render.table import Table
from ..render.text import exact_decimal, is_huge, shortest_decimal
from .expression import operand_value
from .output import UsageError, json_number, parts_record

__all__ = [
    "check_operands",
    "compute",
    "compute_all",
    "operation_record",
    "operation_table",
    "result_text",
]

NAMES = "abc"
_LOUD = ("overflow", "invalid", "underflow")  # an operand's flags worth a word in a table


def check_operands(operands: tuple[str, ...]) -> None:
    """Read every operand once, whatever the format: a typo is one error, not one per format."""
    for text in operands:
        value = operand_value(text)
        if isinstance(value, str):
            parse_real(value)


def _operand(text: str, fmt: Format, rounding: str, overflow: str | None) -> Any:
    value = operand_value(text)
    if isinstance(value, str):
        return value
    return replace(decode(value, fmt, rounding, overflow=overflow), input=text)  # a power


def compute(
    op: str,
    operands: tuple[str, ...],
    fmt: Format,
    rounding: str = "nearest_even",
    overflow: str | None = None,
) -> Operation:
    """Run one operation on operand strings (taken exactly) in ``fmt``."""
    values = [_operand(text, fmt, rounding, overflow) for text in operands]
    return getattr(arithmetic, op)(*values, fmt, rounding, overflow=overflow)


def compute_all(
    op: str,
    operands: tuple[str, ...],
    formats: list[Format],
    rounding: str = "nearest_even",
    overflow: str | None = None,
) -> tuple[list[Operation], list[dict[str, str]]]:
    """The operation in each format, and one ``{"format", "error"}`` for each format that
    cannot compute it (an invalid operation, or a NaN operand, in a format without NaN).

    Raises
    ------
    UsageError
        When every format refuses, naming each one's reason.
    """
    check_operands(operands)
    results, refused = [], []
    for fmt in formats:
        try:
            results.append(compute(op, operands, fmt, rounding, overflow))
        except ValueError as err:
            refused.append({"format": fmt.name, "error": str(err)})
    if not results:
        reasons = "; ".join(f"{r['format']}: {r['error']}" for r in refused[:4])
        more = f"; and {len(refused) - 4} more" if len(refused) > 4 else ""
        raise UsageError(f"no chosen format can compute this: {reasons}{more}")
    return results, refused


def _exact_text(op: Operation) -> str | None:
    if op.exact is None:
        return None
    if op.exact.denominator & (op.exact.denominator - 1) or op.approximate:
        return f"{float(op.exact)!r}..."
    if op.exact == op.parts.exact:
        return parts_record(op.parts)["exact"]  # "-0" where the stored zero has a sign
    return str(op.exact) if is_huge(op.exact) else exact_decimal(op.exact)


def _operand_record(p: FloatParts) -> dict[str, Any]:
    return {
        "input": p.input if isinstance(p.input, str) else repr(p.input),
        "value": json_number(p.value),
        "hex": p.hex,
        "rounded": bool(p.flags & {"inexact", "invalid"}),
        "abs_error": json_number(p.abs_error),
        "rel_error": json_number(p.rel_error),
        "flags": [f for f in FLAGS if f in p.flags],
    }


def operation_record(op: Operation) -> dict[str, Any]:
    """A JSON-friendly dict: the operation, its operands as stored (with the flags and
    error of rounding each into the format), the exact and stored results, the errors
    and the flags of the operation itself."""
    return {
        "expression": op.expression,
        "operation": op.op,
        "format": op.format.name,
        "rounding": op.rounding,
        "operands": [_operand_record(p) for p in op.operands],
        "exact": _exact_text(op),
        "value": json_number(op.value),
        "hex": op.parts.hex,
        "bits": op.parts.bits,
        "abs_error": json_number(op.abs_error),
        "rel_error": json_number(op.rel_error),
        "ulp_error": json_number(op.ulp_error),
        "flags": [f for f in FLAGS if f in op.flags],
    }


def _flags_cell(op: Operation) -> str:
    own = [f for f in FLAGS if f in op.flags]
    for name, p in zip(NAMES, op.operands, strict=False):
        loud = [f for f in FLAGS if f in p.flags and f in _LOUD]
        if loud:
            own.append(f"{name}: {', '.join(loud)}")
    return ", ".join(own) or "-"


def _operand_notes(op: Operation) -> list[str]:
    notes = []
    for name, p in zip(NAMES, op.operands, strict=False):
        if "overflow" in p.flags:
            notes.append(
                f"{op.format.name}: {name} = {p.input} is above the largest value, "
                f"{op.format.max:g}: stored as {p.value!r} (error {p.abs_error:.3g})"
            )
    return notes


_EXACT_DIGITS = 6  # a stored value with this many significant digits or fewer is shown exactly


def result_text(parts: FloatParts) -> str:
    """The stored value exactly when it has at most 6 significant digits, else the
    shortest decimal that reads back as it in its format (so formats differ visibly:
    1.4142135623730951 in float64, 1.4142135 in float32, 1.375 in float8_e4m3fn).

    >>> from fpexplore import decode
    >>> [result_text(decode(2**0.5, f)) for f in ("float32", "bfloat16", "e4m3")]
    ['1.4142135', '1.414', '1.375']
    """
    exact = parts.exact
    if exact is not None and exact != 0:
        digits = parts_record(parts)["exact"].lstrip("-0.").replace(".", "")
        if len(digits) <= _EXACT_DIGITS and 1e-4 <= abs(exact) < 1e16:
            return repr(parts.value)
    return shortest_decimal(parts)


class _Shown(float):
    """A result cell: a number (right-aligned) shown as :func:`result_text` writes it."""

    text: str

    def __new__(cls, parts: FloatParts) -> _Shown:
        cell = super().__new__(cls, parts.value)
        cell.text = result_text(parts)
        return cell


def _row_error(op: Operation) -> float:
    """The row's relative error: the operation's own, or inf where an operand overflowed
    to infinity (the result then stands for no finite value near the exact one)."""
    for p in op.operands:
        if "overflow" in p.flags and math.isinf(p.abs_error):
            return math.inf
    return op.rel_error


def operation_table(ops: list[Operation]) -> Table:
    """One row per format: the result (see :func:`result_text`), its bits, its relative
    error (inf where an operand overflowed to infinity, as the note below says) and
    the flags (an operand's too, marked ``a:``)."""
    rows = [
        (op.format.name, _Shown(op.parts), op.parts.hex, _row_error(op), _flags_cell(op))
        for op in ops
    ]
    title = f"{ops[0].expression} ({ops[0].rounding})"
    notes = [note for op in ops for note in _operand_notes(op)]
    return Table(
        ["format", "result", "bits", "rel error", "flags"],
        rows,
        title=title,
        notes=notes,
        formatters={"result": lambda cell: cell.text},
    )
