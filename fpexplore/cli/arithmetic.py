"""The command line's arithmetic: ``fpexplore "0.1 + 0.2" -f bfloat16``.

One operation (see :mod:`fpexplore.cli.expression`) computed in one format is
explained step by step; in several formats (``-f all``) it becomes a table of
results; ``--json`` gives records.

Examples
--------
>>> from fpexplore import get_format
>>> record = operation_record(compute("add", ("0.1", "0.2"), get_format("bfloat16")))
>>> record["value"], record["hex"], record["flags"]
(0.30078125, '0x3E9A', ['inexact'])
"""

from __future__ import annotations

from typing import Any

from ..arith import arithmetic
from ..arith.operation import Operation
from ..exact import FLAGS
from ..formats import Format
from ..render.table import Table
from .output import json_number, parts_record

__all__ = ["compute", "operation_record", "operation_table"]


def compute(
    op: str,
    operands: tuple[str, ...],
    fmt: Format,
    rounding: str = "nearest_even",
    overflow: str | None = None,
) -> Operation:
    """Run one operation on operand strings (taken exactly) in ``fmt``."""
    return getattr(arithmetic, op)(*operands, fmt, rounding, overflow=overflow)


def _exact_text(op: Operation) -> str | None:
    if op.exact is None:
        return None
    if op.exact.denominator & (op.exact.denominator - 1) or op.approximate:
        return f"{float(op.exact)!r}..."
    return parts_record(op.parts)["exact"] if op.exact == op.parts.exact else str(op.exact)


def operation_record(op: Operation) -> dict[str, Any]:
    """A JSON-friendly dict: the operation, its operands as stored, the exact and
    stored results, the errors and the flags."""
    return {
        "expression": op.expression,
        "operation": op.op,
        "format": op.format.name,
        "rounding": op.rounding,
        "operands": [
            {
                "input": p.input if isinstance(p.input, str) else repr(p.input),
                "value": json_number(p.value),
                "hex": p.hex,
                "rounded": bool(p.error) if p.error is not None else False,
            }
            for p in op.operands
        ],
        "exact": _exact_text(op),
        "value": json_number(op.value),
        "hex": op.parts.hex,
        "bits": op.parts.bits,
        "abs_error": json_number(op.abs_error),
        "rel_error": json_number(op.rel_error),
        "ulp_error": json_number(op.ulp_error),
        "flags": [f for f in FLAGS if f in op.flags],
    }


def operation_table(ops: list[Operation]) -> Table:
    """One row per format: the result, its bits, its error and the flags."""
    rows = [
        (
            op.format.name,
            op.value,
            op.parts.hex,
            op.rel_error,
            ", ".join(f for f in FLAGS if f in op.flags) or "-",
        )
        for op in ops
    ]
    title = f"{ops[0].expression} ({ops[0].rounding})"
    return Table(["format", "result", "bits", "rel error", "flags"], rows, title=title)
