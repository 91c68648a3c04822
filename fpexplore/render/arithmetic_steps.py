"""The steps of an operation in binary: scientific notation, alignment, the exact
result, normalization and rounding (used by :mod:`fpexplore.render.arithmetic`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..core.rounding_explain import explain_rounding
from ..exact import FLAGS
from .text import exact_decimal, flags_text, is_huge, magnitude_text, short_repr

if TYPE_CHECKING:
    from ..arith.operation import Operation
    from ..core.decode import FloatParts

__all__ = [
    "NAMES",
    "compute_lines",
    "exact_text",
    "lead_exponent",
    "loud_operands",
    "operand_lines",
    "round_lines",
    "sci",
]

NAMES = "abc"
_LIMIT = 72  # longest binary string shown in full
_LOUD = frozenset({"overflow", "underflow", "invalid"})  # an operand's flags worth a line


def _x(value: Fraction | None) -> Fraction:
    """A finite exact value (the steps are only shown for finite ones)."""
    assert value is not None
    return value


def log2_floor(x: Fraction) -> int:
    p, q = x.numerator, x.denominator
    e = p.bit_length() - q.bit_length()
    return e - 1 if (p << max(-e, 0)) < (q << max(e, 0)) else e


def binary(x: Fraction, exponent: int, frac_bits: int | None = None) -> str:
    """``|x| / 2**exponent`` in binary, all its bits (``x`` dyadic) or ``frac_bits``
    of them followed by ``...`` when more are non-zero."""
    scaled = abs(x) / Fraction(2) ** exponent
    if frac_bits is None:
        frac_bits = scaled.denominator.bit_length() - 1
    whole, rest = divmod(scaled.numerator << frac_bits, scaled.denominator)
    text = f"{whole >> frac_bits:b}"
    if frac_bits:
        text += "." + format(whole & ((1 << frac_bits) - 1), f"0{frac_bits}b")
    text += "..." if rest else ""
    if len(text) > _LIMIT:
        text = f"{text[:40]}...({len(text) - 60} bits)...{text[-20:]}"
    return text


def sci(x: Fraction, exponent: int, frac_bits: int | None = None, sign: bool = True) -> str:
    mark = ("-" if x < 0 else "+") if sign else ""
    return f"{mark}{binary(x, exponent, frac_bits)} x 2^{exponent}"


def lead_exponent(p: FloatParts) -> int:
    """The exponent written in scientific notation: the leading bit's (the
    format's least exponent for subnormals, which are written 0.xxx)."""
    exponent = p.unbiased_exponent  # exponent - bias; 1 - bias (emin) for subnormals
    assert exponent is not None
    return exponent


def operand_lines(op: Operation) -> list[tuple[str, str]]:
    steps = []
    for name, p in zip(NAMES, op.operands, strict=False):
        given = p.input
        label = name
        if p.error not in (None, 0) or (p.exact is None and p.input_exact is not None):
            steps.append(
                (
                    name,
                    f"{short_repr(given)} is not a {op.format.name} value: rounded to "
                    f"{p.value!r} ({p.hex}), error {p.abs_error:.3g}",
                )
            )
            label = ""
        if p.flags & _LOUD:
            steps.append((label, flags_text(p)))
            label = ""
        if p.is_finite and p.exact != 0:
            written = sci(_x(p.exact), lead_exponent(p), op.format.mantissa_bits)
            steps.append((label, f"= {written}   ({p.value!r}, {p.hex})"))
        else:
            steps.append((label, f"= {p.value!r}   ({p.hex})"))
    return steps


def loud_operands(op: Operation) -> str:
    """The operands that overflowed, underflowed or were invalid on the way into the
    format (``"on the way in: a overflow"``), or ``""``."""
    loud = [
        f"{name} {', '.join(f for f in FLAGS if f in p.flags & _LOUD)}"
        for name, p in zip(NAMES, op.operands, strict=False)
        if p.flags & _LOUD
    ]
    return f"on the way in: {'; '.join(loud)}" if loud else ""


def compute_lines(op: Operation) -> list[tuple[str, str]]:
    """The exact computation, in binary, for finite nonzero operands."""
    ps, m = op.operands, op.format.mantissa_bits
    if op.op in ("add", "sub"):
        a, b = _x(ps[0].exact), _x(ps[1].exact) if op.op == "add" else -_x(ps[1].exact)
        ea, eb = lead_exponent(ps[0]), lead_exponent(ps[1])
        small = "b" if ea >= eb else "a"
        shift = abs(ea - eb)
        top = max(ea, eb)
        steps = []
        if shift:
            steps.append(
                (
                    "align",
                    f"{small} has the smaller exponent: shift its significand right {shift} "
                    f"place{'s' if shift > 1 else ''}, to 2^{top}",
                )
            )
            moved = a if small == "a" else b
            steps.append((small, "= " + sci(moved, top, m + shift)))
        else:
            steps.append(("align", f"same exponent 2^{top}: no shift"))
        verb = "add" if (a < 0) == (b < 0) else "subtract"
        exact = a + b
        total = sci(exact, top, m + shift) if exact else "0"
        first = ("-" if a < 0 else "+") + binary(a, top, m + (shift if small == "a" else 0))
        second = binary(b, top, m + (shift if small == "b" else 0))
        sign = "-" if (b < 0) != (a < 0) else "+"
        steps.append((verb, f"({first} {sign} {second}) x 2^{top} = {total}"))
        return steps
    if op.op == "mul":
        ea, eb = lead_exponent(ps[0]), lead_exponent(ps[1])
        sa = _x(ps[0].exact) / Fraction(2) ** ea
        sb = _x(ps[1].exact) / Fraction(2) ** eb
        return [
            (
                "multiply",
                f"significands {binary(sa, 0)} x {binary(sb, 0)} = {binary(sa * sb, 0)}",
            ),
            ("", f"exponents {ea} + {eb} = {ea + eb}; sign {'-' if _x(op.exact) < 0 else '+'}"),
        ]
    if op.op == "div":
        ea, eb = lead_exponent(ps[0]), lead_exponent(ps[1])
        sa, sb = _x(ps[0].exact) / Fraction(2) ** ea, _x(ps[1].exact) / Fraction(2) ** eb
        q = abs(sa / sb)
        shown = binary(q, 0, m + 4) if q.denominator & (q.denominator - 1) else binary(q, 0)
        return [
            ("divide", f"significands {binary(sa, 0)} / {binary(sb, 0)} = {shown}"),
            ("", f"exponents {ea} - {eb} = {ea - eb}; sign {'-' if _x(op.exact) < 0 else '+'}"),
        ]
    if op.op == "sqrt":
        e = lead_exponent(ps[0])
        odd = e % 2
        s = _x(ps[0].exact) / Fraction(2) ** (e - odd)
        note = f"the exponent {e} is odd: write it as {binary(s, 0)} x 2^{e - odd}; " if odd else ""
        root = f"{binary(_x(op.exact), (e - odd) // 2, m + 4)}"
        return [
            (
                "root",
                f"{note}sqrt of the significand, half the exponent: {root} x 2^{(e - odd) // 2}",
            )
        ]
    if op.op == "remainder":
        a, b = _x(ps[0].exact), _x(ps[1].exact)
        n = round(a / b)
        return [
            ("divide", f"a / b = {float(a / b)!r}; the nearest integer (ties to even) is n = {n}"),
            ("subtract", f"a - n x b = {float(a)!r} - ({n}) x {float(b)!r}: exact, it always "
             "fits in the format"),
        ]  # fmt: skip
    # fma
    product = _x(ps[0].exact) * _x(ps[1].exact)
    return [
        ("multiply", f"a x b = {sci(product, log2_floor(abs(product)))} exactly (not rounded)"),
        (
            "add",
            f"+ c = {sci(_x(op.exact), log2_floor(abs(_x(op.exact))))} exactly: one rounding "
            "follows",
        ),
    ]


def round_lines(op: Operation) -> list[tuple[str, str]]:
    fmt, m, exact = op.format, op.format.mantissa_bits, _x(op.exact)
    e = log2_floor(abs(exact))
    kept = max(e, fmt.emin)
    steps = []
    if op.op in ("add", "sub") and e != max(lead_exponent(p) for p in op.operands):
        steps.append(("normalize", f"= {sci(exact, e)}   (the leading 1 moves to 2^{e})"))
    if e < fmt.emin and not fmt.has_subnormals:  # E8M0: no subnormals, no zero
        if op.parts.kind.value == "nan":
            to = "rounding toward zero leaves no value: NaN"
        else:
            to = f"the result is that smallest value, {fmt.min!r}"
        least = f"2^{fmt.emin}"
        steps.append(
            ("round", f"below the smallest value {least}, with no subnormals or zero: {to}")
        )
        return steps
    if e < fmt.emin:
        steps.append(
            (
                "subnormal",
                f"below the smallest normal 2^{fmt.emin}: written {sci(exact, kept)}, "
                "so fewer significant bits are kept",
            )
        )
    dyadic = not exact.denominator & (exact.denominator - 1) and not op.approximate
    bits = binary(exact, kept, None if dyadic else m + 6)
    if "." not in bits:
        bits += "."
    bits = bits.ljust(bits.index(".") + 1 + m, "0") if dyadic else bits
    cut = bits.index(".") + 1 + m if m else bits.index(".")
    if op.rounding == "stochastic":
        steps.append(("round", f"keep {m} bits after the point: {bits[:cut]}|{bits[cut:]}"))
        steps.append(("", "stochastic: rounds away from zero with probability the dropped part"))
        return steps
    ex = explain_rounding(exact, fmt, op.rounding)
    if ex.is_exact:
        steps.append(("round", f"{bits.rstrip('.')} fits in {m} bits after the point: exact"))
        return steps
    steps.append(("round", f"keep {m} bits after the point: {bits[:cut]}|{bits[cut:]}"))
    if ex.guard is not None:
        steps.append(
            (
                "",
                f"guard bit {ex.guard} (the first bit dropped), round bit {ex.round} (the next), "
                f"sticky bit {ex.sticky} (the OR of all later bits)",
            )
        )
    steps.append(("", ex.choices[op.rounding].reason))
    return steps


def exact_text(op: Operation) -> str:
    exact = _x(op.exact)
    if op.approximate:
        return f"= {float(exact)!r}... (irrational: no finite binary expansion)"
    if exact.denominator & (exact.denominator - 1):
        return f"= {float(exact)!r}... (no finite binary expansion)"
    text = exact_decimal(exact)
    if len(text) <= 40:
        return f"= {text}"
    if is_huge(exact):
        return f"= {magnitude_text(exact)} ({len(text)} digits)"
    return f"= {_leading_digits(text)} ({_significant(text)} significant digits, cut)"


def _significant(text: str) -> int:
    """The number of significant digits of a decimal numeral (no exponent)."""
    return len(text.lstrip("-").replace(".", "").lstrip("0").rstrip("0")) or 1


def _leading_digits(text: str, n: int = 21) -> str:
    """The first ``n`` significant digits of a long exact decimal, cut (not rounded)
    and followed by ``...``, so that 0.3000000000000000166... cannot be read as 0.3;
    in scientific notation when the point lies far from them.

    >>> _leading_digits("0.3000000000000000166533453693773481063544750213623046875")
    '0.300000000000000016653...'
    >>> _leading_digits("-12345678901234567890123456.5", n=5)
    '-1.2345...e+25'
    """
    sign, body = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, _, fraction = body.partition(".")
    digits = (whole + fraction).lstrip("0")
    exponent = (
        len(whole.lstrip("0")) - 1
        if whole.strip("0")
        else -(len(fraction) - len(fraction.lstrip("0")) + 1)
    )
    kept = digits[:n]
    if -7 < exponent < len(kept) - 1:  # positional: the point falls among the kept digits
        if exponent >= 0:
            return f"{sign}{kept[: exponent + 1]}.{kept[exponent + 1 :]}..."
        return f"{sign}0.{'0' * (-exponent - 1)}{kept}..."
    return f"{sign}{kept[0]}.{kept[1:]}...e{exponent:+d}"
