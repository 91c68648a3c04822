"""HTML rendering of a decoded value, for Jupyter (numpy only, no matplotlib).

:func:`parts_html` is what :meth:`fpexplore.FloatParts._repr_html_` returns:
the bits as boxes coloured by field, each field's integer value, the formula
with the real numbers, the exact stored value, the input and its errors, and
the neighbours.

The markup is static: inline styles only, no ``<style>`` element and no
JavaScript, so it renders the same in JupyterLab (light and dark themes), in
nbconvert exports and in GitHub-like notebook viewers. Every coloured element
sets both its background and its text colour (black or white, whichever
contrasts more); everything else inherits the page's colours, and borders are
a half-transparent grey that shows on light and dark pages alike. Everything
that comes from the user is escaped.

Examples
--------
>>> from fpexplore import decode, from_bits
>>> html = parts_html(from_bits(0x40490FDB, "float32"))
>>> html.count('class="fpx-bit')
32
>>> "4788187" in html and "<script" not in html
True
"""

from __future__ import annotations

import html as _html
from fractions import Fraction
from typing import TYPE_CHECKING

from .text import (
    FIELD_COLORS,
    ROUNDING_NAMES,
    exact_decimal,
    flags_text,
    is_huge,
    magnitude_text,
    short_repr,
    stand_in_text,
)

if TYPE_CHECKING:
    from ..core.decode import FloatParts

__all__ = ["contrast_text_color", "field_boxes_html", "parts_html"]

_BORDER = "1px solid rgba(128, 128, 128, 0.55)"
_FONT = "font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
_MONO = "font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
_MINUS = "\u2212"


def _luminance(hex_color: str) -> float:
    """WCAG relative luminance of ``#RRGGBB``."""
    channels = [int(hex_color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_text_color(background: str) -> str:
    """Black or white, whichever has the higher WCAG contrast on ``background``.

    Examples
    --------
    >>> contrast_text_color("#0072B2"), contrast_text_color("#009E73")
    ('#FFFFFF', '#000000')
    """
    lum = _luminance(background)
    on_white = 1.05 / (lum + 0.05)
    on_black = (lum + 0.05) / 0.05
    return "#FFFFFF" if on_white >= on_black else "#000000"


def _esc(value: object) -> str:
    return _html.escape(str(value), quote=True)


def _pill(text: str, field: str, *, size: str = "0.85em") -> str:
    bg = FIELD_COLORS[field]
    return (
        f'<span class="fpx-field-value fpx-{field}" style="background: {bg}; '
        f"color: {contrast_text_color(bg)}; border-radius: 4px; padding: 1px 6px; "
        f'font-size: {size}; white-space: nowrap; {_MONO}">{text}</span>'
    )


def _wrap_style(n_bits: int) -> str:
    """Short fields stay on one line; long ones (float64's 52-bit mantissa) wrap
    inside the card instead of running past its border."""
    if n_bits <= 26:
        return "white-space: nowrap;"
    return "white-space: normal; max-width: 28em;"


def field_boxes_html(parts: FloatParts) -> str:
    """The bits of ``parts`` as boxes grouped by field, each field's value below.

    One ``<span class="fpx-bit ...">`` per bit, with the bit position in its
    ``title`` (hover text).

    Examples
    --------
    >>> from fpexplore import from_bits
    >>> field_boxes_html(from_bits(0x3C00, "float16")).count('class="fpx-bit')
    16
    """
    fmt = parts.format
    sign, exponent, mantissa = fmt.split_bits(parts.code)
    groups = [
        ("sign", sign, parts.sign),  # empty in an unsigned format
        ("exponent", exponent, parts.exponent),
        ("mantissa", mantissa, parts.mantissa),
    ]
    position = fmt.bits - 1
    html_groups = []
    for field, text, value in groups:
        if not text:  # no sign bit (unsigned), no mantissa bits
            continue
        bg = FIELD_COLORS[field]
        fg = contrast_text_color(bg)
        boxes = []
        for bit in text:
            boxes.append(
                f'<span class="fpx-bit fpx-{field}" title="{field}, bit {position}" '
                f'style="display: inline-block; min-width: 1.05em; padding: 2px 1px; '
                f"margin: 0 1px 0 0; text-align: center; background: {bg}; color: {fg}; "
                f'font-weight: bold; border-radius: 2px; {_MONO}">{bit}</span>'
            )
            position -= 1
        label = f"{field} = {value}" if len(text) > 2 else f"{value}"
        html_groups.append(
            '<div style="display: inline-flex; flex-direction: column; align-items: center; '
            'margin: 0 6px 4px 0;">'
            f'<div style="{_wrap_style(len(text))}">{"".join(boxes)}</div>'
            f'<div style="margin-top: 3px;" title="{field}">{_pill(_esc(label), field)}</div>'
            "</div>"
        )
    return (
        '<div class="fpx-fields" style="display: flex; flex-wrap: wrap; align-items: flex-start; '
        f'margin: 6px 0;">{"".join(html_groups)}</div>'
    )


def _sup(text: object) -> str:
    return f"<sup>{_esc(text)}</sup>"


def _formula(parts: FloatParts) -> str:
    """``(-1)^s × 2^(e−bias) × (1 + m/2^M)`` with the numbers filled in, in HTML."""
    fmt = parts.format
    s, e, m = parts.sign, parts.exponent, parts.mantissa
    normal = parts.kind.value == "normal"
    lead = "1" if normal else "0"
    field_exp = e if normal else 1
    sign = _pill(f"({_MINUS}1){_sup(s)}", "sign", size="1em") if fmt.is_signed else "+1"
    power = _pill(f"2{_sup(f'{field_exp}{_MINUS}{fmt.bias}')}", "exponent", size="1em")
    fraction = f"{lead} + {m}/2{_sup(fmt.mantissa_bits)}"
    mantissa = _pill(f"({fraction})", "mantissa", size="1em")
    return f"{sign} × {power} × {mantissa}"


def _exact_text(x: Fraction, negative_zero: bool = False) -> str:
    text = exact_decimal(x)
    return "-0" if negative_zero and x == 0 else text


def _finite_decimal(x: Fraction) -> str | None:
    """All digits of ``x`` when its denominator is ``2**a * 5**b``, else None."""
    den, twos, fives = x.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        return None
    k = max(twos, fives)
    digits = str(abs(x.numerator) * 10**k // x.denominator).rjust(k + 1, "0")
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[:-k]}.{digits[-k:]}" if k else f"{sign}{digits}"


def _input_text(parts: FloatParts) -> str:
    given = parts.input
    described = f'<span style="{_MONO}">{_esc(short_repr(given))}</span>'
    if parts.input_exact is None or parts.input_exact == 0:
        return described
    if parts._input_given is not None:
        about = stand_in_text(parts._input_given, parts._input_sign)
        return described + f' <span style="opacity: 0.75;">({_esc(about)})</span>'
    if is_huge(parts.input_exact):
        approx = magnitude_text(parts.input_exact)
        return described + f' <span style="opacity: 0.75;">(about {approx})</span>'
    exact = _finite_decimal(parts.input_exact)
    if exact is None:
        approx = f"{float(parts.input_exact):.17g}"
        return (
            described
            + f' <span style="opacity: 0.75;">(about {approx}; no finite decimal expansion)</span>'
        )
    if exact != str(given):
        described += f' <span style="opacity: 0.75;">= exactly</span> {_long(exact)}'
    return described


def _long(text: str) -> str:
    """All the digits, wrapped anywhere so that long expansions stay in the box."""
    return f'<span style="{_MONO}; word-break: break-all;">{_esc(text)}</span>'


def _neighbour(parts: FloatParts, other: FloatParts, direction: str) -> str:
    if other.code == parts.code:
        return f"none: no value {direction} in {_esc(parts.format.name)}"
    note = ""
    if other.kind.value == "nan":
        note = " (no finite value beyond the largest one)"
    return f'{_esc(repr(other.value))} <span style="{_MONO}">({other.hex})</span>{note}'


def _row(label: str, content: str) -> str:
    return (
        '<tr><th style="text-align: left; vertical-align: top; padding: 2px 10px 2px 0; '
        f'font-weight: 600; white-space: nowrap; border: none;">{label}</th>'
        f'<td style="text-align: left; padding: 2px 0; border: none;">{content}</td></tr>'
    )


def parts_html(parts: FloatParts) -> str:
    """A self-contained HTML card for ``parts`` (what Jupyter shows for a FloatParts).

    Parameters
    ----------
    parts : FloatParts
        From :func:`fpexplore.decode` or :func:`fpexplore.from_bits`. A
        ``from_bits`` value has no input, so no error section.

    Returns
    -------
    str
        Static HTML with inline styles only.

    Examples
    --------
    >>> from fpexplore import decode
    >>> card = parts_html(decode("0.1", "float16"))
    >>> "0.0999755859375" in card  # the exact stored value, all digits
    True
    >>> "abs error" in card
    True
    """
    fmt = parts.format
    kind = parts.kind.value
    if parts.rounding is None:
        title = f"bit pattern {_esc(parts.hex)} of {_esc(fmt.name)}"
    else:
        title = (
            f'<span style="{_MONO}">{_esc(short_repr(parts.input))}</span> in {_esc(fmt.name)} '
            f'<span style="font-weight: normal; opacity: 0.75;">'
            f"({_esc(ROUNDING_NAMES.get(parts.rounding, parts.rounding))})</span>"
        )
    rows = []
    if parts.exact is not None:  # finite
        rows.append(_row("value", _formula(parts)))
        rows.append(_row("", "= " + _long(_exact_text(parts.exact, parts.sign == 1)) + " exactly"))
        if kind == "subnormal" or kind == "zero":
            rows.append(
                _row(
                    "",
                    '<span style="opacity: 0.8;">exponent field 0: no implicit leading 1, '
                    f"and the exponent is 1 {_MINUS} bias = {fmt.emin} (0.mantissa × "
                    f"2{_sup(fmt.emin)})</span>",
                )
            )
    elif kind == "inf":
        rule = _esc(fmt.special_rule("inf"))
        rows.append(_row("value", f"{'−' if parts.sign else '+'}infinity ({rule})"))
    else:
        rows.append(_row("value", f"NaN ({_esc(fmt.special_rule('nan'))})"))
        quiet = "quiet" if parts.quiet else "signalling"
        rows.append(_row("NaN", f"{quiet}, payload {parts.nan_payload}"))
    rows.append(_row("kind", _esc(kind)))
    rows.append(_row("bits", f'<span style="{_MONO}">{_esc(parts.hex)}</span>'))
    if parts.rounding is not None:
        rows.append(_row("input", _input_text(parts)))
        rows.append(
            _row(
                "error",
                f"abs error {parts.abs_error:.5g} &nbsp; rel error {parts.rel_error:.5g} "
                f"&nbsp; {parts.ulp_error:.4g} ULP "
                f'<span style="opacity: 0.75;">(ULP here: {parts.ulp:.5g})</span>',
            )
        )
        rows.append(_row("flags", _esc(flags_text(parts))))
    if kind != "nan":
        below, above = parts.next_down(), parts.next_up()
        rows.append(_row("next down", _neighbour(parts, below, "below")))
        rows.append(_row("next up", _neighbour(parts, above, "above")))
    return (
        f'<div class="fpx-parts" style="{_FONT}; display: inline-block; max-width: 100%; '
        f"box-sizing: border-box; border: {_BORDER}; border-radius: 6px; padding: 8px 12px; "
        'line-height: 1.45;">'
        f'<div style="font-weight: bold; margin-bottom: 2px;">{title}</div>'
        f"{field_boxes_html(parts)}"
        f'<table style="border-collapse: collapse; border: none; margin: 0;">'
        f"{''.join(rows)}</table></div>"
    )
