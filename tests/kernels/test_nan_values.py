"""NaN bits in the *values* of every array path (issue 21, 8): the float64 values of
``round_to``, ``decode_array`` and ``codes_to_values``, and the narrow results of
``round_to(..., dtype="narrow" | ml_dtypes type)``, hold the NaN of the rule in
docs/guarantees.md (sign, quiet bit, top payload bits; a signalling NaN left without payload gets
payload 1) for NaNs from every source width. The hardware's float conversions
quiet a signalling NaN; these paths must not."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from tests.oracle import exact_elements, expected_code

FORMATS = ["float64", "float32", "float16", "bfloat16", "tf32", "float8_e5m2", "float8_e4m3fn"]


def _nan_arrays() -> list[np.ndarray]:
    half = np.array([0x7C01, 0xFD00, 0x7E01, 0x7C00 | 0x155], np.uint16).view(np.float16)
    single = np.array([0x7F800001, 0xFFA00000, 0x7FC00001, 0x7F812345], np.uint32).view(np.float32)
    double = np.array([0x7FF0000000000001, 0xFFF4000000000000, 0x7FF8000000000003], np.uint64)
    bf16 = np.array([0x7F81, 0xFFC1, 0x7FA0, 0x7FC5], np.uint16).view(ml_dtypes.bfloat16)
    e5m2 = np.array([0x7D, 0xFF, 0x7E], np.uint8).view(ml_dtypes.float8_e5m2)
    return [half, single, double.view(np.float64), bf16, e5m2, single.astype(">f4")]


def _widened(code: int, fmt: fpx.Format, width: int) -> int:
    """The bits of a NaN code of ``fmt`` in an IEEE float of ``width`` bits (64, 32,
    16): the sign, then the mantissa (quiet bit and payload) at the top of the
    fraction; an 'fn' format's NaN (no quiet bit) is the canonical quiet NaN."""
    exponent_bits, fraction_bits = {64: (11, 52), 32: (8, 23), 16: (5, 10)}[width]
    m = fmt.mantissa_bits
    sign = code >> (fmt.bits - 1) & 1
    if fmt.nan_encoding == "ieee":
        fraction = (code & ((1 << m) - 1)) << (fraction_bits - m)
    else:
        fraction = 1 << (fraction_bits - 1)
    return sign << (width - 1) | ((1 << exponent_bits) - 1) << fraction_bits | fraction


def _bits(values: np.ndarray) -> list[int]:
    width = values.dtype.itemsize * 8
    return values.view({64: np.uint64, 32: np.uint32, 16: np.uint16}[width]).tolist()


@pytest.mark.parametrize("name", FORMATS)
def test_float64_values_keep_nan_bits(name: str) -> None:
    fmt = fpx.get_format(name)
    for arr in _nan_arrays():
        codes = [expected_code(x, fmt) for x in exact_elements(arr)]
        want = [_widened(c, fmt, 64) for c in codes]
        assert _bits(fpx.round_to(arr, name)) == want, (name, arr.dtype)
        assert _bits(np.asarray(fpx.decode_array(arr, name).value)) == want, (name, arr.dtype)
        code_array = np.array(codes, dtype=K.code_dtype(fmt))
        assert _bits(K.codes_to_values(code_array, fmt)) == want, (name, arr.dtype)


@pytest.mark.parametrize("name", FORMATS)
def test_narrow_values_keep_nan_bits(name: str) -> None:
    fmt = fpx.get_format(name)
    for arr in _nan_arrays():
        codes = [expected_code(x, fmt) for x in exact_elements(arr)]
        narrow = fpx.round_to(arr, name, dtype="narrow")
        width = narrow.dtype.itemsize * 8
        assert _bits(narrow) == [_widened(c, fmt, width) for c in codes], (name, arr.dtype)
        own = getattr(ml_dtypes, name, None) if name not in ("float64", "float32") else None
        if own is not None:
            got = fpx.round_to(arr, name, dtype=own)
            assert got.view(K.code_dtype(fmt)).tolist() == codes, (name, arr.dtype)


def test_the_issue_cases() -> None:
    snan = np.array([0x7F800001], np.uint32).view(np.float32)
    narrow = fpx.round_to(snan, "float32", dtype="narrow")
    assert narrow.view(np.uint32)[0] == 0x7F800001  # still signalling
    assert fpx.round_to(snan, "float32").view(np.uint64)[0] == 0x7FF0000020000000
    bf16 = np.array([0x7F81], np.uint16).view(ml_dtypes.bfloat16)
    assert fpx.round_to(bf16, "bfloat16").view(np.uint64)[0] == 0x7FF0200000000000


@pytest.mark.parametrize("source", ["float8_e8m0fnu", "float8_e4m3fnuz", "float8_e5m2fnuz"])
def test_nans_of_sources_without_a_sign_bit_to_read(source: str) -> None:
    """E8M0 has no sign bit (0xFF is its NaN, its top bit an exponent bit) and an
    fnuz NaN sits at the code of -0: read as ml_dtypes reads them (E8M0's NaN is
    +NaN, fnuz's -NaN), on the scalar and every array path."""
    arr = np.array([0xFF if "e8m0" in source else 0x80], np.uint8).view(getattr(ml_dtypes, source))
    with np.errstate(invalid="ignore"):
        negative = bool(np.signbit(arr.astype(np.float32))[0])  # ml_dtypes' reading
    assert negative == ("fnuz" in source)
    for name in ("float64", "float32", "float16", "bfloat16"):
        fmt = fpx.get_format(name)
        value = fpx.round_to(arr, name)
        assert np.isnan(value).all() and bool(np.signbit(value)[0]) == negative, name
        code = int(K.round_codes(arr, fmt)[0])
        assert code >> (fmt.bits - 1) == negative, (name, hex(code))
        assert fpx.decode(arr[0], name).code == code
        assert int(fpx.decode_array(arr, name).code[0]) == code
        narrow = fpx.round_to(arr, name, dtype="narrow")
        assert bool(np.signbit(narrow)[0]) == negative, name
