"""The exact part of an operation's explanation: the operands in binary scientific
notation, then the computation (alignment and sum, significands and exponents,
the root, the fused product), each line an equation about these very numbers
(used by :mod:`fpexplore.explain.arithmetic`; the rounding that follows is in
:mod:`fpexplore.explain.arithmetic_round`).

Zero operands are computed as any other (``0 + 5 = 5``); only NaNs, infinities
and invalid operations leave this path for the "special" line.

>>> from fpexplore import sub
>>> for label, text in compute_lines(sub(5, 3, "float16")):
...     print(f"{label:<9} {text}")
negate    -b = -1.1000000000 x 2^1: a - b = a + (-b)
align     -b has the smaller exponent: shift its significand right 1 place, to 2^2
-b        = -0.11000000000 x 2^2
subtract  (+1.0100000000 - 0.11000000000) x 2^2 = +0.10000000000 x 2^2
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..exact import FLAGS
from ..render.text import exact_decimal, flags_text, is_huge, magnitude_text, short_repr
from .binary import binary, log2_floor, sci

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
    "shown",
]

NAMES = "abc"
Steps = list[tuple[str, str]]
_LOUD = frozenset({"overflow", "underflow", "invalid"})  # an operand's flags worth a line


def _x(value: Fraction | None) -> Fraction:
    """A finite exact value (the steps are only shown for finite ones)."""
    assert value is not None
    return value


def lead_exponent(p: FloatParts) -> int:
    """The exponent written in scientific notation: the leading bit's (the
    format's least exponent for subnormals, which are written 0.xxx)."""
    exponent = p.unbiased_exponent  # exponent - bias; 1 - bias (emin) for subnormals
    assert exponent is not None
    return exponent


def _signed(x: Fraction, exponent: int, frac_bits: int | None = None) -> str:
    """``sci`` of ``x``, or a signed zero's ``+0`` / ``-0``."""
    return sci(x, exponent, frac_bits) if x else "0"


def _zero(negative: bool) -> str:
    return "-0" if negative else "+0"


def operand_lines(op: Operation) -> Steps:
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


def _exponents(ea: int, sign: str, eb: int) -> str:
    second = f"({eb})" if eb < 0 else str(eb)
    total = ea + eb if sign == "+" else ea - eb
    return f"exponents {ea} {sign} {second} = {total}"


def _add_lines(op: Operation) -> Steps:
    ps, m = op.operands, op.format.mantissa_bits
    a, b = _x(ps[0].exact), _x(ps[1].exact)
    names = ("a", "b" if op.op == "add" else "-b")
    terms = (a, b if op.op == "add" else -b)
    negative = (bool(ps[0].sign), bool(ps[1].sign) != (op.op == "sub"))
    steps: Steps = []
    if op.op == "sub":
        minus_b = _signed(terms[1], lead_exponent(ps[1]), m) if b else _zero(negative[1])
        steps.append(("negate", f"-b = {minus_b}: a - b = a + (-b)"))
    if not a and not b:
        zeros = f"({_zero(negative[0])}) + ({_zero(negative[1])})"
        return [*steps, ("add", f"{zeros}: both terms are zero, the exact sum is 0")]
    exps = [lead_exponent(p) for p in ps]
    if not a or not b:
        zero = 0 if not a else 1
        top, shift, small = exps[1 - zero], 0, ""
        steps.append(("align", f"{names[zero]} is zero: nothing to shift"))
    else:
        top, shift = max(exps), abs(exps[0] - exps[1])
        small = names[0] if exps[0] < exps[1] else names[1]
        if shift:
            places = f"{shift} place{'s' if shift > 1 else ''}"
            steps.append(
                ("align", f"{small} has the smaller exponent: shift its significand right "
                 f"{places}, to 2^{top}")
            )  # fmt: skip
            steps.append((small, "= " + sci(terms[names.index(small)], top, m + shift)))
        else:
            steps.append(("align", f"same exponent 2^{top}: no shift"))
    written = [
        binary(t, top, m + (shift if name == small else 0)) if t else "0"
        for t, name in zip(terms, names, strict=True)
    ]
    verb = "add" if negative[0] == negative[1] else "subtract"
    first = ("-" if negative[0] else "+") + written[0]
    second = ("-" if negative[1] else "+") + " " + written[1]
    total = _signed(terms[0] + terms[1], top, m + shift)
    return [*steps, (verb, f"({first} {second}) x 2^{top} = {total}")]


def _product_lines(op: Operation) -> Steps:
    ps = op.operands
    symbol, verb = ("x", "multiply") if op.op == "mul" else ("/", "divide")
    for name, p in zip(NAMES, ps, strict=False):
        if p.is_finite and p.exact == 0:
            what = "product" if op.op == "mul" else "quotient"
            return [(verb, f"{name} = 0: the {what} is exactly 0")]
        if not p.is_finite:  # x / inf
            return [(verb, f"{name} is infinite and a is finite: the quotient is exactly 0")]
    ea, eb = lead_exponent(ps[0]), lead_exponent(ps[1])
    sa = abs(_x(ps[0].exact)) / Fraction(2) ** ea
    sb = abs(_x(ps[1].exact)) / Fraction(2) ** eb
    result = sa * sb if op.op == "mul" else sa / sb
    dyadic = not result.denominator & (result.denominator - 1)
    written = binary(result, 0) if dyadic else binary(result, 0, op.format.mantissa_bits + 4)
    sign = "-" if _x(op.exact) < 0 else "+"
    return [
        (verb, f"significands {binary(sa, 0)} {symbol} {binary(sb, 0)} = {written}"),
        ("", f"{_exponents(ea, '+' if op.op == 'mul' else '-', eb)}; sign {sign}"),
    ]


def _root_lines(op: Operation) -> Steps:
    p, m = op.operands[0], op.format.mantissa_bits
    if p.exact == 0:
        zero = _zero(bool(p.sign))
        return [("root", f"sqrt({zero}) = {zero} (IEEE 754 keeps the sign of a zero)")]
    e = lead_exponent(p)
    even = e - e % 2
    s = _x(p.exact) / Fraction(2) ** even
    note = f" (the exponent {e} is odd: one factor 2 moves into the significand)" if e % 2 else ""
    exact = _x(op.exact)
    root = binary(exact, even // 2, m + 4) if op.approximate else binary(exact, even // 2)
    return [("root", f"sqrt({binary(s, 0)} x 2^{even}) = {root} x 2^{even // 2}{note}")]


def _fma_lines(op: Operation) -> Steps:
    ps = op.operands
    a, b, exact = _x(ps[0].exact), _x(ps[1].exact), _x(op.exact)
    product = a * b
    if product:
        written = sci(product, log2_floor(abs(product)))
    else:
        written = _zero(bool(ps[0].sign) != bool(ps[1].sign))
    total = sci(exact, log2_floor(abs(exact))) if exact else "0"
    return [
        ("multiply", f"a x b = {written} exactly (not rounded)"),
        ("add", f"a x b + c = {total} exactly: one rounding follows"),
    ]


def _number(x: Fraction) -> str:
    """An exact number in decimal, or its magnitude when that is long."""
    if not x.denominator & (x.denominator - 1):
        text = exact_decimal(x)
        if len(text) <= 40:
            return text
    return f"{magnitude_text(x)}..."


def _remainder_lines(op: Operation) -> Steps:
    a, b = op.operands
    if not b.is_finite:
        return [("divide", "b is infinite and a is finite: n = 0, the remainder is a")]
    x, y = _x(a.exact), _x(b.exact)
    n = round(x / y)
    count = str(n) if abs(n) < 10**30 else magnitude_text(Fraction(n))
    return [
        ("divide", f"a / b = {_number(x / y)}; the nearest integer (ties to even) is n = {count}"),
        ("subtract", f"a - n x b = {_number(x)} - ({count}) x {_number(y)} = "
         f"{_number(x - n * y)}: exact, always a value of the format"),
    ]  # fmt: skip


def compute_lines(op: Operation) -> Steps:
    """The exact computation for finite operands (x / inf and remainder(x, inf) too)."""
    if op.op in ("add", "sub"):
        return _add_lines(op)
    if op.op in ("mul", "div"):
        return _product_lines(op)
    if op.op == "sqrt":
        return _root_lines(op)
    if op.op == "remainder":
        return _remainder_lines(op)
    return _fma_lines(op)


def shown(op: Operation) -> int | None:
    """The power of two the computation's last line writes its result at (None
    when it writes none): the normalization step starts from it."""
    ps = op.operands
    if op.op in ("add", "sub"):
        nonzero = [lead_exponent(p) for p in ps if p.exact != 0]
        return max(nonzero) if nonzero else None
    if any(not p.is_finite or p.exact == 0 for p in ps):
        return None
    if op.op == "mul":
        return lead_exponent(ps[0]) + lead_exponent(ps[1])
    if op.op == "div":
        return lead_exponent(ps[0]) - lead_exponent(ps[1])
    if op.op == "sqrt":
        e = lead_exponent(ps[0])
        return (e - e % 2) // 2
    return None  # fma: already normalized; remainder: written in decimal


def exact_text(op: Operation) -> str:
    exact = _x(op.exact)
    if exact == 0:
        return "= 0"
    if op.approximate:
        return f"= {_float_text(exact)}... (irrational: no finite binary expansion)"
    if exact.denominator & (exact.denominator - 1):
        return f"= {_float_text(exact)}... (no finite binary expansion)"
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


def _float_text(x: Fraction) -> str:
    """``repr(float(x))``, or the magnitude where float64 cannot hold ``x``."""
    value = float(x) if abs(x) < 2**1000 else 0.0
    return repr(value) if abs(value) >= 2.0**-1000 else magnitude_text(x)
