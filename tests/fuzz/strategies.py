"""Hypothesis strategies for the fuzz suite: arbitrary inputs of every kind the
public API might meet (text, huge ints and exponents, Fractions, Decimals, numpy
scalars of every kind and byte order, arrays of every dtype)."""

from __future__ import annotations

import os
from decimal import Decimal
from fractions import Fraction

import ml_dtypes
import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FUZZ = settings(derandomize=not os.environ.get("FPX_FUZZ_SEARCH"), deadline=None)
"""The fuzz suite's settings: a fixed sequence of examples in every run (CI and
the README's test command alike), so that it cannot fail by chance; set
``FPX_FUZZ_SEARCH=1`` to search new examples instead."""

FORMAT_NAMES = (
    "float64", "float32", "float16", "bfloat16", "tf32", "float8_e4m3fn", "float8_e5m2",
    "float6_e3m2fn", "float6_e2m3fn", "float4_e2m1fn", "e3m4", "float8_e4m3", "float8_e3m4",
)  # fmt: skip
MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down")

_SIGN = st.sampled_from(["", "-", "+"])
_DIGITS = st.text("0123456789", min_size=1, max_size=30)


@st.composite
def number_texts(draw: st.DrawFn) -> str:
    """Strings that spell numbers, often at the edges: long digit runs, exponents
    far beyond every format, hex floats, ratios, specials."""
    kind = draw(st.sampled_from(["decimal", "exp", "long", "hex", "ratio", "special"]))
    sign = draw(_SIGN)
    if kind == "decimal":
        return f"{sign}{draw(_DIGITS)}.{draw(_DIGITS)}"
    if kind == "exp":
        exponent = draw(st.one_of(st.integers(-400, 400), st.integers(-(10**25), 10**25)))
        return f"{sign}{draw(_DIGITS)}e{exponent}"
    if kind == "long":
        digit = draw(st.sampled_from("0123456789"))
        count = draw(st.sampled_from([10, 2199, 2200, 2201, 5000, 200_000]))
        return f"{sign}0.{digit * count}{draw(_DIGITS)}"
    if kind == "hex":
        return f"{sign}0x{draw(st.text('0123456789abcdef', min_size=1, max_size=16))}p{draw(st.integers(-1200, 1200))}"  # noqa: E501
    if kind == "ratio":
        return f"{sign}{draw(_DIGITS)}/{draw(_DIGITS)}"
    return sign + draw(st.sampled_from(["inf", "nan", "snan", "infinity", "0", "-0"]))


def _numpy_scalars() -> st.SearchStrategy:
    floats = st.sampled_from(["<f2", ">f2", "<f4", ">f4", "<f8", ">f8"]).flatmap(
        lambda dtype: hnp.from_dtype(np.dtype(dtype)).map(lambda x: np.array(x, dtype)[()])
    )
    ints = st.sampled_from(["<i1", "<i8", ">i8", "<u8", ">u2"]).flatmap(
        lambda dtype: hnp.from_dtype(np.dtype(dtype)).map(lambda x: np.array(x, dtype)[()])
    )
    ml = st.sampled_from(
        [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3,
         ml_dtypes.float8_e3m4]
    ).flatmap(lambda t: st.integers(0, 2 ** (8 * np.dtype(t).itemsize) - 1).map(
        lambda bits, t=t: np.array(bits, f"u{np.dtype(t).itemsize}").view(t)[()]))  # fmt: skip
    others = st.sampled_from(
        [lambda: np.timedelta64(3, "s"), lambda: np.datetime64("2024-01-01"),
         lambda: np.str_("1.5"), lambda: np.bytes_(b"2"), lambda: np.void(b"\x01"),
         lambda: np.bool_(True), lambda: np.complex128(1 + 2j)]
    ).map(lambda make: make())  # fmt: skip
    return st.one_of(floats, ints, ml, others)


def any_inputs() -> st.SearchStrategy:
    """Anything a user might pass to decode()."""
    return st.one_of(
        st.text(max_size=20),
        number_texts(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(),
        st.integers(-4000, 4000).map(lambda e: (1 if e >= 0 else -1) * 2 ** abs(e) + e),
        st.sampled_from([2**100_000, -(2**3_000_000), 10**5000]),
        st.fractions(max_denominator=10**30),
        st.decimals(allow_nan=True, allow_infinity=True),
        st.sampled_from([Decimal("1e999999999"), Decimal("-1e-999999999"), Fraction(1, 3)]),
        _numpy_scalars(),
        st.sampled_from([None, True, 1j, lambda: [1.0], lambda: {}, object]).map(
            lambda x: x() if callable(x) else x
        ),
    )


ARRAY_DTYPES = (
    "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<i1", "<i2", ">i4", "<i8", ">i8", "<u1", ">u2",
    "<u4", "<u8", ">u8",
)  # fmt: skip


def arrays() -> st.SearchStrategy:
    """Small arrays of every real dtype and byte order, and of the ml_dtypes formats."""
    plain = st.sampled_from(ARRAY_DTYPES).flatmap(
        lambda dtype: hnp.arrays(np.dtype(dtype), st.integers(0, 6))
    )
    ml_types = [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]
    ml = st.sampled_from(ml_types).flatmap(
        lambda t: hnp.arrays(np.dtype(f"u{np.dtype(t).itemsize}"), st.integers(0, 6)).map(
            lambda a, t=t: a.view(t)
        )
    )  # fmt: skip
    wide = st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=6).map(
        lambda v: np.array(v, np.int64)
    )
    return st.one_of(plain, ml, wide)


BLOCK_NAMES = ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8", "nvfp4")


def code_arrays() -> st.SearchStrategy:
    """What a user might pass as block codes or scales: integer arrays and lists of
    any range (negative, beyond a byte, beyond int64), floats with NaN and fractions."""
    ints = st.lists(
        st.one_of(st.integers(0, 255), st.integers(-(2**70), 2**70)), min_size=0, max_size=40
    )
    floats = st.lists(st.one_of(st.integers(0, 255).map(float), st.floats()), max_size=40)
    dtyped = st.sampled_from(["<u1", "<i1", ">i2", "<i8", "<u8", "<f8"]).flatmap(
        lambda dtype: hnp.arrays(np.dtype(dtype), st.integers(0, 40))
    )
    return st.one_of(ints, floats.map(np.array), dtyped, ints.map(np.array))


def amaxes() -> st.SearchStrategy:
    """Candidate amax values: reals of every size and kind, and non-numbers."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(0, 1e300),
        st.integers(-5, 10**400),
        st.fractions(max_denominator=10**20),
        st.sampled_from(["3", None, True, [1.0], np.float32(448.0), np.int8(3), 5e-324]),
    )


def operands() -> st.SearchStrategy:
    """Operands of an explained operation: floats anywhere in float64's range,
    integers, decimal strings, specials and signed zeros."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(-1e6, 1e6),
        st.integers(-(2**70), 2**70),
        st.sampled_from(
            [
                "0.1",
                "-0",
                "0",
                "inf",
                "-inf",
                "nan",
                "snan",
                "1e-7",
                "448",
                "-2.5",
                "1e30",
                "65519",
                "65520",
                "1e-320",
            ]
        ),
    )
