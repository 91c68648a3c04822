"""Exact rounding of any real input, against a brute-force Fraction oracle."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from fpexplore import FORMATS, decode, get_format
from fpexplore.exact import parse_real, round_real
from fpexplore.render.text import exact_decimal
from tests.oracle import finite_values, oracle_round

SMALL = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn",
         "float6_e3m2fn", "float4_e2m1fn", "e3m4"]  # fmt: skip
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


def stored(text_or_value: object, fmt: str, mode: str = "nearest_even") -> Fraction | str:
    parts = decode(text_or_value, fmt, rounding=mode)
    if parts.kind == "nan":
        return "nan"
    if parts.kind == "inf":
        return "-inf" if parts.sign else "inf"
    return parts.exact


def _decimal_string(x: Fraction) -> str:
    """The exact decimal expansion of a dyadic rational."""
    return exact_decimal(x)


def test_no_double_rounding_issue_example() -> None:
    # 1 + 2**-11 + 2**-60 lies just above the float16 tie between 1 and 1 + 2**-10
    exact = 1 + Fraction(1, 2**11) + Fraction(1, 2**60)
    text = _decimal_string(exact)
    assert Fraction(text) == exact
    assert stored(text, "float16") == 1 + Fraction(1, 2**10)
    # through float64 the 2**-60 is lost, the tie goes to even: 1.0
    assert np.float16(float(text)) == 1.0
    assert stored(float(text), "float16") == 1


@pytest.mark.parametrize("fmt", SMALL)
@pytest.mark.parametrize("mode", MODES)
def test_ties_and_near_ties_against_oracle(fmt: str, mode: str) -> None:
    values = finite_values(get_format(fmt).name)
    rng = random.Random(f"{fmt}-{mode}")
    picks = rng.sample(range(len(values) - 1), min(200, len(values) - 1))
    tiny = Fraction(1, 2**200)
    for i in picks:
        mid = (values[i] + values[i + 1]) / 2
        for x in (mid, mid + tiny, mid - tiny, values[i] + tiny, values[i + 1] - tiny):
            for signed in (x, -x):
                expected = oracle_round(signed, get_format(fmt), mode)
                assert stored(signed, fmt, mode) == expected, (fmt, mode, signed)


@pytest.mark.parametrize("fmt", [*SMALL, "tf32"])
def test_random_decimal_strings_against_oracle(fmt: str) -> None:
    rng = random.Random(fmt)
    f = get_format(fmt)
    for _ in range(300):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        exponent = rng.randint(-12, 8)
        text = f"{rng.choice('+-')}{digits[0]}.{digits[1:] or '0'}e{exponent}"
        for mode in MODES:
            expected = oracle_round(Fraction(Decimal(text)), f, mode)
            assert stored(text, fmt, mode) == expected, (fmt, mode, text)


@pytest.mark.parametrize("fmt", SMALL)
def test_overflow_thresholds(fmt: str) -> None:
    f = get_format(fmt)
    top = Fraction(f.max)
    half_step = Fraction(2) ** (f.emax - f.mantissa_bits - 1)
    for x in (top + half_step, top + half_step - Fraction(1, 2**100), top * 1000, top + 1):
        for mode in MODES:
            for signed in (x, -x):
                assert stored(signed, fmt, mode) == oracle_round(signed, f, mode)


def test_overflow_conventions() -> None:
    assert stored(70000, "float16") == "inf"
    assert stored(-70000, "float16") == "-inf"
    assert stored(70000, "float16", "toward_zero") == 65504
    assert stored(-70000, "float16", "up") == -65504
    assert stored(1000, "e4m3") == "nan"  # OCP FP8 / ml_dtypes: overflow to NaN
    assert stored(464, "e4m3") == 448  # a tie below the NaN pattern rounds to even
    assert stored(100, "e2m1") == 6  # FP4 has neither inf nor NaN: saturate
    assert decode(1000, "e4m3", overflow="saturate").value == 448
    assert decode(1e6, "float16", overflow="saturate").value == 65504
    assert decode("inf", "float16", overflow="saturate").value == np.inf
    assert decode("-inf", "e4m3", overflow="saturate").value == -448
    assert decode("inf", "e4m3").kind == "nan"


def test_gradual_underflow_and_signed_zero() -> None:
    tiny = Fraction(1, 2**24)  # float16's smallest subnormal
    assert stored(tiny * Fraction(3, 4), "float16") == tiny
    assert stored(tiny / 2, "float16") == 0  # the tie goes to even: zero
    assert decode(-tiny / 4, "float16").bits == "1" + "0" * 15  # -0 keeps its sign
    assert stored(tiny / 4, "float16", "up") == tiny
    assert stored("1e-8", "half") == 0
    assert decode("1e-8", "half").sign == 0


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.1", Fraction(1, 10)), ("-1e-8", Fraction(-1, 10**8)), ("1_000", 1000),
        ("0x1.8p1", 3), ("-0x.8p-1", Fraction(-1, 4)), ("  2.5  ", Fraction(5, 2)),
        (".5", Fraction(1, 2)), ("5.", 5), ("1/3", Fraction(1, 3)), ("+7", 7),
        ("1E3", 1000), ("0x10", 16), ("0X1P-2", Fraction(1, 4)),
    ],
)  # fmt: skip
def test_string_parsing(text: str, value: Fraction) -> None:
    assert parse_real(text).value == value


@pytest.mark.parametrize(
    ("text", "special", "sign"),
    [("inf", "inf", 0), ("-Infinity", "inf", 1), ("nan", "nan", 0), ("-nan", "nan", 1),
     ("snan", "nan", 0)],
)  # fmt: skip
def test_special_strings(text: str, special: str, sign: int) -> None:
    exact = parse_real(text)
    assert (exact.special, exact.sign) == (special, sign)


def test_negative_zero_string_and_float() -> None:
    assert decode("-0", "float32").code == 0x80000000
    assert decode(-0.0, "float32").code == 0x80000000
    assert decode(0, "float32").code == 0


def test_all_input_types_agree() -> None:
    expected = decode("0.375", "e4m3").code
    for x in (0.375, Fraction(3, 8), Decimal("0.375"), np.float32(0.375), np.float16(0.375),
              np.float64(0.375), np.longdouble("0.375"), "3/8", "0x1.8p-2"):  # fmt: skip
        assert decode(x, "e4m3").code == expected, x
    assert decode(np.int64(-7), "float16").value == -7.0
    assert decode(np.array(2.5), "float16").value == 2.5


def test_huge_integers() -> None:
    assert decode(10**400, "float64").kind == "inf"
    assert decode(2**1023 * 3 // 2, "float64").value == 1.5 * 2.0**1023
    assert decode(-(10**400), "float64", rounding="toward_zero").value == -FORMATS["float64"].max
    assert decode(2**24 + 1, "float32").value == 2.0**24  # tie to even


def test_float_inputs_are_exact_binary_values() -> None:
    assert decode(0.1, "float64").abs_error == 0.0
    assert decode("0.1", "float64").abs_error == pytest.approx(5.551115123125783e-18, rel=1e-15)


def test_nan_payload_and_quiet_bit() -> None:
    payload_nan = np.frombuffer(np.uint64(0x7FF4000000000123).tobytes(), np.float64)[0]
    p64 = decode(float(payload_nan), "float64")
    assert p64.code == 0x7FF4000000000123 and p64.quiet is False
    p32 = decode(float(payload_nan), "float32")  # keeps the quiet bit and top payload bits
    assert p32.code == 0x7FA00000 and p32.quiet is False
    low_payload = np.frombuffer(np.uint64(0x7FF0000000000001).tobytes(), np.float64)[0]
    assert decode(float(low_payload), "float16").code == 0x7C01  # still a signalling NaN
    assert decode(float(low_payload), "float16").kind == "nan"
    snan32 = np.frombuffer(np.uint32(0x7F800001).tobytes(), np.float32)[0]
    assert decode(snan32, "float32").code == 0x7F800001  # numpy scalars read by their bits
    assert decode(snan32, "float32").quiet is False
    assert decode(np.frombuffer(np.uint16(0xFC01).tobytes(), np.float16)[0], "half").code == 0xFC01
    assert decode("nan", "float32").code == 0x7FC00000
    assert decode("-nan", "float16").code == 0xFE00
    snan = decode("snan", "float32")
    assert snan.kind == "nan" and snan.quiet is False and snan.nan_payload == 1
    assert decode("nan", "e4m3").code == 0x7F
    with pytest.raises(ValueError, match="no NaN"):
        decode("nan", "e2m1")


@pytest.mark.parametrize(
    "bad", ["abc", "", "1..2", "0x", "1e", "--1", "1/0", "nan(1)", "1e" + "9" * 101, "0b101"]
)
def test_bad_strings(bad: str) -> None:
    with pytest.raises(ValueError, match="expected|exponent|divides") as info:
        decode(bad, "float32")
    assert repr(bad)[:40] in str(info.value)


@pytest.mark.parametrize("bad", [None, True, 1 + 2j, [1.0], np.zeros(3), object()])
def test_bad_types(bad: object) -> None:
    with pytest.raises(TypeError, match="expected"):
        decode(bad, "float32")


def test_bad_rounding_and_overflow() -> None:
    with pytest.raises(ValueError, match="'sideways'.*nearest_even"):
        decode(1.0, "float32", rounding="sideways")
    with pytest.raises(ValueError, match="stochastic"):  # stochastic exists only in round_to
        decode(1.0, "float32", rounding="stochastic")
    with pytest.raises(ValueError, match="'clip'.*saturate"):
        decode(1.0, "float32", overflow="clip")


def test_round_real_matches_decode() -> None:
    assert round_real(parse_real("3.14159"), "float32") == 0x40490FD0


def _nearest_even_oracle(
    x: Fraction, candidates: list[float], mantissa_bits: int, emin: int
) -> float:
    """The candidate nearest to x (exact Fractions), ties to the even significand."""
    best = sorted(candidates, key=lambda c: abs(Fraction(c) - x))
    first, second = best[0], best[1]
    if abs(Fraction(first) - x) != abs(Fraction(second) - x):
        return first
    last_bit = [
        (Fraction(c) / Fraction(2) ** (max(math.frexp(c)[1] - 1, emin) - mantissa_bits)).numerator
        % 2
        for c in (first, second)
    ]
    return first if last_bit[0] == 0 else second


@pytest.mark.parametrize(
    ("fmt", "dtype", "m"), [("float32", np.float32, 23), ("float64", np.float64, 52)]
)
def test_decimal_strings_near_ties_wide_formats(fmt: str, dtype: type, m: int) -> None:
    """Exact decimal strings just around midpoints of float32/float64 neighbours,
    against an exact Fraction oracle over the three nearest candidates."""
    rng = np.random.default_rng(11)
    tiny = Fraction(1, 2**1200)
    with np.errstate(over="ignore"):
        for bits in rng.integers(1, 2 ** (8 * np.dtype(dtype).itemsize - 2), 300, dtype=np.uint64):
            value = np.array([bits]).astype(f"u{np.dtype(dtype).itemsize}").view(dtype)[0]
            if not np.isfinite(value) or value == 0:
                continue
            upper = np.nextafter(value, dtype(np.inf))
            if not np.isfinite(upper):
                continue
            mid = (Fraction(float(value)) + Fraction(float(upper))) / 2
            for x in (mid, mid + tiny, mid - tiny):
                text = exact_decimal(x)
                stored = decode(text, fmt).value
                near = float(np.float64(dtype(float(x))))
                candidates = [float(value), float(upper), near]
                emin = get_format(fmt).emin
                assert stored == _nearest_even_oracle(x, candidates, m, emin), (fmt, text)
                if fmt == "float64":
                    assert stored == float(text)  # CPython's correctly rounded parser


def test_random_long_decimal_strings_into_float64_match_cpython() -> None:
    rng = random.Random(5)
    for _ in range(500):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40)))
        text = f"{rng.choice('+-')}{digits[0]}.{digits[1:] or '0'}e{rng.randint(-330, 310)}"
        assert decode(text, "float64").value == float(text), text
