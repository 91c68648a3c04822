"""How a sum or dot product (:class:`~fpexplore.arith.accumulate.Accumulation`) reads:
the result, the exact sum, the error, and why the order and accumulator matter."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ..render.text import short_repr

if TYPE_CHECKING:
    from ..arith.accumulate import Accumulation

__all__ = ["accumulation_html", "accumulation_lines", "accumulation_text"]

_ORDER_NOTES = {
    "sequential": "one running sum, each value added to it in turn",
    "pairwise": "sums of halves, recursively: partial sums meet values of their own size",
    "kahan": "a running sum plus a compensation term that carries each rounding error forward",
}


def _exact_text(r: Accumulation) -> str:
    if r.exact is None:
        return "undefined (an input is inf or NaN)"
    if r.exact.denominator == 1:
        return short_repr(int(r.exact))
    approx = float(r.exact)
    return f"{approx!r} (exactly)" if approx == r.exact else f"~ {approx:.17g}"


def accumulation_lines(r: Accumulation) -> list[str]:
    """The explanation, one line each (shared by the text and HTML forms)."""
    what = "sum" if r.kind == "sum" else "dot product"
    lines = [
        f"{what} of {r.n} values in {r.format.name}, accumulated in {r.accumulate.name}, "
        f"{r.order} order ({_ORDER_NOTES[r.order]})",
        f"  result   {r.value!r}",
        f"  exact    {_exact_text(r)}",
        f"  error    abs {r.abs_error:.5g}   rel {r.rel_error:.5g}",
    ]
    if r.stored_exact is not None and r.exact is not None and r.stored_exact != r.exact:
        lines.append(
            f"  inputs   rounding the values into {r.format.name} alone moves the exact "
            f"sum to {float(r.stored_exact):.17g}"
        )
    if r.absorbed_at is not None:
        lines.append(
            f"  stalled  from element {r.absorbed_at} on, adding a value to the running sum "
            f"{r.absorbed_sum!r} changed nothing: the value is at most half the spacing of "
            f"{r.accumulate.name} there, so the sum rounds back to itself (absorption)"
        )
    return lines


def accumulation_text(r: Accumulation) -> str:
    """The plain-text explanation (what ``print(fpx.sum(...))`` shows)."""
    return "\n".join(accumulation_lines(r))


def accumulation_html(r: Accumulation) -> str:
    """The same lines as static HTML."""
    rows = "".join(f"<div>{html.escape(line.strip())}</div>" for line in accumulation_lines(r))
    return f'<div class="fpx-accumulation" style="font-family: monospace">{rows}</div>'
