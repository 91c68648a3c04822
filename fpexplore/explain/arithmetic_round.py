"""The end of an operation's explanation: normalization and rounding of a nonzero
exact result, the sign rules of an exact zero, the sign operations (neg, abs) and
the special cases (NaN, infinity, invalid operation, division by zero); used by
:mod:`fpexplore.explain.arithmetic`.

Each line states what a reader can check: the kept bits and the dropped ones
(``|``) at the power of two written beside them, the guard, round and sticky
bits read off the dropped ones, the direction the mode takes, and what the
format stores when that direction leaves its range (infinity, NaN, or its
largest value when it saturates).

>>> from fpexplore import mul
>>> steps = round_lines(mul(300, 300, "float16", overflow="saturate"))
>>> steps[0]
('round', 'keep 10 bits after the point: +1.0101111110|01 x 2^16')
>>> steps[1][1].split("; ")[1]
'no larger finite value: overflow="saturate" gives the largest, 65504.0'
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..core.rounding_explain import explain_rounding
from ..render.text import magnitude_text
from .arithmetic_steps import shown
from .binary import log2_floor, sci, split_bits

if TYPE_CHECKING:
    from ..arith.operation import Operation

__all__ = ["no_value", "round_lines", "sign_lines", "special_line", "zero_line"]

Steps = list[tuple[str, str]]


def _exact(op: Operation) -> Fraction:
    assert op.exact is not None  # only finite exact results are rounded
    return op.exact


def round_lines(op: Operation) -> Steps:
    """Normalize, cut after the format's mantissa bits, and round (nonzero exact results)."""
    fmt, m, exact = op.format, op.format.mantissa_bits, _exact(op)
    e = log2_floor(abs(exact))
    kept = max(e, fmt.emin)
    dyadic = not exact.denominator & (exact.denominator - 1) and not op.approximate
    frac = None if dyadic else m + 6  # m + 6 bits of a number with no finite expansion
    steps: Steps = []
    start = shown(op)
    if start is not None and e != start:
        steps.append(("normalize", f"= {sci(exact, e, frac)}   (the leading 1 moves to 2^{e})"))
    if e < fmt.emin and not fmt.has_subnormals:  # E8M0: no subnormals, no zero
        if op.parts.kind.value == "nan":
            to = "rounding toward zero leaves no value: NaN"
        else:
            to = f"the result is that smallest value, {fmt.min!r}"
        steps.append(
            ("round", f"below the smallest value 2^{fmt.emin}, with no subnormals or zero: {to}")
        )
        return steps
    if e < fmt.emin:
        steps.append(
            ("subnormal", f"below the smallest normal 2^{fmt.emin}: written "
             f"{sci(exact, kept, frac)}, so fewer significant bits are kept")
        )  # fmt: skip
    sign = "-" if exact < 0 else "+"
    head, tail = split_bits(exact, kept, m, frac)
    mode = "nearest_even" if op.rounding == "stochastic" else op.rounding
    ex = explain_rounding(exact, fmt, mode, overflow=op.overflow)
    if ex.is_exact:
        fits = f"{sign}{head.rstrip('.')} x 2^{kept} fits in {m} bits after the point: exact"
        return [*steps, ("round", fits)]
    if tail:
        steps.append(("round", f"keep {m} bits after the point: {sign}{head}|{tail} x 2^{kept}"))
    else:  # nothing to drop, yet too large
        steps.append(
            ("round", f"{sign}{head.rstrip('.')} x 2^{kept} fits in {m} bits after the point, "
             f"but lies past the largest finite value, {fmt.max!r}")
        )  # fmt: skip
    position = ex.position
    assert position is not None  # a finite input that is not representable
    if op.rounding == "stochastic" and position < 1:
        chance = str(position)
        if position.denominator >= 10**9:  # 6 digits that never read as 0 or 1
            near_one = position > Fraction(1, 2)
            chance = f"1-{magnitude_text(1 - position)}" if near_one else magnitude_text(position)
        steps.append(
            ("", f"stochastic: away from zero with probability {chance}, the dropped part in "
             f"ULPs -> {op.value!r} this time")
        )  # fmt: skip
        return steps
    if ex.guard is not None:
        steps.append(
            ("", f"guard bit {ex.guard} (the first bit dropped), round bit {ex.round} (the "
             f"next), sticky bit {ex.sticky} (the OR of all later bits)")
        )  # fmt: skip
    if op.rounding == "stochastic":  # past the largest value: nothing to draw
        steps.append(("", f"stochastic, past the largest finite value: {op.value!r}"))
    else:
        steps.append(("", ex.choices[mode].reason))
    return steps


def _zero(negative: bool) -> str:
    return "-0" if negative else "+0"


def zero_line(op: Operation) -> tuple[str, str]:
    """Which zero an exact zero result is, by IEEE 754's sign rules (6.3)."""
    fmt, ps = op.format, op.operands
    if not fmt.has_zero:
        return ("special", f"the exact result is zero, and {fmt.name} has no zero (no sign "
                "either): NaN (invalid operation)")  # fmt: skip
    if op.op in ("add", "sub", "fma"):
        if op.op == "fma":
            first = bool(ps[0].sign) != bool(ps[1].sign)
            zeros = ps[0].exact == 0 or ps[1].exact == 0
            second, last = bool(ps[2].sign), ps[2]
        else:
            first, zeros, last = bool(ps[0].sign), ps[0].exact == 0, ps[1]
            second = bool(last.sign) != (op.op == "sub")
        if zeros and last.exact == 0 and first == second:
            negative, rule = first, "a sum of two zeros of the same sign keeps it"
        else:
            negative = op.rounding == "down"
            rule = "an exact zero sum is +0, or -0 when rounding down (IEEE 754)"
    elif op.op in ("mul", "div"):
        negative = bool(ps[0].sign) != bool(ps[1].sign)
        what = "product" if op.op == "mul" else "quotient"
        rule = f"a zero {what} takes the XOR of the operands' signs"
    else:  # sqrt, remainder
        negative = bool(ps[0].sign)
        rule = "sqrt keeps the sign of a zero" if op.op == "sqrt" else "a zero remainder " \
            "takes the sign of a"  # fmt: skip
    text = f"{rule}: {_zero(negative)}"
    if negative and not fmt.has_negative_zero:
        text += f"; {fmt.name} has no -0: +0"
    return ("zero", text)


def sign_lines(op: Operation) -> Steps:
    """neg and abs: the sign bit, or the format's rule where it cannot simply change."""
    fmt, p = op.format, op.operands[0]
    if p.kind.value == "nan":
        if fmt.tabulated and not (fmt.nan_encoding == "fn" and fmt.is_signed):
            return [(op.op, f"the one NaN of {fmt.name} has no sign: NaN, no flags")]
        return [(op.op, "only the sign bit changes: still NaN, no flags")]
    if op.op == "neg" and not fmt.is_signed:
        return [(op.op, f"{fmt.name} has no sign: -a has no value: NaN (invalid operation)")]
    if op.op == "neg" and p.exact == 0 and not fmt.has_negative_zero:
        return [(op.op, f"{fmt.name} has no -0: -(+0) is +0, no flags")]
    what = "-a flips it" if op.op == "neg" else "|a| clears it"
    return [(op.op, f"only the sign bit changes: {what}; no rounding, no flags")]


def _invalid_case(op: Operation) -> str:
    ps = op.operands
    if op.op in ("add", "sub"):
        return "infinities that cancel (inf - inf) have no value"
    if op.op == "mul":
        return "0 x inf has no value"
    if op.op == "div":
        return ("0 / 0" if ps[0].is_finite else "inf / inf") + " has no value"
    if op.op == "sqrt":
        return "a negative number has no real square root"
    if op.op == "remainder":
        return "remainder(inf, b) and remainder(a, 0) have no value"
    if any(p.is_finite and p.exact == 0 for p in ps[:2]):
        return "0 x inf has no value"
    return "a x b is infinite and c the infinity of the other sign: inf - inf has no value"


def special_line(op: Operation) -> tuple[str, str]:
    """NaN operands, invalid operations, division by zero, infinite results."""
    kind = op.parts.kind.value
    if any(p.kind.value == "nan" for p in op.operands):
        if "invalid" in op.flags:
            return ("special", "a signalling NaN operand: invalid operation, the result is NaN")
        return ("special", "a NaN operand: the result is NaN (no flag for a quiet NaN)")
    if "invalid" in op.flags:
        return ("special", f"{_invalid_case(op)}: invalid operation, the result is NaN")
    if "division_by_zero" in op.flags:
        why = "a nonzero number over zero: an exact infinity (division by zero)"
        if kind != "inf":  # fnuz and fn formats: no infinity to give
            instead = "NaN" if kind == "nan" else "its largest value"
            why += f"; {op.format.name} has no infinity: {instead}"
        return ("special", why)
    sign = "-" if op.parts.sign else "+"
    return ("special", f"an infinite operand: the exact result is {sign}inf")


def no_value(op: Operation) -> str:
    """Why a finite exact result became NaN: an unsigned format (E8M0)."""
    return (
        f"the exact result is a negative number, and {op.format.name} has no value for it "
        "(no sign): NaN (invalid operation)"
    )
