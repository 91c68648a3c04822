"""decode()'s flags: the IEEE 754 flags of rounding the input into the format, by the rules
the arithmetic uses (``exact_op``): overflow, underflow (tiny after rounding and inexact),
inexact, and invalid where the format has no value for the input."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import fpexplore as fpx
from fpexplore import codes as K
from fpexplore.exact import exact_op

MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]
EIGHT_BITS_OR_FEWER = [name for name, f in fpx.FORMATS.items() if f.bits <= 8] + ["e3m4"]


def _finite_values(fmt) -> list[Fraction]:
    values = K.codes_to_values(range(fmt.n_codes), fmt)
    return [Fraction(float(v)) for v in values if abs(v) != float("inf") and v == v]


@pytest.mark.parametrize("name", [*EIGHT_BITS_OR_FEWER, "float16", "bfloat16"])
def test_flags_are_those_of_an_operation_with_the_same_exact_result(name: str) -> None:
    """An exact result r of add/mul/div and decode(r) are the same rounding: same code,
    same flags (the arithmetic's special cases aside: x/0, inf and NaN operands)."""
    fmt = fpx.get_format(name)
    values = _finite_values(fmt)
    rng = random.Random(20)
    checked = 0
    for _ in range(400):
        a, b = rng.choice(values), rng.choice(values)
        for op, exact in (("add", a + b), ("mul", a * b), ("div", a / b if b else None)):
            if exact is None:
                continue
            mode = rng.choice(MODES)
            codes = (fpx.decode(a, fmt).code, fpx.decode(b, fmt).code)
            result = exact_op(op, codes, fmt, mode)
            if exact == 0:  # the sign of an exact zero follows the operation's rules
                continue
            parts = fpx.decode(exact, fmt, mode)
            assert parts.code == result.code, (op, a, b, mode)
            assert parts.flags == result.flags, (op, a, b, mode, parts.flags, result.flags)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    ("value", "fmt", "rounding", "flags"),
    [
        (500, "e4m3", "nearest_even", {"overflow", "inexact"}),  # NaN: no infinity
        (65520, "float16", "nearest_even", {"overflow", "inexact"}),  # the tie rounds to inf
        (65505, "float16", "nearest_even", {"inexact"}),  # rounds down to max: no overflow
        (1e6, "float16", "toward_zero", {"overflow", "inexact"}),  # max, still an overflow
        (70000, "fp4", "nearest_even", {"overflow", "inexact"}),  # saturates
        ("1e-10", "float16", "nearest_even", {"underflow", "inexact"}),  # flushed to zero
        ("1e-6", "float16", "nearest_even", {"underflow", "inexact"}),  # an inexact subnormal
        (2.0**-24, "float16", "nearest_even", set()),  # an exact subnormal
        (2.0**-126 - 2.0**-150, "float32", "nearest_even", {"underflow", "inexact"}),
        ("0.1", "float32", "nearest_even", {"inexact"}),
        (0.5, "float32", "nearest_even", set()),
        ("-0", "float16", "nearest_even", set()),
        ("inf", "float16", "nearest_even", set()),
        ("nan", "float16", "nearest_even", set()),
        ("snan", "float32", "nearest_even", set()),  # kept as a pattern: no operation
        ("inf", "e4m3", "nearest_even", {"invalid"}),  # no infinity: NaN
        ("-inf", "fp4", "nearest_even", {"inexact"}),  # no infinity, no NaN: -max
        (-1, "e8m0", "nearest_even", {"invalid"}),  # unsigned: no value, NaN
        (0, "e8m0", "nearest_even", {"invalid"}),  # no zero
        (2.0**-130, "e8m0", "toward_zero", {"underflow", "inexact"}),  # NaN, as exact_op
        (2.0**-130, "e8m0", "nearest_even", {"underflow", "inexact"}),  # 2**-127
        (-(2.0**-30), "p3109_p3", "nearest_even", {"underflow", "inexact"}),  # +0: no -0
    ],
)  # fmt: skip
def test_flags_of_single_values(value, fmt, rounding, flags) -> None:
    assert fpx.decode(value, fmt, rounding).flags == frozenset(flags)


def test_saturation_keeps_the_overflow_flag() -> None:
    p = fpx.decode(1e6, "float16", overflow="saturate")
    assert p.value == 65504 and p.flags == {"overflow", "inexact"}


def test_bit_patterns_have_no_flags() -> None:
    assert fpx.from_bits(0x7C00, "float16").flags == frozenset()
    assert fpx.from_bits(0x7F, "e4m3").flags == frozenset()


def test_flags_of_stand_in_inputs() -> None:
    assert fpx.decode("1e99999999999999999999", "float32").flags == {"overflow", "inexact"}
    assert fpx.decode("1e-99999999999", "float32").flags == {"underflow", "inexact"}
    assert fpx.decode("0." + "1" * 3000, "float32").flags == {"inexact"}
