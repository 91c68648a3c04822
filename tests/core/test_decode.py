"""decode / from_bits / decode_array: the public scalar and array API."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fpexplore import FloatParts, Kind, decode, decode_array, from_bits


def test_book_pi_figure_from_bits() -> None:
    p = from_bits(0x40490FDB, "float32")
    assert (p.sign, p.exponent, p.mantissa) == (0, 128, 4788187)
    assert p.value == 3.1415927410125732
    assert p.kind == "normal" and p.kind is Kind.NORMAL
    assert p.bits == "01000000010010010000111111011011"
    assert p.exact == Fraction(13176795, 2**22)


def test_design_card_repl_example() -> None:
    p = decode(3.14159, "float32")
    assert (p.sign, p.exponent, p.mantissa) == (0, 128, 4788176)
    assert p.code == 0x40490FD0 and p.hex == "0x40490FD0"
    assert p.value == 3.1415901184082031
    assert p.unbiased_exponent == 1 and p.significand == 1 + Fraction(4788176, 2**23)
    assert p.ulp == 2.0**-22
    assert p.abs_error == pytest.approx(1.184082e-07, rel=1e-6)
    assert p.ulp_error < 0.5


def test_str_is_readable_breakdown() -> None:
    text = str(decode(3.14159, "float32"))
    assert "0 | 10000000 | 10010010000111111010000" in text
    assert "(-1)^0 x 2^(128-127) x (1 + 4788176/2^23)" in text
    assert "3.141590118408203125 (exactly)" in text
    assert "neighbours" in text and "0x40490FCF" in text and "0x40490FD1" in text
    assert "abs 1.1841e-07" in text
    assert repr(decode(3.14159, "float32")).count("\n") == 0


def test_subnormal_breakdown_and_all_digits() -> None:
    p = decode(5e-324, "float64")
    assert p.kind == "subnormal" and p.exponent == 0 and p.mantissa == 1
    text = str(p)
    assert "(0 + 1/2^52)" in text and "2^(1-1023)" in text
    (line,) = [ln for ln in text.splitlines() if ln.endswith("(exactly)")]
    digits = line.split("= ")[1].split(" (exactly)")[0]
    assert Fraction(digits) == Fraction(1, 2**1074)
    assert len(digits) > 750


def test_zero_error_of_float_versus_decimal_string() -> None:
    assert decode(0.1, "float64").abs_error == 0.0
    exact_error = Fraction(0.1) - Fraction(1, 10)
    assert decode("0.1", "float64").abs_error == float(exact_error)
    assert decode("0.1", "float64").rel_error == float(exact_error * 10)


def test_errors_are_relative_to_exact_input() -> None:
    p = decode("1/3", "float16")
    assert p.error == p.exact - Fraction(1, 3)
    assert p.abs_error == float(abs(p.error))
    assert p.ulp_error == float(abs(p.error) / Fraction(1, 2**12))
    assert decode(0, "float16").rel_error == 0.0
    assert decode("1e-9", "float16").rel_error == 1.0  # flushed to zero: all of it lost
    assert math.isinf(decode(1e6, "float16").abs_error)
    assert decode("inf", "float16").abs_error == 0.0
    assert decode("-inf", "float16", overflow="saturate").abs_error == 0.0  # IEEE keeps inf
    assert math.isinf(decode("-inf", "e4m3", overflow="saturate").abs_error)
    assert math.isnan(decode("nan", "float16").abs_error)


def test_negative_zero_keeps_sign() -> None:
    p = decode(-0.0, "bfloat16")
    assert p.sign == 1 and p.kind == "zero" and math.copysign(1, p.value) == -1


@pytest.mark.parametrize(
    "spec",
    [0x40490FDB, "0x40490FDB", "0x40490fdb", "0b01000000010010010000111111011011",
     "0 10000000 10010010000111111011011", "0100_0000_0100_1001_0000_1111_1101_1011",
     np.uint32(0x40490FDB)],
)  # fmt: skip
def test_from_bits_spellings(spec: object) -> None:
    assert from_bits(spec, "float32").code == 0x40490FDB


def test_from_bits_specials() -> None:
    assert from_bits(0x7C00, "float16").kind == "inf"
    nan = from_bits("0x7D01", "float16")
    assert nan.kind == "nan" and nan.quiet is False and nan.nan_payload == 0x101
    assert from_bits(0xFF, "e4m3").kind == "nan"
    assert from_bits(0x7E, "e4m3").value == 448.0
    assert from_bits(0x0001, "float16").value == 2.0**-24
    assert from_bits(0x40490FDB, "float32").abs_error == 0.0


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        (-1, ValueError, "out of range"), (2**16, ValueError, "out of range"),
        ("0x10000", ValueError, "out of range"), ("0101", ValueError, "needs exactly 16"),
        ("xyz", ValueError, "bit pattern"), ("0x", ValueError, "bit pattern"),
        (1.5, TypeError, "bit pattern"), (None, TypeError, "bit pattern"),
        (True, TypeError, "bool"),
    ],
)  # fmt: skip
def test_from_bits_bad_input(spec: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message) as info:
        from_bits(spec, "float16")
    assert repr(spec) in str(info.value) or isinstance(spec, bool)


def test_neighbours() -> None:
    one = decode(1, "float16")
    assert one.next_up().value == 1 + 2**-10
    assert one.next_down().value == 1 - 2**-11
    assert decode(65504, "float16").next_up().kind == "inf"
    assert decode("-inf", "float16").next_up().value == -65504
    assert decode(0, "float16").next_down().value == -(2**-24)
    assert decode(448, "e4m3").next_up().kind == "nan"
    assert decode(6, "e2m1").next_up().value == 6


def test_floatparts_is_frozen() -> None:
    p = decode(1.0, "float16")
    assert isinstance(p, FloatParts)
    with pytest.raises(AttributeError):
        p.code = 3  # type: ignore[misc]


def test_html_hook_exists() -> None:
    assert "<" in decode(1.0, "float16")._repr_html_()


@given(st.floats(allow_nan=False, width=32))
def test_float32_fields_equal_bit_fields(x: float) -> None:
    (bits,) = struct.unpack("<I", struct.pack("<f", x))
    p = decode(x, "float32")
    assert p.code == bits
    assert (p.sign, p.exponent, p.mantissa) == (bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF)
    assert p.value == x or (x == 0 and p.value == 0)


@given(st.floats(allow_nan=False))
def test_float64_fields_equal_bit_fields(x: float) -> None:
    (bits,) = struct.unpack("<Q", struct.pack("<d", x))
    p = decode(x, "float64")
    assert (p.sign, p.exponent, p.mantissa) == (
        bits >> 63,
        (bits >> 52) & 0x7FF,
        bits & (2**52 - 1),
    )
    assert p.abs_error == 0.0


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_next_up_of_next_down(x: float) -> None:
    p = decode(x, "float32")
    if abs(p.value) < 3.4e38:
        assert p.next_down().next_up().code == p.code or p.kind == "zero"


def test_decode_array_float32_every_field() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    d = decode_array(x, "float32")
    bits = x.view(np.uint32)
    np.testing.assert_array_equal(d.sign, bits >> 31)
    np.testing.assert_array_equal(d.exponent, (bits >> 23) & 0xFF)
    np.testing.assert_array_equal(d.mantissa, bits & 0x7FFFFF)
    np.testing.assert_array_equal(d.kind == "nan", np.isnan(x))
    np.testing.assert_array_equal(d.kind == Kind.INF, np.isinf(x))
    assert len(d) == x.size


def test_decode_array_codes_and_rounding() -> None:
    d = decode_array(np.arange(2**16, dtype=np.uint16), "float16")
    assert (d.kind == "normal").sum() == 2 * 30 * 1024
    assert (d.kind == "subnormal").sum() == 2 * 1023
    assert (d.kind != "nan").sum() == 2**16 - 2 * 1023
    np.testing.assert_array_equal(d.value[:3], [0.0, 2.0**-24, 2.0**-23])
    r = decode_array([0.1, 3.14159], "bfloat16")
    assert r.code.tolist() == [decode(0.1, "bfloat16").code, decode(3.14159, "bfloat16").code]
    assert list(decode_array(np.array([3, 4]), "float16", codes=False).value) == [3.0, 4.0]
    assert decode_array(np.array([0.0, 1.0, np.inf]), "float16").kind.names().tolist() == [
        "zero", "normal", "inf",
    ]  # fmt: skip


def test_decode_array_bad_input() -> None:
    with pytest.raises(ValueError, match="out of range"):
        decode_array(np.array([70000]), "float16")
    with pytest.raises(TypeError, match="dtype"):
        decode_array(np.array(["a"]), "float16")
