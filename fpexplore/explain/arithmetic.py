"""An operation explained the way a textbook lays it out, as text and as HTML.

The steps of :class:`~fpexplore.arith.arithmetic.Operation`: each operand rounded
into the format (when it was not one of its values), the operands in binary
scientific notation, the exponent alignment (which operand shifts, by how many
places), the exact result, normalization, the guard / round / sticky bits that
rounding drops (defined where they first appear), the rounding decision and its
reason (from :func:`~fpexplore.core.rounding_explain.explain_rounding`), the
result and the IEEE flags. Every line is an equation about this operation's
numbers that a reader can check (the tests parse the text and recompute each
line with Fractions: ``tests/explain_check.py``). The HTML form adds the field boxes of the operands
and the result (:func:`~fpexplore.render.html.field_boxes_html`) and the number
line of the rounding.

Examples
--------
>>> from fpexplore import add
>>> print(operation_text(add("1.5", "0.375", "float8_e5m2")))
1.5 + 0.375 in float8_e5m2 (round to nearest, ties to even)
  a          = +1.10 x 2^0   (1.5, 0x3E)
  b          = +1.10 x 2^-2   (0.375, 0x36)
  align      b has the smaller exponent: shift its significand right 2 places, to 2^0
  b          = +0.0110 x 2^0
  add        (+1.10 + 0.0110) x 2^0 = +1.1110 x 2^0
  exact      = 1.875
  round      keep 2 bits after the point: +1.11|1 x 2^0
             guard bit 1 (the first bit dropped), round bit 0 (the next), sticky bit 0 (the OR of
               all later bits)
             guard 1, round 0, sticky 0: exactly halfway (a tie); ties to even takes the neighbour
               whose last mantissa bit is 0 -> away from zero
  result     = +1.00 x 2^1 = 2.0   (0x40)
  error      abs 0.125   rel 0.066667   0.5 ULP
  flags      inexact
"""

from __future__ import annotations

import html
import textwrap
from fractions import Fraction
from typing import TYPE_CHECKING

from ..core.rounding_explain import explain_rounding
from ..exact import FLAGS, ROUNDING_NAMES
from ..render.html import field_boxes_html
from ..render.text import exact_decimal
from .arithmetic_round import no_value, round_lines, sign_lines, special_line, zero_line
from .arithmetic_steps import (
    NAMES,
    compute_lines,
    exact_text,
    lead_exponent,
    loud_operands,
    operand_lines,
)
from .binary import sci

if TYPE_CHECKING:
    from ..arith.arithmetic import Operation

__all__ = ["operation_html", "operation_steps", "operation_text"]


def operation_steps(op: Operation) -> list[tuple[str, str]]:
    """The explanation as (label, text) pairs, one per line."""
    steps = operand_lines(op)
    if op.op in ("neg", "abs"):
        steps.extend(sign_lines(op))
    elif op.exact is None:  # NaN, an infinity, an invalid operation, x / 0
        steps.append(special_line(op))
    else:
        steps.extend(compute_lines(op))
        steps.append(("exact", exact_text(op)))
        if op.exact == 0:
            steps.append(zero_line(op))
        elif "invalid" in op.flags:  # a negative result in unsigned E8M0
            steps.append(("special", no_value(op)))
        else:
            steps.extend(round_lines(op))
    r = op.parts
    if r.is_finite and r.exact != 0:
        written = sci(
            r.exact if r.exact is not None else Fraction(0),
            lead_exponent(r),
            op.format.mantissa_bits,
        )
        steps.append(("result", f"= {written} = {r.value!r}   ({r.hex})"))
    else:
        steps.append(("result", f"= {r.value!r}   ({r.hex})"))
    if op.exact is not None and r.is_finite and op.op not in ("neg", "abs"):
        error = f"abs {r.abs_error:.5g}   rel {r.rel_error:.5g}   {r.ulp_error:.4g} ULP"
        steps.append(("error", error))
    flags = ", ".join(f for f in FLAGS if f in op.flags) or "none"
    operands = loud_operands(op)
    steps.append(("flags", f"{flags} (this operation); {operands}" if operands else flags))
    return steps


def _title(op: Operation) -> str:
    mode = ROUNDING_NAMES.get(op.rounding, op.rounding)
    saturating = "; overflow saturates" if op.overflow == "saturate" else ""
    return f"{op.expression} in {op.format.name} ({mode}{saturating})"


def operation_text(op: Operation) -> str:
    """The steps as plain text (what ``print(op)`` shows)."""
    lines = [_title(op)]
    for label, text in operation_steps(op):
        wrapped = [text]
        if len(text) > 86:  # words (binary strings among them) are never split
            wrapped = textwrap.wrap(
                text, 86, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
            )
        lines.append(f"  {label:<10} {wrapped[0]}")
        lines.extend(f"  {'':<10} {more}" for more in wrapped[1:])
    return "\n".join(lines)


def operation_html(op: Operation) -> str:
    """The steps as static HTML: field boxes of operands and result, each step a
    row, the rounding's number line, the flags."""
    esc = html.escape
    rows = "".join(
        f'<tr><th style="text-align:left;padding:1px 10px 1px 0;white-space:nowrap">'
        f'{esc(label)}</th><td style="text-align:left;font-family:monospace">{esc(text)}</td></tr>'
        for label, text in operation_steps(op)
    )
    boxes = "".join(
        f"<div>{name} = {esc(repr(p.value))}{field_boxes_html(p)}</div>"
        for name, p in zip(NAMES, op.operands, strict=False)
    )
    boxes += f"<div>result = {esc(repr(op.value))}{field_boxes_html(op.parts)}</div>"
    picture = ""
    if (
        op.exact is not None
        and op.exact != 0
        and op.rounding != "stochastic"
        and op.op not in ("neg", "abs")
    ):
        exact = op.exact
        dyadic = not exact.denominator & (exact.denominator - 1)
        label = exact_decimal(exact) if dyadic else None  # the same number, read exactly
        given = label if label is not None and len(label) <= 30 else exact
        picture = explain_rounding(given, op.format, op.rounding, overflow=op.overflow).to_svg()
    flags = "".join(
        f'<span class="fpx-flag" style="border:1px solid rgba(128,128,128,0.55);'
        f'border-radius:4px;padding:1px 6px;margin-right:4px">{f}</span>'
        for f in FLAGS
        if f in op.flags
    )
    loud = loud_operands(op)  # as the text's flags line: "on the way in: a overflow"
    way_in = f" ({'this operation; ' if flags else ''}{loud})" if loud else ""
    return (
        f'<div class="fpx-operation" style="border:1px solid rgba(128,128,128,0.55);'
        f'border-radius:6px;padding:8px 12px">'
        f"<div style='font-weight:bold'>{esc(_title(op))}</div>{boxes}"
        f"<table>{rows}</table>{picture}<div>flags: {flags or 'none'}{esc(way_in)}</div></div>"
    )
