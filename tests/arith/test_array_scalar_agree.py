"""Array operations agree with the scalar path, element by element: neg and abs
on every code of every format of at most 8 bits (and samples of the 16-bit ones),
sums and dot products of signed zeros in every format and order (issue 21, 2)."""

from __future__ import annotations

import functools
import itertools

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K

SMALL = [name for name, f in fpx.FORMATS.items() if f.bits <= 8]
WIDE = ["float16", "bfloat16"]


def _same(a: float, b: float) -> bool:
    """Equal values with equal signs (zeros), or both NaN."""
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    return a == b and np.signbit(a) == np.signbit(b)


def _every_value(name: str, sample: int | None = None) -> np.ndarray:
    fmt = fpx.get_format(name)
    codes = np.arange(1 << fmt.bits)
    if sample is not None:
        rng = np.random.default_rng(21)
        codes = np.unique(np.concatenate([codes[:64], codes[-64:], rng.choice(codes, sample)]))
        codes = np.concatenate([codes, [1 << (fmt.bits - 1)]])  # -0 (or fnuz NaN)
    return K.codes_to_values(codes.astype(K.code_dtype(fmt)), fmt)


@pytest.mark.parametrize("name", [*SMALL, *WIDE])
@pytest.mark.parametrize("op", ["neg", "abs"])
def test_sign_ops_array_equals_scalar(name: str, op: str) -> None:
    values = _every_value(name, None if name in SMALL else 2000)
    array = getattr(fpx, op)(values, name)
    for x, got in zip(values.tolist(), array.tolist(), strict=True):
        scalar = getattr(fpx, op)(x, name).value
        assert _same(got, scalar), (op, name, x, got, scalar)


@pytest.mark.parametrize("name", ["float8_e8m0fnu"])
def test_neg_in_e8m0_is_nan(name: str) -> None:
    out = fpx.neg(np.array([2.0, 1.0, 2.0**-127]), name)
    assert np.isnan(out).all()  # -x has no value in an unsigned format: NaN


@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "float8_e5m2fnuz", "p3109_p3"])
def test_no_minus_zero_in_array_results(name: str) -> None:
    out = fpx.neg(np.array([0.0, -0.0]), name)
    assert not np.signbit(out).any()


ZEROS = [0.0, -0.0]


@pytest.mark.parametrize("name", [*fpx.FORMATS])
@pytest.mark.parametrize("order", ["sequential", "pairwise", "kahan"])
def test_sums_of_zeros_follow_ieee(name: str, order: str) -> None:
    """sum(zeros) = the scalar additions in turn: -0 only when every zero is -0
    (and the format has -0; E8M0 has no zero: NaN, as 0 + 0 there)."""
    for n in (1, 2, 3):
        for terms in itertools.product(ZEROS, repeat=n):
            got = fpx.sum(np.array(terms), name, order=order).value
            want = functools.reduce(lambda s, x: fpx.add(s, x, name).value, terms)
            want = fpx.round_to(want, name) if n == 1 else want
            assert _same(got, float(want)), (name, order, terms, got, want)


def test_the_issue_sum() -> None:
    assert np.signbit(fpx.sum([-0.0, -0.0], "float32").value)
    assert np.signbit(fpx.sum(np.array([-0.0, -0.0]), "float16", order="kahan").value)
    assert np.signbit(fpx.dot([-1.0], [0.0], "float32").value)  # one product, -0
    assert not np.signbit(fpx.sum([-0.0, 0.0], "float32").value)


CUSTOM_TABULATED = [
    fpx.Format("s8m0", 8, 0, 127, "fn"),  # tabulated (no mantissa bits), with -0
    fpx.Format("e5m2fnuz_b16", 5, 2, 16, "fnuz"),
    fpx.Format("e4m3p", 4, 3, 8, "p3109"),
]


@pytest.mark.parametrize("fmt", CUSTOM_TABULATED, ids=lambda f: f.name)
@pytest.mark.parametrize("op", ["neg", "abs"])
def test_sign_ops_of_custom_tabulated_formats(fmt: fpx.Format, op: str) -> None:
    """A tabulated format that has -0 keeps it (neg(+0) is -0 in s8m0), one
    without it gives +0: as the scalar path, code by code."""
    values = K.codes_to_values(np.arange(1 << fmt.bits).astype(K.code_dtype(fmt)), fmt)
    array = getattr(fpx, op)(values, fmt)
    for x, got in zip(values.tolist(), array.tolist(), strict=True):
        scalar = getattr(fpx, op)(x, fmt).value
        assert _same(got, scalar), (op, fmt.name, x, got, scalar)


def test_nan_sign_in_a_signed_fn_tabulated_format() -> None:
    """s8m0 has a NaN of each sign (0x0FF, 0x1FF): neg flips the sign bit of a
    NaN and abs clears it, as in float8_e4m3fn; its explanation says so."""
    fmt = CUSTOM_TABULATED[0]
    assert fpx.neg("nan", fmt).parts.code == 0x1FF
    assert fpx.neg("-nan", fmt).parts.code == 0x0FF
    assert fpx.abs("-nan", fmt).parts.code == 0x0FF
    assert "only the sign bit changes: still NaN" in str(fpx.neg("nan", fmt))
    out = fpx.neg(np.array([np.nan, -np.nan]), fmt)
    assert np.isnan(out).all() and np.signbit(out).tolist() == [True, False]


_NAN_BITS = {
    "float32": (np.uint32, [0x7F800001, 0xFF800100, 0x7FC00001, 0x7FA00000, 0xFFFFFFFF]),
    "float16": (np.uint16, [0x7C01, 0xFE01, 0x7D00, 0xFC20]),
    "bfloat16": (np.uint16, [0x7F81, 0xFFC1, 0x7FA0, 0xFF80 | 0x3]),
    "float64": (np.uint64, [0x7FF0000000000001, 0xFFF8000000000123, 0x7FF4000000000000]),
}


@pytest.mark.parametrize("name", list(_NAN_BITS))
@pytest.mark.parametrize("op", ["neg", "abs"])
def test_sign_ops_keep_nan_bits_as_the_scalar_path(name: str, op: str) -> None:
    """neg and abs only touch the sign bit, a signalling NaN's too (IEEE 754, 5.5.1),
    on the array path as on the scalar one: an array of the format's own dtype was
    widened by the hardware, which quiets a signalling NaN."""
    uint, bits = _NAN_BITS[name]
    fmt = fpx.get_format(name)
    arr = np.array(bits, uint).view(np.dtype(ml_dtypes.bfloat16 if name == "bfloat16" else name))
    swapped = arr.byteswap().view(arr.dtype.newbyteorder()) if name != "bfloat16" else arr
    for given in (arr, swapped):
        got = K.round_codes(getattr(fpx, op)(given, name), fmt).tolist()
        want = [getattr(fpx, op)(fpx.from_bits(b, fmt), name).parts.code for b in bits]
        assert got == want, [hex(c) for c in got]
