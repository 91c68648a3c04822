"""The FP8 catalogue beyond OCP (fnuz, E8M0, P3109), Format validation, and get_format
of what numpy reads as a float dtype."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from fpexplore import FORMATS, Format, count_between, get_format
from fpexplore.codes import codes_to_values
from fpexplore.formats.catalogue import p3109

# gfloat 0.5.2 README, value table of its 02-value-stats notebook (P3109 from the IEEE WG
# P3109 Interim Report; ocp_e8m0 from OCP MX v1.0 5.4.1): name: (values in (0, 1), finite
# values in (1, inf), smallest subnormal (None: n/a), smallest normal, largest normal)
GFLOAT_TABLE = {
    "p3109_p1": (63, 62, None, 2.0**-63, 2.0**62),
    "p3109_p3": (63, 62, 2.0**-17, 2.0**-15, 49152.0),
    "p3109_p4": (63, 62, 2.0**-10, 0.0078125, 224.0),
    "float8_e8m0fnu": (127, 127, None, 2.0**-127, 2.0**127),
}


@pytest.mark.parametrize("name", GFLOAT_TABLE)
def test_gfloat_value_table(name: str) -> None:
    below_one, above_one, subnormal, normal, largest = GFLOAT_TABLE[name]
    fmt = get_format(name)
    assert count_between(0, 1, fmt) - fmt.has_zero == below_one
    assert count_between(1, "inf", fmt) - 1 == above_one  # 1 itself is a value
    assert (fmt.smallest_normal, fmt.max) == (normal, largest)
    if subnormal is not None:
        assert fmt.smallest_subnormal == subnormal


def test_e8m0_as_ocp_mx_specifies() -> None:
    # OCP MX v1.0 5.4.1: unsigned, 8 exponent bits, bias 127, no zero, no inf, NaN 0xFF,
    # values 2**-127 .. 2**127
    e8m0 = get_format("e8m0")
    assert (e8m0.bits, e8m0.bias, e8m0.is_signed, e8m0.has_zero) == (8, 127, False, False)
    assert (e8m0.nan_code, e8m0.inf_code, e8m0.n_nan, e8m0.n_finite) == (0xFF, None, 1, 255)
    values = codes_to_values(np.arange(256), e8m0)
    np.testing.assert_array_equal(values[:255], np.ldexp(1.0, np.arange(-127, 128)))
    assert np.isnan(values[255])


@pytest.mark.parametrize(
    ("name", "bias", "largest"),
    [("float8_e4m3fnuz", 8, 240.0), ("float8_e5m2fnuz", 16, 57344.0),
     ("float8_e4m3b11fnuz", 11, 30.0)],
)  # fmt: skip
def test_fnuz_encoding(name: str, bias: int, largest: float) -> None:
    # ml_dtypes README: "fnuz": finite, NaN at the code of -0 (0x80), no -0, no inf
    fmt = get_format(name)
    assert (fmt.bias, fmt.max, fmt.nan_code, fmt.inf_code) == (bias, largest, 0x80, None)
    assert not fmt.has_negative_zero and fmt.has_zero and fmt.n_nan == 1
    assert fmt.n_finite == 255 and fmt.max_code == 0x7F
    assert fmt.special_rule("nan").startswith("sign 1 and every other bit 0")


@pytest.mark.parametrize("p", range(1, 8))
def test_p3109_family(p: int) -> None:
    # gfloat format_info_p3109(8, p): bias 2**(7 - p), +inf 0x7F, -inf 0xFF, NaN 0x80
    fmt = get_format(f"p3109_p{p}")
    assert fmt is FORMATS[f"p3109_p{p}"] and fmt == p3109(p)
    assert get_format(f"p3109_k8p{p}se") is fmt
    assert (fmt.exponent_bits, fmt.mantissa_bits, fmt.bias) == (8 - p, p - 1, 2 ** (7 - p))
    assert (fmt.inf_code, fmt.nan_code, fmt.max_code) == (0x7F, 0x80, 0x7E)
    values = codes_to_values(np.array([0x7F, 0xFF, 0x80, 0x00]), fmt)
    assert values[0] == np.inf and values[1] == -np.inf and np.isnan(values[2])
    assert values[3] == 0 and not np.signbit(values[3])
    assert (fmt.n_nan, fmt.n_inf, fmt.n_finite) == (1, 2, 253)
    assert fmt.dtype is None


@pytest.mark.parametrize("bad", [0, 8, 3.0, "3"])
def test_p3109_precision_range(bad: object) -> None:
    with pytest.raises(ValueError, match="precision must be an int in 1..7"):
        p3109(bad)  # type: ignore[arg-type]


# -- validation: a Format is either handled by every function or refused ----------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"exponent_bits": 1, "mantissa_bits": 0, "nan_encoding": "fn"}, "no finite nonzero"),
        ({"exponent_bits": 1, "mantissa_bits": 0, "nan_encoding": "p3109"}, "no finite nonzero"),
        ({"exponent_bits": 8, "mantissa_bits": 0, "bias": 127}, "IEEE-style"),
        ({"exponent_bits": 0, "mantissa_bits": 3}, "exponent_bits"),
        ({"exponent_bits": 11, "mantissa_bits": 4, "bias": -1000}, "float64's range"),
        ({"exponent_bits": 11, "mantissa_bits": 4, "bias": 2000}, "float64's range"),
        ({"exponent_bits": 11, "mantissa_bits": 0, "bias": 1, "nan_encoding": "fn"},
         "float64's range"),
        ({"exponent_bits": 8, "mantissa_bits": 10, "nan_encoding": "fnuz"}, "at most 16 bits"),
        ({"exponent_bits": 8, "mantissa_bits": 0, "nan_encoding": "fnuz", "is_signed": False},
         "unsigned"),
        ({"exponent_bits": 3, "mantissa_bits": 2, "nan_encoding": "none", "is_signed": False},
         "unsigned"),
        ({"exponent_bits": 5, "mantissa_bits": 2, "has_subnormals": False},
         "without subnormals"),
    ],
)  # fmt: skip
def test_formats_that_cannot_be_held_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Format("bad", **kwargs)


@pytest.mark.parametrize(
    "kwargs", [{"is_signed": 1}, {"has_subnormals": "no"}, {"bias": 1.5}, {"bias": True}]
)
def test_bad_parameter_types(kwargs: dict) -> None:
    with pytest.raises(TypeError):
        Format("bad", 4, 3, **kwargs)


def test_issue_example_e8m0_as_signed_fn_is_now_coherent() -> None:
    # Format("e8m0", 8, 0, 127, "fn") is a signed 9-bit format with zero and subnormal-free
    # powers of two; its max is 2**127 (once max 0.0 and max_code -1)
    f = Format("e8m0", 8, 0, 127, "fn")
    assert (f.bits, f.max, f.max_code, f.smallest_subnormal) == (9, 2.0**127, 254, 2.0**-126)
    from fpexplore import decode

    assert decode(1.0, f).value == 1.0 and "2^0" in str(decode(1.0, f))
    assert decode(2.0**200, f).kind == "nan"


def test_existing_constructors_keep_working() -> None:
    positional = Format("half", 5, 10, 15, "ieee")
    assert (
        positional
        == Format.ieee_like(5, 10, name="half")
        == FORMATS["float16"]._replace(name="half")
    )
    assert positional.is_signed and positional.has_subnormals and positional.has_negative_zero
    assert FORMATS["float8_e8m0fnu"]._replace(name="x").is_signed is False


# -- get_format: what numpy reads as a float dtype -----------------------------------------
@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("f4", "float32"), ("<f4", "float32"), (">f8", "float64"), ("=f2", "float16"),
        ("e", "float16"), ("d", "float64"), ("f", "float32"), ("f8", "float64"),
        ("float32", "float32"), (np.dtype(">f4"), "float32"), (np.float32(1), "float32"),
        (np.float16(2).dtype.type, "float16"), (np.finfo(np.float64), "float64"),
        (np.finfo(np.dtype(">f2")), "float16"),
        (ml_dtypes.finfo(ml_dtypes.float8_e4m3fnuz), "float8_e4m3fnuz"),
        (ml_dtypes.float8_e8m0fnu, "float8_e8m0fnu"),
        (np.dtype(ml_dtypes.float8_e5m2fnuz), "float8_e5m2fnuz"),
        (ml_dtypes.float8_e4m3b11fnuz(1), "float8_e4m3b11fnuz"),
        (ml_dtypes.float8_e3m4(1), "float8_e3m4"), (ml_dtypes.bfloat16(1), "bfloat16"),
    ],
)  # fmt: skip
def test_numpy_float_specs(spec: object, name: str) -> None:
    assert get_format(spec).name == name


@pytest.mark.parametrize("spec", [np.longdouble, "g", np.dtype(np.longdouble), np.longdouble(1)])
def test_longdouble_refused_with_reason(spec: object) -> None:
    if np.dtype(np.longdouble).itemsize == 8:  # pragma: no cover - platforms where it is float64
        assert get_format(spec).name == "float64"
        return
    with pytest.raises(ValueError, match="longdouble.*exactly representable in float64"):
        get_format(spec)


@pytest.mark.parametrize("spec", ["i4", np.int32, np.dtype("c8"), "U3", np.int8(1)])
def test_non_float_dtypes_refused(spec: object) -> None:
    with pytest.raises(ValueError, match="not a supported floating-point format"):
        get_format(spec)


def test_unknown_strings_still_name_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown format 'f5'.*dtype string"):
        get_format("f5")


def test_finfo_parity_extras() -> None:
    for name, dtype in (("float16", np.float16), ("float32", np.float32)):
        fmt, info = get_format(name), np.finfo(dtype)
        assert fmt.dtype == info.dtype and fmt.iexp == info.iexp
        assert fmt.resolution == info.resolution and type(fmt.resolution) is type(info.resolution)
    assert get_format("tf32").dtype is None and get_format("tf32").resolution == 0.001
    e8m0 = get_format("float8_e8m0fnu")
    info = ml_dtypes.finfo(ml_dtypes.float8_e8m0fnu)
    assert (e8m0.dtype, e8m0.iexp, e8m0.min, e8m0.tiny) == (info.dtype, info.iexp, info.min,
                                                             info.tiny)  # fmt: skip
    # the deliberate difference: numpy's precision floor(-log10(eps)), 0 for eps = 1
    assert (e8m0.precision, info.precision) == (0, 1)
