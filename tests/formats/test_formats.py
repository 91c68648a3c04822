"""Formats: derived constants against numpy.finfo, ml_dtypes.finfo and the specs."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import FORMATS, Format, get_format
from fpexplore.codes import codes_to_values

NUMPY = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
ML = {
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3": ml_dtypes.float8_e4m3,
    "float8_e3m4": ml_dtypes.float8_e3m4,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float6_e2m3fn": ml_dtypes.float6_e2m3fn,
    "float6_e3m2fn": ml_dtypes.float6_e3m2fn,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "float8_e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "float8_e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "float8_e4m3b11fnuz": ml_dtypes.float8_e4m3b11fnuz,
    "float8_e8m0fnu": ml_dtypes.float8_e8m0fnu,
}
FINFO_ATTRS = [
    "bits", "eps", "epsneg", "max", "min", "smallest_normal", "smallest_subnormal", "tiny",
    "maxexp", "minexp", "machep", "negep", "nexp", "nmant", "iexp", "precision", "resolution",
]  # fmt: skip


@pytest.mark.parametrize("name", [*NUMPY, *ML])
@pytest.mark.parametrize("attr", FINFO_ATTRS)
def test_finfo_parity(name: str, attr: str) -> None:
    dtype = NUMPY.get(name) or ML[name]
    info = np.finfo(dtype) if name in NUMPY else ml_dtypes.finfo(dtype)
    ours = getattr(get_format(name), attr)
    theirs = getattr(info, attr)
    if attr in ("precision", "resolution") and name.startswith("float8"):
        # ml_dtypes sets precision 1 for every FP8; fpexplore keeps numpy's definition
        fmt = get_format(name)
        assert fmt.precision == math.floor(-math.log10(fmt.eps))
        assert fmt.resolution == np.asarray(10.0**-fmt.precision).astype(dtype)
        return
    if attr == "resolution":  # finfo stores 10**-precision rounded to the type
        ours = np.asarray(ours).astype(dtype)
    assert float(ours) == float(theirs), (name, attr, ours, theirs)


@pytest.mark.parametrize("name", [*NUMPY, *ML])
def test_finfo_bias_like_numpy(name: str) -> None:
    fmt = get_format(name)
    # finfo's minexp is 1 - bias (-bias without subnormals: E8M0's field 0 is normal)
    info = np.finfo(NUMPY[name]) if name in NUMPY else ml_dtypes.finfo(ML[name])
    assert fmt.bias == int(fmt.has_subnormals) - info.minexp
    assert fmt.dtype == info.dtype and get_format(info) == fmt and get_format(info.dtype) == fmt


# OCP 8-bit Floating Point Specification (OFP8) rev 1.0, Table 1 ("E4M3 and E5M2
# encoding details") and OCP Microscaling Formats (MX) v1.0, Tables 3 (FP6) and 5 (FP4).
SPEC_TABLE = {
    # name: (bias, max normal, min normal, max subnormal, min subnormal)
    "float8_e4m3fn": (7, 448.0, 2.0**-6, 0.875 * 2.0**-6, 2.0**-9),
    "float8_e5m2": (15, 57344.0, 2.0**-14, 0.75 * 2.0**-14, 2.0**-16),
    "float6_e2m3fn": (1, 7.5, 1.0, 0.875, 0.125),
    "float6_e3m2fn": (3, 28.0, 0.25, 0.1875, 0.0625),
    "float4_e2m1fn": (1, 6.0, 1.0, 0.5, 0.5),
}


@pytest.mark.parametrize("name", SPEC_TABLE)
def test_ocp_spec_table(name: str) -> None:
    bias, max_normal, min_normal, max_sub, min_sub = SPEC_TABLE[name]
    fmt = get_format(name)
    assert fmt.bias == bias
    assert fmt.max == max_normal
    assert fmt.smallest_normal == min_normal
    assert fmt.smallest_subnormal == min_sub
    largest_subnormal_code = (1 << fmt.mantissa_bits) - 1
    assert codes_to_values(np.array([largest_subnormal_code]), fmt)[0] == max_sub


def test_ocp_special_encodings() -> None:
    # OFP8 Table 1: E4M3 NaN is S.1111.111, no infinities; E5M2 inf S.11111.00
    e4m3, e5m2 = get_format("e4m3"), get_format("e5m2")
    assert e4m3.nan_code == 0x7F and e4m3.inf_code is None and e4m3.n_nan == 2
    assert e5m2.inf_code == 0x7C and e5m2.n_nan == 6
    assert get_format("e2m1").n_nan == 0 and get_format("e2m1").n_finite_codes == 16


def test_ieee754_binary_interchange_parameters() -> None:
    # IEEE 754-2019 Table 3.5: binary16/32/64 precision p and emax
    for name, p, emax in (("float16", 11, 15), ("float32", 24, 127), ("float64", 53, 1023)):
        fmt = get_format(name)
        assert fmt.mantissa_bits + 1 == p and fmt.emax == emax and fmt.emin == 1 - emax


def test_tf32_is_float32_range_with_float16_precision() -> None:
    tf32 = get_format("tf32")
    assert tf32.bits == 19 and tf32.eps == get_format("float16").eps
    assert tf32.emax == get_format("float32").emax


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=list(FORMATS))
def test_identities(fmt: Format) -> None:
    assert fmt.eps == 2.0**fmt.machep
    assert fmt.smallest_subnormal == fmt.smallest_normal * fmt.eps
    values = codes_to_values(np.array([fmt.max_code, fmt.max_code + 1]), fmt)
    assert values[0] == fmt.max
    assert not np.isfinite(values[1]) or fmt.nan_encoding == "none"
    assert fmt.n_finite_codes + fmt.n_nan + fmt.n_inf == 2**fmt.bits
    signs = 2 if fmt.is_signed else 1
    assert fmt.n_finite == signs * fmt.n_positive + fmt.has_zero
    assert fmt.n_positive == fmt.max_code + (not fmt.has_zero)
    assert fmt.maxexp == fmt.emax + 1
    assert Fraction(2) ** fmt.maxexp > Fraction(fmt.max)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("fp32", "float32"), ("single", "float32"), ("half", "float16"), ("bf16", "bfloat16"),
        ("e4m3", "float8_e4m3fn"), ("E5M2", "float8_e5m2"), ("fp64", "float64"),
        ("double", "float64"), ("TF32", "tf32"), ("fp4", "float4_e2m1fn"),
    ],
)  # fmt: skip
def test_aliases(alias: str, name: str) -> None:
    assert get_format(alias) is FORMATS[name]


def test_dtypes_and_objects() -> None:
    assert get_format(np.float16) is FORMATS["float16"]
    assert get_format(np.dtype("float32")) is FORMATS["float32"]
    assert get_format(ml_dtypes.bfloat16) is FORMATS["bfloat16"]
    assert get_format(np.dtype(ml_dtypes.float8_e4m3fn)) is FORMATS["float8_e4m3fn"]
    assert get_format(float) is FORMATS["float64"]
    fmt = FORMATS["float32"]
    assert get_format(fmt) is fmt


def test_custom_formats() -> None:
    e3m4 = get_format("e3m4")
    assert e3m4 == Format.ieee_like(3, 4)
    assert (e3m4.bias, e3m4.max, e3m4.smallest_subnormal) == (3, 15.5, 2.0**-6)
    assert Format.ieee_like(5, 10, name="half-again").max == 65504.0


def test_formats_are_frozen_and_hashable() -> None:
    fmt = FORMATS["float16"]
    with pytest.raises(AttributeError):
        fmt.mantissa_bits = 3  # type: ignore[misc]
    assert {fmt: 1}[get_format("half")] == 1


def test_unknown_name_suggests_known_ones() -> None:
    with pytest.raises(ValueError, match="did you mean float16") as info:
        get_format("float17")
    assert "'float17'" in str(info.value)
    with pytest.raises(ValueError, match="float8_e4m3fn"):
        get_format("quad")


@pytest.mark.parametrize("bad", [None, 3.5, 16, ["float16"]])
def test_bad_types(bad: object) -> None:
    with pytest.raises(TypeError, match="format must be"):
        get_format(bad)


def test_unsupported_dtype() -> None:
    with pytest.raises(ValueError, match="int32"):
        get_format(np.int32)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"exponent_bits": 12, "mantissa_bits": 3}, "exponent_bits"),
        ({"exponent_bits": 5, "mantissa_bits": 60}, "mantissa_bits"),
        ({"exponent_bits": 5, "mantissa_bits": 0}, "IEEE"),
        ({"exponent_bits": 11, "mantissa_bits": 52, "bias": 0}, "float64"),
        ({"exponent_bits": 5, "mantissa_bits": 2, "nan_encoding": "x"}, "nan_encoding"),
    ],
)
def test_invalid_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Format("bad", **kwargs)


@pytest.mark.parametrize(("e", "m"), [(4, 3), (5, 2), (3, 4), (2, 1), (6, 9), (5, 10)])
def test_custom_names_round_trip(e: int, m: int) -> None:
    fmt = Format.ieee_like(e, m)
    assert get_format(fmt.name) == fmt
    assert fmt.has_infinity and fmt.max_exponent_field == 2**e - 2


def test_ml_dtypes_ieee_fp8_variants_are_not_the_fn_ones() -> None:
    assert get_format("float8_e4m3").max == 240.0
    assert get_format("float8_e4m3fn").max == 448.0
    assert get_format(ml_dtypes.float8_e3m4) == Format.ieee_like(3, 4, name="float8_e3m4")
    assert get_format(ml_dtypes.float8_e4m3fnuz) is FORMATS["float8_e4m3fnuz"]


def test_a_class_carrying_its_dtype_names_its_format() -> None:
    """JAX's scalar types (jnp.bfloat16...) are classes of their own that carry their
    numpy dtype as ``.dtype``: every function that takes a format reads them as that
    dtype, on the numpy path too; an instance with a dtype attribute is no format."""
    jnp = pytest.importorskip("jax.numpy")
    for jax_type in (jnp.bfloat16, jnp.float16, jnp.float32, jnp.float8_e4m3fn, jnp.float4_e2m1fn):
        assert get_format(jax_type) is get_format(np.dtype(jax_type).name)
    x = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(fpx.round_to(x, jnp.bfloat16), fpx.round_to(x, "bfloat16"))
    assert fpx.decode(0.1, jnp.float16).bits == fpx.decode(0.1, "float16").bits
    with pytest.raises(TypeError, match="format"):
        get_format(np.zeros(3, np.float16))
    with pytest.raises(ValueError, match="int32"):
        get_format(jnp.int32)


@pytest.mark.parametrize("name", ["e\u0664m3", "e4m\u0663", "fp\u0668", "e\uff14m3"])
def test_custom_names_take_ascii_digits_only(name: str) -> None:
    """eXmY names are ASCII: other scripts' digits (Arabic-Indic, full-width) name no
    format, and the error quotes the name."""
    with pytest.raises(ValueError, match="format"):
        get_format(name)
