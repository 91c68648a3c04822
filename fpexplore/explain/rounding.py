"""How a :class:`~fpexplore.core.rounding_explain.RoundingExplanation` looks: an SVG number line
and an HTML table, both static (no JavaScript), for notebooks and the widgets."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ..exact import to_float
from ..render.text import ROUNDING_NAMES, short_repr

if TYPE_CHECKING:
    from ..core.decode import FloatParts
    from ..core.rounding_explain import RoundingExplanation

__all__ = ["to_html", "to_svg"]


def to_html(ex: RoundingExplanation) -> str:
    """The picture, the dropped bits and a table of every mode's pick (the selected
    one in bold), as static HTML (see RoundingExplanation._repr_html_)."""
    esc, result = html.escape, ex.result
    rows = []
    for mode, choice in ex.choices.items():
        style = ' style="font-weight:bold;background:rgba(213,94,0,0.12)"'
        cells: tuple[str, ...] = (
            ROUNDING_NAMES[mode],
            repr(choice.result.value),
            choice.picks,
            choice.reason,
        )
        tds = "".join(f'<td style="text-align:left">{esc(c)}</td>' for c in cells)
        rows.append(f"<tr{style if mode == ex.rounding else ''}>{tds}</tr>")
    p_above = ex.probability_above
    picks = "exact" if p_above is None else "below or above"
    cells = (ROUNDING_NAMES.get("stochastic", "stochastic"), "random", picks)
    tds = "".join(f'<td style="text-align:left">{esc(c)}</td>' for c in cells)
    tds += f'<td style="text-align:left">{esc(ex._stochastic_line())}</td>'
    rows.append(f"<tr{style if ex.rounding == 'stochastic' else ''}>{tds}</tr>")
    where = "; ".join(ex._where())
    error = ""
    if result.abs_error == result.abs_error:  # not NaN
        error = (
            f"<div>{esc(ex.rounding)} gives {esc(repr(result.value))}: abs error "
            f"{result.abs_error:.5g}, rel error {result.rel_error:.5g}, "
            f"{result.ulp_error:.4g} ULP</div>"
        )
    head = "<tr><th>mode</th><th>result</th><th>picks</th><th>why</th></tr>"
    return (
        f'<div class="fpx-rounding">{to_svg(ex)}<div>{esc(short_repr(ex.input))} in '
        f"{esc(ex.format.name)}: {esc(where)}</div>{error}"
        f"<table>{head}{''.join(rows)}</table></div>"
    )


def _fmt_value(parts: FloatParts) -> str:
    return f"{parts.value:.6g}"


def to_svg(ex: RoundingExplanation, width: int = 560) -> str:
    """The number line between the neighbours (see RoundingExplanation.to_svg)."""
    left, right, y = 40, width - 40, 48
    stochastic = ex.rounding == "stochastic"
    picked = ex.choices["nearest_even" if stochastic else ex.rounding]
    p_above = ex.probability_above if stochastic else None
    esc = html.escape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="110" '
        f'viewBox="0 0 {width} 110" font-family="sans-serif" font-size="12" '
        'class="fpx-rounding-line">',
        f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="currentColor"/>',
    ]
    if ex.is_exact:
        mid = (left + right) / 2
        label = esc(_fmt_value(ex.below))
        parts.append(_tick(mid, y, "#009E73", f"{label} (exact)", bold=True))
        return "".join(parts) + "</svg>"
    assert ex.exact is not None and ex.position is not None  # a finite input
    negative = ex.exact < 0
    span = right - left
    pos = min(to_float(ex.position), 1.25)
    frac_x = (1 - pos) if negative else pos  # position from the left end, in value order
    x_at = left + span * (frac_x if pos < 1 else (-0.08 if negative else 1.08))
    for where, parts_ in (("below", ex.below), ("above", ex.above)):
        px = left if where == "below" else right
        chosen = picked.picks == where
        label = esc(_fmt_value(parts_)) if parts_.is_finite else esc(repr(parts_.value))
        if p_above is not None:  # stochastic: each neighbour with its probability
            chance = ex._chance_text(where == "above")
            chosen, label = True, f"{label} (p = {esc(chance)})"
        parts.append(_tick(px, y, "#D55E00" if chosen else "currentColor", label, bold=chosen))
    half = (left + right) / 2
    parts.append(
        f'<line x1="{half}" y1="{y - 10}" x2="{half}" y2="{y + 10}" stroke="gray" '
        f'stroke-dasharray="3,3"/><text x="{half}" y="{y + 26}" text-anchor="middle" '
        'fill="gray">halfway</text>'
    )
    x_at = max(4, min(width - 4, x_at))
    parts.append(
        f'<path d="M {x_at - 6} {y - 22} L {x_at + 6} {y - 22} L {x_at} {y - 10} Z" '
        f'fill="#0072B2"/><text x="{x_at}" y="{y - 27}" text-anchor="middle" fill="#0072B2">'
        f"x = {esc(short_repr(ex.input, 40))}</text>"
    )
    if picked.picks == "beyond" and not stochastic:
        parts.append(
            f'<text x="{width / 2}" y="{y + 50}" text-anchor="middle" fill="#D55E00">'
            f"{esc(ex.rounding)}: {esc(repr(picked.result.value))} (overflow)</text>"
        )
    return "".join(parts) + "</svg>"


def _tick(px: float, y: float, colour: str, label: str, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    dot = f'<circle cx="{px}" cy="{y}" r="5" fill="{colour}"/>' if bold else ""
    return (
        f'<line x1="{px}" y1="{y - 14}" x2="{px}" y2="{y + 14}" stroke="{colour}" '
        f'stroke-width="2"/>{dot}<text x="{px}" y="{y + 42}" text-anchor="middle" '
        f'fill="{colour}"{weight}>{label}</text>'
    )
