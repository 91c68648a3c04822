"""The lesson's handout on paper: one standalone HTML page, ready to print on one A4 sheet.

``python -m fpexplore.course.handout`` writes ``handout.html`` (``--output`` to choose;
``--language ru`` writes the Russian edition's, ``handout-ru.html``, with the same numbers):
the bit layout of four formats drawn as boxes (−6.5 stored in each), the formats' numbers,
the facts to remember and the course's glossary. Every number is computed by fpexplore
when the page is written; the page needs no network, no MathJax and no docs build. Open
it in a browser and print it (Chromium prints it on one page).

Examples
--------
>>> page = handout_html()
>>> page.startswith("<!DOCTYPE html>") and "65504" in page and "in the normal range" in page
True
"""

from __future__ import annotations

import argparse
import html
import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from ..core.decode import decode
from ..formats import get_format
from ..mixed import stall_point
from . import russian_text
from .glossary import GLOSSARIES

__all__ = [
    "FIELD_NAMES",
    "HANDOUT_FORMATS",
    "LAYOUT_FORMATS",
    "PAGE",
    "bit_layout_svg",
    "handout_html",
    "handout_numbers",
    "main",
]

HANDOUT_FORMATS = {
    "float64": "double",
    "float32": "single",
    "bfloat16": "brain float",
    "float16": "half",
    "float8_e4m3fn": "FP8 E4M3",
    "float8_e5m2": "FP8 E5M2",
}
"""The formats of the handout's table, widest first, with the name people use."""
LAYOUT_FORMATS = ("float32", "bfloat16", "float16", "float8_e4m3fn")
"""The formats whose bits the handout draws."""
EXAMPLE = -6.5
"""The value the bit layouts show."""

_COLOURS = {"sign": "#d62728", "exponent": "#1f77b4", "mantissa": "#2ca02c"}


def _power(value: float) -> str:
    """``value`` as HTML: ``2<sup>-24</sup> ≈ 5.96e-08`` for a power of two, else its
    shortest form."""
    exact = Fraction(value)
    num, den = exact.numerator, exact.denominator
    short = f"{value:.3g}".replace("e+", "e")
    if num > 0 and num & (num - 1) == 0 and den == 1 and num > 16:
        return f"2<sup>{num.bit_length() - 1}</sup> ≈ {short}"
    if num == 1 and den & (den - 1) == 0 and den > 1:
        return f"2<sup>−{den.bit_length() - 1}</sup> ≈ {short}"
    return f"{value:.6g}"


FIELD_NAMES = {
    "en": {"sign": "sign", "exponent": "exponent", "mantissa": "mantissa"},
    "ru": {"sign": "знак", "exponent": "порядок", "mantissa": "мантисса"},
}
"""The names the bit layouts give the fields, by language."""


def bit_layout_svg(
    names: Sequence[str] = LAYOUT_FORMATS, value: float = EXAMPLE, language: str = "en"
) -> str:
    """An SVG picture: one row of boxes per format, a box per bit of ``value`` stored in
    it, coloured sign, exponent and mantissa, with the fields named under each row (in
    ``language``, ``"en"`` or ``"ru"``)."""
    cell, gap, left, row = 12.0, 2.0, 84.0, 27.0
    width = left + 32 * cell + 8
    label = "bit layouts of" if language == "en" else "битовое устройство"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{row * len(names) + 4:.0f}" role="img" '
        f'aria-label="{label} {", ".join(names)}">'
    ]
    for k, name in enumerate(names):
        fmt, parts_ = get_format(name), decode(value, name)
        y = k * row + 2
        bits = parts_.bits.replace(" ", "")
        fields = ["sign"] + ["exponent"] * fmt.exponent_bits + ["mantissa"] * fmt.mantissa_bits
        parts.append(f'<text x="0" y="{y + 11:.0f}" font-size="10">{html.escape(name)}</text>')
        for i, (bit, field) in enumerate(zip(bits, fields, strict=True)):
            x = left + i * cell
            parts.append(
                f'<rect x="{x:.0f}" y="{y:.0f}" width="{cell - 1:.0f}" height="14" '
                f'fill="{_COLOURS[field]}" fill-opacity="0.25" stroke="{_COLOURS[field]}"/>'
                f'<text x="{x + cell / 2 - 0.5:.1f}" y="{y + 11:.0f}" font-size="10" '
                f'text-anchor="middle">{bit}</text>'
            )
        spans = (
            ("sign", 0, 1),
            ("exponent", 1, fmt.exponent_bits),
            ("mantissa", 1 + fmt.exponent_bits, fmt.mantissa_bits),
        )
        for field, first, size in spans:
            x = left + (first + size / 2) * cell
            word = FIELD_NAMES[language][field]
            # a field too narrow for its name gets its initial: s, e4, m3
            text = f"{word} {size}" if size * cell >= 60 else f"{word[0]}{size if size > 1 else ''}"
            parts.append(
                f'<text x="{x:.1f}" y="{y + 14 + gap + 8:.0f}" font-size="8" '
                f'text-anchor="middle" fill="{_COLOURS[field]}">{text}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _format_rows(common: dict[str, str]) -> str:
    rows = []
    for name in HANDOUT_FORMATS:
        f = get_format(name)
        cells = [
            f"<code>{name}</code> ({common[name]})",
            f"{f.bits}: 1, {f.exponent_bits}, {f.mantissa_bits}",
            str(f.bias),
            f"{f.max:.6g}",
            _power(f.smallest_normal),
            _power(f.smallest_subnormal),
            _power(f.eps),
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join(rows)


_CSS = """
@page { size: A4; margin: 11mm 12mm; }
body { font: 8pt/1.28 system-ui, "DejaVu Sans", Arial, sans-serif; margin: 0; }
h1 { font-size: 13pt; margin: 0 0 3pt; }
h2 { font-size: 9.6pt; margin: 6pt 0 2pt; }
p { margin: 2pt 0 3pt; }
table { border-collapse: collapse; width: 100%; font-size: 7.2pt; }
td, th { border: 0.5pt solid #999; padding: 0.5pt 3pt; text-align: left; white-space: nowrap; }
ul.glossary { columns: 3; column-gap: 12pt; padding-left: 9pt; margin: 2pt 0;
  font-size: 7.3pt; line-height: 1.22; }
ul.glossary li { break-inside: avoid; margin-bottom: 1pt; }
code { font-size: 8pt; }
.small { color: #444; font-size: 7.6pt; }
"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Floating point on one page</title><style>{css}</style></head>
<body>
<h1>Floating point for mixed-precision training, on one page</h1>
<p class="small">The handout of fpexplore's 90-minute lesson; every number below is
computed by fpexplore.</p>
<h2>A float is a sign, an exponent and a mantissa</h2>
{layout}
<p>The bits of {example} in each format. A normal float is
(−1)<sup>sign</sup> × 2<sup>exponent field − bias</sup> × 1.mantissa: the leading 1 is
hidden (not stored), so float16's {f16_mantissa_bits} mantissa bits give
{f16_significant_bits} significant bits. In float16, {example} has sign {example_sign},
exponent field {example_exponent} = 2 + bias {f16_bias}, mantissa {example_mantissa}
(0.625 × 2<sup>{f16_mantissa_bits}</sup>). A subnormal is 0.mantissa ×
2<sup>1 − bias</sup> (exponent field 0). In the picture, s is the sign, e the exponent field, m the
mantissa.</p>
<table><tr><th>format</th><th>bits: s, e, m</th><th>bias</th>
<th>largest</th><th>smallest normal</th><th>smallest subnormal</th><th>eps</th></tr>
{format_rows}
</table>
<h2>Facts to remember</h2>
<p><b>Spacing.</b> In the normal range every binade [2<sup>N</sup>, 2<sup>N+1</sup>)
holds the same number of values, so the spacing doubles at each power of two; below the
smallest normal number the subnormals are evenly spaced. Rounding to nearest makes an
absolute error of at most half the spacing, and a relative error of at most eps/2 in the
normal range ({half_eps}), more for subnormals.</p>
<p><b>float16's limits.</b> Largest value {f16_max}: beyond it, infinity, and
e<sup>x</sup> overflows for x above {f16_ln_max}. Smallest positive value
{f16_smallest_subnormal}: a gradient below half of it becomes 0 unless the loss
is scaled.</p>
<p><b>Sums stall.</b> A running sum of ones stops growing at {f16_stall} in float16 and
{bf16_stall} in bfloat16: there the spacing is 2, and +1 is a tie that rounds back to
the even neighbour. So products of 16-bit numbers are accumulated at higher precision.</p>
<p><b>bfloat16 or float16?</b> bfloat16 has float32's exponent (its range: no loss
scaling needed) and eps {bf16_eps}; float16 has more precision, a small range.
<code>float8_e4m3fn</code> has no infinity: its largest value is {e4m3_max}, and it
needs a scale.</p>
<p><b>Mixed precision in Keras.</b>
<code>keras.mixed_precision.set_global_policy("mixed_float16")</code> (on TPUs
<code>"mixed_bfloat16"</code>): layers compute in float16 (<code>compute_dtype</code>) and
store their weights in float32 (<code>variable_dtype</code>); the output softmax layer
opts out with <code>dtype="float32"</code>; <code>compile</code> adds dynamic loss
scaling: the loss is multiplied by S, the gradients divided by S again in float32; a step
with inf or NaN is skipped and S halved, and S doubles after a run of good steps.</p>
<h2>Glossary</h2>
<ul class="glossary">
{glossary}
</ul>
</body></html>
"""
"""The English handout, with a ``{name}`` for each number :func:`handout_numbers`
computes (the Russian page, :data:`fpexplore.course.russian_text.HANDOUT_PAGE`, has the
same ones)."""


def handout_numbers(language: str = "en") -> dict[str, str]:
    """What the handout's page fills in, computed: its numbers, and the parts written
    in ``language`` (the bit layouts' field names, the formats' common names, the
    glossary)."""
    f16, bf16, f32 = get_format("float16"), get_format("bfloat16"), get_format("float32")
    example = decode(EXAMPLE, "float16")
    terms = GLOSSARIES[language]
    common = HANDOUT_FORMATS if language == "en" else russian_text.HANDOUT_FORMATS
    return {
        "css": _CSS,
        "layout": bit_layout_svg(language=language),
        "example": f"{EXAMPLE:g}",
        "example_sign": str(example.sign),
        "example_exponent": str(example.exponent),
        "example_mantissa": str(example.mantissa),
        "f16_mantissa_bits": str(f16.mantissa_bits),
        "f16_significant_bits": str(f16.mantissa_bits + 1),
        "f16_bias": str(f16.bias),
        "format_rows": _format_rows(common),
        "half_eps": ", ".join(
            f"{n} {f.eps / 2:.3g}"
            for n, f in (("float16", f16), ("bfloat16", bf16), ("float32", f32))
        ),
        "f16_max": f"{f16.max:g}",
        "f16_ln_max": f"{math.log(f16.max):.2f}",
        "f16_smallest_subnormal": _power(f16.smallest_subnormal),
        "f16_stall": f"{stall_point(1.0, 'float16'):g}",
        "bf16_stall": f"{stall_point(1.0, 'bfloat16'):g}",
        "bf16_eps": _power(bf16.eps),
        "e4m3_max": f"{get_format('float8_e4m3fn').max:g}",
        "glossary": "\n".join(
            f"<li><b>{html.escape(t.name)}</b>: {html.escape(t.meaning)}</li>" for t in terms
        ),
    }


def handout_html(language: str = "en") -> str:
    """The handout as one standalone HTML page (see the module's description), in
    ``language``: ``"en"``, or ``"ru"`` for the Russian edition (the same numbers)."""
    if language not in GLOSSARIES:
        raise ValueError(f"no handout in {language!r}; expected one of {sorted(GLOSSARIES)}")
    page = PAGE if language == "en" else russian_text.HANDOUT_PAGE
    return page.format(**handout_numbers(language))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fpexplore.course.handout [--output handout.html] [--language ru]``."""
    parser = argparse.ArgumentParser(
        prog="python -m fpexplore.course.handout",
        description="Write the lesson's one-page handout as a standalone HTML page to print.",
    )
    parser.add_argument("--output", help="default handout.html (handout-ru.html in Russian)")
    parser.add_argument(
        "--language", choices=sorted(GLOSSARIES), default="en", help="en (default) or ru"
    )
    args = parser.parse_args(argv)
    default = "handout.html" if args.language == "en" else f"handout-{args.language}.html"
    target = Path(args.output or default)
    try:
        target.write_text(handout_html(args.language), encoding="utf-8")
    except OSError as error:
        print(f"handout: cannot write {target}: {error.strerror}", file=sys.stderr)
        return 2
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
