"""Plain-text renderings of decoded values (numpy only, no matplotlib).

Examples
--------
>>> from fpexplore import decode
>>> print(decode(3.14159, "float32"))
3.14159 in float32 (round to nearest, ties to even)
  input     a float: exactly 3.14158999999999988261834005243144929409027099609375
  bits      0 | 10000000 | 10010010000111111010000   = 0x40490FD0
  sign      0                  -> +1
  exponent  128                -> 2^(128 - 127) = 2^1
  mantissa  4788176            -> 1 + 4788176/2^23
  value     (-1)^0 x 2^(128-127) x (1 + 4788176/2^23)
          = 3.141590118408203125 (exactly)
  kind      normal
  error     abs 1.1841e-07   rel 3.7691e-08   0.4966 ULP   (ULP here: 2.3842e-07)
  flags     inexact
  neighbours 3.141589879989624 (0x40490FCF) < this < 3.1415903568267822 (0x40490FD1)
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Context, Decimal, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..exact import FLAGS, ROUNDING_NAMES, StandIn, parse_real, round_real

if TYPE_CHECKING:
    from ..core.decode import FloatParts

__all__ = [
    "FIELD_COLORS",
    "exact_decimal",
    "flags_reason",
    "flags_text",
    "is_huge",
    "magnitude_text",
    "parts_text",
    "short_repr",
    "shortest_decimal",
    "stand_in_text",
]

HUGE_BITS = 3000
"""Numbers whose numerator or denominator has more bits than this (about 900
decimal digits) are described by their magnitude instead of all their digits."""

FIELD_COLORS = {"sign": "#D55E00", "exponent": "#0072B2", "mantissa": "#009E73"}
"""Okabe-Ito colours (safe for colour-blind readers) for the three fields."""

_ANSI = {"sign": "\033[38;5;166m", "exponent": "\033[38;5;32m", "mantissa": "\033[38;5;36m"}
_RESET = "\033[0m"


def exact_decimal(x: Fraction) -> str:
    """All the decimal digits of a dyadic rational (a value with a power-of-two
    denominator has a finite decimal expansion).

    >>> exact_decimal(Fraction(1, 8))
    '0.125'
    >>> exact_decimal(Fraction(-3))
    '-3'
    """
    sign = "-" if x < 0 else ""
    x = abs(x)
    den = x.denominator
    k = den.bit_length() - 1
    if den != 1 << k:
        raise ValueError(f"{x} has no finite binary expansion")
    digits = str(x.numerator * 5**k)  # x = numerator * 5**k / 10**k
    if k == 0:
        return sign + digits
    digits = digits.rjust(k + 1, "0")
    return f"{sign}{digits[:-k]}.{digits[-k:]}"


def is_huge(x: Fraction) -> bool:
    """Whether spelling ``x`` out digit by digit would be unreasonable."""
    return max(x.numerator.bit_length(), x.denominator.bit_length()) > HUGE_BITS


def magnitude_text(x: Fraction) -> str:
    """``x`` to 6 significant digits, for any size (``float()`` would overflow),
    in time linear in its size: the top 64 bits of numerator and denominator,
    and a 40-digit logarithm.

    >>> magnitude_text(Fraction(10**5000 * 3))
    '3.00000e+5000'
    >>> magnitude_text(Fraction(-1, 7 * 10**400))
    '-1.42857e-401'
    """
    if x == 0:
        return "0"
    p, q = abs(x.numerator), x.denominator
    shift_p, shift_q = max(p.bit_length() - 64, 0), max(q.bit_length() - 64, 0)
    with localcontext(Context(prec=40)):
        ratio = Decimal(p >> shift_p) / Decimal(q >> shift_q)
        log10 = ratio.log10() + (shift_p - shift_q) * Decimal(2).log10()
        return _scientific(log10, "-" if x < 0 else "")


def _scientific(log10: Decimal, sign: str) -> str:
    """``10**log10`` to 6 significant digits (``log10`` to about 40 digits)."""
    with localcontext(Context(prec=40, Emax=10**15, Emin=-(10**15))):
        exponent = int(log10.to_integral_value(ROUND_FLOOR))
        mantissa = f"{float(Decimal(10) ** (log10 - exponent)):.5f}"
    if mantissa.startswith("10"):
        mantissa, exponent = "1.00000", exponent + 1
    return f"{sign}{mantissa}e{exponent:+d}"


def stand_in_text(given: StandIn, sign: int = 0) -> str:
    """How a decimal input that is not held digit by digit is described (``sign``:
    its sign bit, which ``given`` does not hold)."""
    digits, exponent = given.digits, given.exponent
    with localcontext(Context(prec=40, Emax=10**15, Emin=-(10**15))):
        log10 = Decimal(digits[:40]).log10() + exponent + len(digits) - len(digits[:40])
        about = _scientific(log10, "-" if sign else "")
    if given.kind == "long":
        return f"about {about}, {len(digits)} digits (the first 2200 places decide every rounding)"
    return f"about {about}"


def short_repr(x: Any, limit: int = 80) -> str:
    """``repr(x)`` for display: never raises (Python refuses ``str`` of ints over
    4300 digits) and stays under ``limit`` characters."""
    if isinstance(x, int | Fraction) and not isinstance(x, bool):
        if is_huge(Fraction(x)):
            return f"{type(x).__name__} ~{magnitude_text(Fraction(x))}"
    try:
        text = repr(x)
    except ValueError:
        text = f"<{type(x).__name__}>"
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def shortest_decimal(parts: FloatParts) -> str:
    """The shortest decimal that reads back (rounding to nearest) as this value of its
    format: what ``repr`` is for float64, for any format. Written as ``repr`` writes
    floats: positional from 1e-4 to 1e16, else scientific.

    >>> from fpexplore import decode
    >>> [shortest_decimal(decode(2**0.5, f)) for f in ("float64", "float32", "bfloat16")]
    ['1.4142135623730951', '1.4142135', '1.414']
    >>> shortest_decimal(decode(65504, "float16")), shortest_decimal(decode(-0.0, "e4m3"))
    ('65500.0', '-0.0')
    """
    value = parts.value
    if not parts.is_finite or value == 0:
        return repr(value)
    for digits in range(1, 18):
        text = f"{value:.{digits - 1}e}"
        if round_real(parse_real(text), parts.format) == parts.code:
            break
    return repr(float(text))  # 17 digits always read back: every format fits in float64


def _short_decimal(x: Fraction, limit: int = 60) -> str:
    if is_huge(x):
        return magnitude_text(x)
    text = exact_decimal(x)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def _error_text(parts: FloatParts) -> str:
    """The absolute error to 5 digits, from the exact error where there is one
    (so an error below float64's range, say 1e-400, is not shown as 0)."""
    if parts.error is None or parts.error == 0 or parts.abs_error != 0:
        return f"{parts.abs_error:.5g}"
    error = abs(parts.error)
    with localcontext() as ctx:
        ctx.prec = 5
        return f"{Decimal(error.numerator) / Decimal(error.denominator):.5g}"


def flags_text(parts: FloatParts) -> str:
    """The flags of a decoded value and, for the rare ones, why they were raised.

    >>> from fpexplore import decode
    >>> flags_text(decode(65520, "float16"))
    'overflow, inexact: above the largest value, 65504: overflow gives inf'
    """
    names = ", ".join(f for f in FLAGS if f in parts.flags) or "none"
    why = flags_reason(parts)
    return f"{names}: {why}" if why else names


def flags_reason(parts: FloatParts) -> str:
    """Why a decoded value raised overflow, underflow or invalid (or why an infinity
    became the largest value); ``""`` when nothing needs saying."""
    fmt, flags, kind = parts.format, parts.flags, parts.kind.value
    saturated = "saturated to the largest value"
    if fmt.nan_encoding == "none":
        saturated = f"{fmt.name} has no infinity and no NaN: {saturated}"
    if "overflow" in flags:
        outcome = {"inf": "overflow gives inf"}.get(kind, saturated)
        if kind == "nan":
            outcome = f"{fmt.name} has no infinity, overflow gives NaN"
        return f"above the largest value, {fmt.max:g}: {outcome}"
    if "underflow" in flags:
        if kind == "zero":
            return (
                f"below the smallest subnormal value, {fmt.smallest_subnormal:g}: flushed to zero"
            )
        what = (
            "below the smallest normal value" if fmt.has_subnormals else "below the smallest value"
        )
        outcome = {
            "subnormal": "stored as a subnormal, with fewer significant bits",
            "nan": f"{fmt.name} has no zero: NaN",
        }.get(kind, "rounded to it")
        return f"{what}, {fmt.smallest_normal:g}: {outcome}"
    if "invalid" in flags:
        if parts._input_special == "inf":
            return f"{fmt.name} has no infinity: NaN"
        missing = "zero" if parts.input_exact == 0 else "negative values"
        return f"{fmt.name} has no {missing}: NaN"
    if parts._input_special == "inf" and "inexact" in flags:
        return f"{fmt.name} has no infinity: saturated to the largest value"
    return ""


def _paint(text: str, field: str, color: bool) -> str:
    return f"{_ANSI[field]}{text}{_RESET}" if color else text


def _input_note(parts: FloatParts) -> str | None:
    """For a float input whose short repr is not its exact value, the exact value."""
    given = parts.input
    if parts._input_given is not None:
        return f"a decimal {stand_in_text(parts._input_given, parts._input_sign)}"
    if isinstance(given, float) and parts.input_exact is not None:
        if Fraction(repr(given)) != parts.input_exact:
            return f"a float: exactly {_short_decimal(parts.input_exact, 72)}"
    return None


def parts_text(parts: FloatParts, *, color: bool = False) -> str:
    """The multi-line breakdown that ``str(FloatParts)`` prints."""
    fmt = parts.format
    m = fmt.mantissa_bits
    fields = list(zip(("sign", "exponent", "mantissa"), fmt.split_bits(parts.code), strict=True))
    bit_line = " | ".join(_paint(text, name, color) for name, text in fields if text)
    if parts.rounding is None:  # from_bits
        title = f"bit pattern {parts.hex} of {fmt.name}"
    else:
        title = f"{short_repr(parts.input)} in {fmt.name} ({ROUNDING_NAMES[parts.rounding]})"
    lines = [title]
    note = _input_note(parts) if parts.rounding is not None else None
    if note:
        lines.append(f"  input     {note}")
    lines.append(f"  bits      {bit_line}   = {parts.hex}")
    s, x, mant = parts.sign, parts.exponent, parts.mantissa
    if fmt.is_signed:
        lines.append(f"  sign      {s:<18} -> {'-1' if s else '+1'}")
    else:
        lines.append(f"  sign      {'none':<18} -> +1 (an unsigned format)")
    kind = parts.kind.value
    if kind in ("normal", "subnormal", "zero"):
        lead = "1" if kind == "normal" else "0"
        field_exp = x if kind == "normal" else 1
        note = "" if kind == "normal" else "  (exponent field 0: subnormal, 2^(1 - bias))"
        lines.append(
            f"  exponent  {x:<18} -> 2^({field_exp} - {fmt.bias}) = 2^{field_exp - fmt.bias}{note}"
        )
        lines.append(f"  mantissa  {mant:<18} -> {lead} + {mant}/2^{m}")
        formula = f"(-1)^{s} x 2^({field_exp}-{fmt.bias}) x ({lead} + {mant}/2^{m})"
        lines.append(f"  value     {formula}")
        stored = parts.exact
        assert stored is not None  # finite
        lines.append(
            f"          = {'-' if s and stored == 0 else ''}{exact_decimal(stored)} (exactly)"
        )
    else:
        lines.append(f"  exponent  {x:<18} -> special value")
        lines.append(f"  mantissa  {mant:<18} -> {fmt.special_rule(kind)}")
        if kind == "nan" and fmt.nan_encoding == "ieee":
            quiet = "quiet" if parts.quiet else "signalling"
            lines.append(f"  value     NaN ({quiet}, payload {parts.nan_payload})")
        else:
            lines.append(f"  value     {parts.value}")
    lines.append(f"  kind      {kind}")
    if parts.rounding is not None:
        line = f"  error     abs {_error_text(parts)}   rel {parts.rel_error:.5g}   "
        line += f"{parts.ulp_error:.4g} ULP"
        if parts.is_finite:
            line += f"   (ULP here: {parts.ulp:.5g})"
        lines.append(line)
        lines.append(f"  flags     {flags_text(parts)}")
    if parts.is_finite:
        below, above = parts.next_down(), parts.next_up()
        lines.append(f"  neighbours {_neighbour(parts, below)} < this < {_neighbour(parts, above)}")
    return "\n".join(lines)


def _neighbour(parts: FloatParts, other: FloatParts) -> str:
    """``other`` as a neighbour of ``parts``, or why there is none."""
    if other.code == parts.code:
        return "none (the format saturates here)"
    if other.kind == "nan":
        return f"none (the next pattern, {other.hex}, is NaN)"
    return f"{other.value!r} ({other.hex})"
