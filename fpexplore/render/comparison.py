"""Tables of facts: formats side by side, and one value across formats.

Each returns a :class:`fpexplore.render.table.Table`, which renders as aligned text
(``print``), as an HTML table (Jupyter) and as a list of JSON-friendly dicts
(``to_records()``, for a CLI's ``--json``).

Examples
--------
>>> t = compare("0.1", ["float32", "float16"])
>>> [(r["format"], r["stored"]) for r in t.to_records()]
[('float32', 0.10000000149011612), ('float16', 0.0999755859375)]
>>> print(format_table(["float16", "bfloat16"]))  # doctest: +ELLIPSIS
Floating-point formats side by side
property            float16       bfloat16
------------------  ------------  -----------
bits                16            16
...
max                 65504.0       3.38953e+38
...
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.decode import decode
from ..exact import magnitude_mode, parse_real, round_magnitude, tiny_after_rounding
from ..formats import FORMATS, Format, FormatLike, get_format
from .html import contrast_text_color
from .table import Table
from .text import FIELD_COLORS, exact_decimal, short_repr

__all__ = [
    "COMPARE_FORMATS",
    "Table",
    "compare",
    "format_facts",
    "format_html",
    "format_table",
    "format_text",
]

COMPARE_FORMATS = (
    "float64",
    "float32",
    "float16",
    "bfloat16",
    "tf32",
    "float8_e4m3fn",
    "float8_e5m2",
    "float4_e2m1fn",
)
"""The formats :func:`compare` uses by default."""


def format_facts(fmt: FormatLike) -> list[tuple[str, Any, str]]:
    """``(name, value, meaning)`` for the finfo-like facts of one format.

    Names are :class:`numpy.finfo`'s where it has one.

    Examples
    --------
    >>> {name: value for name, value, _ in format_facts("float16")}["smallest_subnormal"]
    5.960464477539063e-08
    """
    fmt = get_format(fmt)
    sign = "1 sign + " if fmt.is_signed else "no sign bit: "
    return [
        ("bits", fmt.bits, f"total width: {sign}exponent + mantissa bits"),
        ("exponent_bits", fmt.exponent_bits, "width of the biased exponent field"),
        ("mantissa_bits", fmt.mantissa_bits, "stored fraction bits (one more is implicit)"),
        ("bias", fmt.bias, "stored exponent field minus bias = power of two"),
        ("eps", fmt.eps, f"gap between 1 and the next value: 2^-{fmt.mantissa_bits}"),
        ("max", fmt.max, "largest finite value"),
        ("smallest_normal", fmt.smallest_normal, f"2^{fmt.emin}: below it, subnormals"),
        (
            "smallest_subnormal",
            fmt.smallest_subnormal,
            f"2^{fmt.emin - fmt.mantissa_bits}: the smallest positive value",
        ),
        ("maxexp", fmt.maxexp, "smallest power of two that overflows: 2^maxexp"),
        ("minexp", fmt.minexp, "exponent of the smallest normal value"),
        ("precision", fmt.precision, "about this many decimal digits: floor(-log10(eps))"),
        ("has_infinity", fmt.has_infinity, "whether +-inf exist (else overflow gives NaN or max)"),
        ("has_nan", fmt.has_nan, "whether a NaN pattern exists"),
        ("nan_encoding", fmt.nan_encoding, "where inf and NaN live: ieee, fn, fnuz, p3109, none"),
        ("is_signed", fmt.is_signed, "whether negative values exist (not in E8M0)"),
        ("has_negative_zero", fmt.has_negative_zero, "whether -0 exists (not in fnuz, P3109)"),
        ("n_finite", fmt.n_finite, "distinct finite values (+0 and -0 counted once)"),
    ]


def format_table(formats: Iterable[FormatLike] | None = None) -> Table:
    """finfo-like facts of several formats side by side, one column per format.

    Parameters
    ----------
    formats : iterable of format specs, optional
        Names, aliases, dtypes or Formats; default: the whole catalogue
        (:data:`fpexplore.FORMATS`), widest first.

    Examples
    --------
    >>> t = format_table(["float32", "bfloat16"])
    >>> t.columns
    ['property', 'float32', 'bfloat16']
    >>> t.rows[4]  # eps: bfloat16 trades precision...
    ['eps', 1.1920928955078125e-07, 0.0078125]
    >>> t.rows[5]  # ...for float32's range
    ['max', 3.4028234663852886e+38, 3.3895313892515355e+38]
    """
    fmts = [get_format(f) for f in (FORMATS.values() if formats is None else formats)]
    facts = [format_facts(f) for f in fmts]
    rows = [
        [name] + [per_format[i][1] for per_format in facts]
        for i, (name, _, _) in enumerate(facts[0])
    ]
    return Table(
        ["property"] + [f.name for f in fmts],
        rows,
        title="Floating-point formats side by side",
    )


def _facts_table(fmt: Format) -> Table:
    return Table(
        ["property", "value", "meaning"],
        [list(row) for row in format_facts(fmt)],
        title=f"{fmt.name}: {int(fmt.is_signed)} sign bit, {fmt.exponent_bits} exponent bits, "
        f"{fmt.mantissa_bits} mantissa bits",
    )


def format_text(fmt: FormatLike) -> str:
    """The facts of one format as an aligned text table.

    Examples
    --------
    >>> print(format_text("float8_e4m3fn"))  # doctest: +ELLIPSIS
    float8_e4m3fn: 1 sign bit, 4 exponent bits, 3 mantissa bits
    property            value        meaning
    ...
    max                 448.0        largest finite value
    ...
    """
    return str(_facts_table(get_format(fmt)))


def format_html(fmt: FormatLike) -> str:
    """The facts of one format as HTML, under a bar of its fields (what Jupyter shows).

    Examples
    --------
    >>> "448.0" in format_html("e4m3") and "<script" not in format_html("e4m3")
    True
    """
    fmt = get_format(fmt)
    widths = [
        ("sign", int(fmt.is_signed)),
        ("exponent", fmt.exponent_bits),
        ("mantissa", fmt.mantissa_bits),
    ]
    segments = []
    for name, width in widths:
        if width:
            bg = FIELD_COLORS[name]
            segments.append(
                f'<span style="display: inline-block; background: {bg}; '
                f"color: {contrast_text_color(bg)}; padding: 2px 8px; margin-right: 2px; "
                f'border-radius: 3px; font-weight: bold;">{name}: {width}</span>'
            )
    return f'<div class="fpx-format">{"".join(segments)}{_facts_table(fmt)._repr_html_()}</div>'


# -- compare ---------------------------------------------------------------------

_EXACT_LIMIT = 32


def _short_exact(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= _EXACT_LIMIT else text[: _EXACT_LIMIT - 1] + "…"


def _error_text(value: Any) -> str:
    return "" if value is None else f"{value:.3g}"


def _flag(exact: Any, parts: Any, rounding: str) -> str:
    """'overflow', 'underflow', 'saturated', 'invalid', 'inexact' or '' (:func:`compare`)."""
    fmt = parts.format
    if exact.special == "inf":
        if fmt.has_infinity:
            return ""
        return "saturated" if parts.is_finite else "inf -> NaN"
    if "invalid" in parts.flags:  # a number the format has no value for (E8M0: 0, -1)
        return "invalid"
    if exact.special is not None or exact.magnitude == 0:
        return ""
    _, _, overflowed = round_magnitude(exact.magnitude, fmt, magnitude_mode(rounding, exact.sign))
    if overflowed:
        return "overflow"
    mode = magnitude_mode(rounding, exact.sign)
    if parts.error != 0 and tiny_after_rounding(exact.magnitude, fmt, mode):
        return "underflow"
    return "inexact" if parts.error != 0 else ""


def compare(
    value: Any, formats: Iterable[FormatLike] | None = None, rounding: str = "nearest_even"
) -> Table:
    """One value stored in several formats: what is kept, what is lost.

    Parameters
    ----------
    value : int, float, str, Fraction, Decimal or numpy scalar
        Taken exactly, as by :func:`fpexplore.decode`: pass decimals as strings
        (``"0.1"``) to measure the error of the decimal number itself.
    formats : iterable of format specs, optional
        Default: float64, float32, float16, bfloat16, tf32, float8_e4m3fn,
        float8_e5m2, float4_e2m1fn (``fpexplore.render.comparison.COMPARE_FORMATS``).
    rounding : str
        A rounding mode of :func:`fpexplore.decode`.

    Returns
    -------
    Table
        Columns ``format``, ``bits`` (hex), ``stored`` (the stored value as a
        float; shown as its repr), ``exact`` (all its decimal digits; the text
        and HTML views cut them at 32 characters), ``abs_error``,
        ``rel_error``, ``ulp_error``, ``kind`` and ``flag``.

    Notes
    -----
    The flag column follows IEEE 754 (section 7.4 and 7.5), with tininess
    detected after rounding:

    - ``overflow``: the input is finite, and rounding it with an unbounded
      exponent range would give a magnitude above ``max``. The format then
      stores +-inf (IEEE formats), NaN (``float8_e4m3fn``) or +-max (FP6/FP4,
      which have neither, and rounding toward zero): a saturated result.
      An input just above ``max`` that rounds down to ``max`` anyway (65505
      in float16) is ordinary rounding, not overflow.
    - ``underflow``: the input is nonzero and finite, tiny after rounding
      (rounded to the format's precision with an unbounded exponent range,
      it lies below ``smallest_normal``: :func:`fpexplore.exact.tiny_after_rounding`)
      and stored inexactly: the rule of x86 hardware, which numpy's casts
      report under ``np.errstate(under="raise")``. An exact subnormal (2**-24
      in float16) is not flagged; 2**-126 - 2**-150 in float32 is, although
      it is stored as the normal 2**-126.
    - ``saturated``: the input is +-inf and the format has no infinity, so
      it stores +-max (FP6, FP4); ``inf -> NaN``: the same, in a format that
      stores NaN instead (``float8_e4m3fn``, as ml_dtypes does).
    - ``invalid``: the format has no value for the number and stores NaN
      (zero and negative numbers in the unsigned ``float8_e8m0fnu``).
    - ``no NaN``: a NaN input, and the format (FP6, FP4) has no NaN; the row is empty.
    - ``inexact``: none of the above, but rounded (empty: stored exactly).

    Examples
    --------
    >>> t = compare(1e6, ["float32", "float16", "bfloat16"])
    >>> [(r["format"], r["flag"]) for r in t.to_records()]
    [('float32', ''), ('float16', 'overflow'), ('bfloat16', 'inexact')]
    >>> compare("1e-10", ["float16"]).to_records()[0]["flag"]
    'underflow'
    """
    fmts = [get_format(f) for f in (COMPARE_FORMATS if formats is None else formats)]
    exact = parse_real(value)
    rows: list[list[Any]] = []
    for fmt in fmts:
        if exact.special == "nan" and not fmt.has_nan:
            rows.append([fmt.name, None, None, None, None, None, None, None, "no NaN"])
            continue
        parts = decode(value, fmt, rounding=rounding)
        stored_exact = exact_decimal(parts.exact) if parts.exact is not None else None
        if stored_exact is not None and parts.sign and parts.exact == 0:
            stored_exact = "-0"
        rows.append(
            [
                fmt.name,
                parts.hex,
                parts.value,
                stored_exact,
                parts.abs_error,
                parts.rel_error,
                parts.ulp_error,
                parts.kind.value,
                _flag(exact, parts, rounding),
            ]
        )
    shown = short_repr(value) if not isinstance(value, str) else value
    return Table(
        [
            "format",
            "bits",
            "stored",
            "exact",
            "abs_error",
            "rel_error",
            "ulp_error",
            "kind",
            "flag",
        ],
        rows,
        title=f"{shown} stored in {len(fmts)} format{'s' if len(fmts) != 1 else ''} ({rounding})",
        notes=[
            "exact: the stored value's decimal digits, cut at 32 characters here (see decode()).",
            "overflow: beyond max after rounding; underflow: inexact and below the smallest normal "
            "after rounding (IEEE 754 tininess after rounding).",
        ],
        formatters={
            "stored": lambda v: "" if v is None else repr(v),
            "exact": _short_exact,
            "abs_error": _error_text,
            "rel_error": _error_text,
            "ulp_error": _error_text,
        },
    )
