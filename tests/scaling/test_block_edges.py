"""Block scaling at the edges (issue 21, 4): every element rounded once from its
exact quotient ``V / X`` in every mode, sign and block format, also where the
quotient underflows float64 and for float64 inputs of 53 bits (an oracle on
Fractions); dequantize_blocks refuses codes and scales outside their formats."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fpexplore import BLOCK_FORMATS, dequantize_blocks, get_format, quantize_blocks
from tests.scaling_oracle import expected_blocks

MX = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"]
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


def _check(x: np.ndarray, name: str, mode: str) -> None:
    q = quantize_blocks(x, name, rounding=mode)
    got = [Fraction(v) for v in q.values.tolist()]
    want = expected_blocks(x, name, mode)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert a == b, (name, mode, i, float(x[i]), float(a), float(b))
        if a == 0 and x[i] != 0 and BLOCK_FORMATS[name].element != "int8" and x.dtype.kind == "f":
            assert np.signbit(q.values[i]) == (x[i] < 0), (name, mode, i)


@pytest.mark.parametrize("name", [*MX, "nvfp4"])
@pytest.mark.parametrize("mode", MODES)
def test_elements_below_float64_round_in_every_mode(name: str, mode: str) -> None:
    """Block amax 2**120 with elements of +-2**-1000 and +-2**-1074: 'up' gives
    the least positive element value, 'down' its negative, as exact rounding does."""
    x = np.zeros(32)
    x[0] = 2.0**120 if name != "nvfp4" else 2.0**100
    x[1:5] = [2.0**-1000, -(2.0**-1000), 5e-324, -5e-324]
    x[5:9] = [1.0, -3.0, 2.0**60, -(2.0**-60)]
    _check(x, name, mode)
    if name == "mxfp4" and mode == "up":
        assert quantize_blocks(x, name, rounding="up").values[1] == 0.5 * 2.0**118


@pytest.mark.parametrize("name", [*MX, "nvfp4"])
@pytest.mark.parametrize("mode", MODES)
def test_float64_inputs_round_once(name: str, mode: str) -> None:
    """53-bit inputs, and inputs just beside the midpoints of the element grid."""
    rng = np.random.default_rng(sum(map(ord, name + mode)))
    x = rng.standard_normal(64) * np.exp2(rng.integers(-20, 20, 64))
    spec = BLOCK_FORMATS[name]
    values = (
        np.arange(-128, 128) / 64
        if spec.element == "int8"
        else np.unique(np.abs(np.array([float(v) for v in _grid(spec.element)])))
    )
    mids = (values[1:] + values[:-1]) / 2
    near = rng.choice(mids, 32) * np.where(rng.random(32) < 0.5, 1 + 2.0**-52, 1 - 2.0**-53)
    x[:32] = near * np.where(rng.random(32) < 0.5, 1, -1)
    x[0] = values.max()  # X = 1 (MX), so the element grid is the format's own
    _check(x, name, mode)


@pytest.mark.parametrize("mode", MODES)
def test_nvfp4_quotients_beside_a_midpoint(mode: str) -> None:
    """Elements one to four float64 steps from m * s * g for E2M1's values and
    midpoints m. (A quotient by a divisor of 28 bits never lands on such a point
    in float64 unless it is one; the quotients are rounded to odd all the same.)"""
    amax = 2688 * 1.3  # g = float32(1.3), no power of two
    g = float(np.float32(amax / 2688))
    divisor = float(quantize_blocks(np.array([amax] * 16), "nvfp4").scale_values[0]) * g
    mids = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 1.0, 3.0])
    x = mids * divisor
    for _ in range(2):
        x = np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, 0.0)])
    x = np.concatenate([x, -x])
    blocks = [np.concatenate([[amax], x[i : i + 15]]) for i in range(0, x.size, 15)]
    padded = [np.pad(b, (0, 16 - b.size)) for b in blocks]
    _check(np.concatenate(padded), "nvfp4", mode)


def _grid(element: str) -> list[float]:
    from tests.oracle import finite_values

    return [float(v) for v in finite_values(get_format(element))]


@pytest.mark.parametrize("name", [*MX, "nvfp4"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_signed_zeros_keep_their_sign(name: str, dtype: type) -> None:
    x = np.ones(64, dtype)
    x[::2] = -0.0
    x[33::4] = 0.0
    q = quantize_blocks(x, name)
    zero = q.values == 0
    assert (zero == (x == 0)).all()
    negative = BLOCK_FORMATS[name].element != "int8"  # MXINT8's two's complement: one zero
    assert (np.signbit(q.values[zero]) == (np.signbit(x[zero]) & negative)).all()


@pytest.mark.parametrize("name", [*MX, "nvfp4"])
@pytest.mark.parametrize("mode", MODES)
def test_integers_beyond_2_to_the_53(name: str, mode: str) -> None:
    x = np.array([2**62 + 1, -(2**61) - 3, 2**53 + 1, 7, 0, -(2**60) + 1] * 6, np.int64)
    _check(x, name, mode)


def test_dequantize_refuses_out_of_range_codes() -> None:
    ones = np.array([127], np.uint8)
    cases = [
        (dict(scales=ones, codes=[300] + [0] * 31, fmt="mxfp4"), "codes"),  # a list
        (dict(scales=ones, codes=np.array([300] + [0] * 31), fmt="mxfp4"), "codes"),
        (dict(scales=ones, codes=np.array([16] + [0] * 31), fmt="mxfp4"), "codes"),  # 4 bits
        (dict(scales=ones, codes=np.array([-1] + [0] * 31), fmt="mxfp4"), "codes"),
        (dict(scales=ones, codes=np.array([np.nan] + [0] * 31), fmt="mxfp4"), "codes"),
        (dict(scales=ones, codes=np.array([1.5] + [0] * 31), fmt="mxfp8_e4m3"), "codes"),
        (dict(scales=np.array([383]), codes=np.zeros(32, int), fmt="mxfp4"), "scales"),
        (dict(scales=[-1], codes=np.zeros(32, int), fmt="mxfp4"), "scales"),
        (dict(scales=np.array([np.nan]), codes=np.zeros(32, int), fmt="mxfp8_e5m2"), "scales"),
        (dict(scales=np.array([256]), codes=np.zeros(32, int), fmt="mxint8"), "scales"),
        (dict(scales=np.array([-3]), codes=np.zeros(16, int), fmt="nvfp4"), "scales"),
        (dict(scales=np.array([0x85]), codes=np.zeros(16, int), fmt="nvfp4"), "scales"),
        (dict(scales=np.array([0x38]), codes=np.array([64] + [0] * 15), fmt="nvfp4"), "codes"),
    ]
    for kwargs, name in cases:
        fmt = kwargs.pop("fmt")
        extra = {"tensor_scale": 1.0} if fmt == "nvfp4" else {}
        with pytest.raises(ValueError, match=name):
            dequantize_blocks(kwargs["scales"], kwargs["codes"], fmt, **extra)
    for bad in ("1", np.nan, -1.0, 0.0):
        with pytest.raises((TypeError, ValueError), match="tensor_scale"):
            dequantize_blocks([0x38], np.zeros(16, int), "nvfp4", tensor_scale=bad)
    with pytest.raises(TypeError, match="codes"):
        dequantize_blocks(ones, ["a"] * 32, "mxfp4")


def test_dequantize_takes_every_valid_code() -> None:
    for name in [*MX, "nvfp4"]:
        spec = BLOCK_FORMATS[name]
        width = 8 if spec.element == "int8" else get_format(spec.element).bits
        codes = np.arange(1 << width) % (1 << width)
        codes = np.resize(codes, -(-codes.size // spec.block_size) * spec.block_size)
        n = codes.size // spec.block_size
        scales = np.full(n, 0x38 if spec.scale == "e4m3" else 127)
        extra = {"tensor_scale": 1.0} if spec.scale == "e4m3" else {}
        out = dequantize_blocks(scales, codes, name, **extra)
        as_lists = dequantize_blocks(scales.tolist(), codes.tolist(), name, **extra)
        assert np.array_equal(out, as_lists, equal_nan=True)
        assert np.array_equal(out, dequantize_blocks(scales, codes.astype(np.float64), name,
                                                     **extra), equal_nan=True)  # fmt: skip
    mx = dequantize_blocks([0xFF], np.zeros(32, int), "mxfp4")  # the NaN scale
    assert np.isnan(mx).all()


def test_nvfp4_tensor_amax_is_taken_exactly() -> None:
    """g = tensor_amax / 2688 rounded once to float32: a Fraction or an integer
    beyond 2**53 just above 2688 times a float32 midpoint rounds up; through
    float64 first it landed on the midpoint and went to even (down)."""
    from tests.oracle import round_exact

    f32 = get_format("float32")
    midpoint = Fraction(2**24 + 1, 2**24)
    n = ((2688 * (2**24 + 1)) << 20) + 1  # an int64, 2688 * midpoint * 2**20 + 1
    for amax in (2688 * midpoint + Fraction(1, 2**80), n, np.int64(n)):
        exact = amax if isinstance(amax, Fraction) else Fraction(int(amax))
        want = round_exact(exact / 2688, f32, "nearest_even")
        q = quantize_blocks(np.ones(16), "nvfp4", tensor_amax=amax)
        assert Fraction(float(q.tensor_scale)) == want, amax
    x = np.array([n] + [1] * 15, dtype=np.int64)  # the array's own amax: exact too
    want = round_exact(Fraction(n, 2688), f32, "nearest_even")
    assert Fraction(float(quantize_blocks(x, "nvfp4").tensor_scale)) == want


def test_negative_int8_scales_are_refused() -> None:
    """int8 holds MXINT8's two's-complement element bytes; a scale is a code
    0..255 (E8M0) or 0..127 (NVFP4), so a negative int8 scale is refused like a
    negative int64 one (-1 was read as 0xFF, E8M0's NaN)."""
    cases = (("mxfp4", 32, {}), ("mxfp8_e4m3", 32, {}), ("nvfp4", 16, {"tensor_scale": 1.0}))
    for name, k, extra in cases:
        with pytest.raises(ValueError, match="scales"):
            dequantize_blocks(np.array([-1], np.int8), np.zeros(k, int), name, **extra)
    mxint8 = dequantize_blocks([127], np.full(32, -3, np.int8), "mxint8")  # the elements' bytes
    assert (mxint8 == -3 / 64).all()


def test_tensor_scale_of_any_numeric_kind() -> None:
    """NVFP4's tensor_scale is a number like any other: a 0-d array, an ml_dtypes
    scalar or a Fraction that is a float64 gives the same values (they were refused
    as 'not a positive number')."""
    import ml_dtypes

    codes, want = np.arange(16) % 16, None
    for scale in (0.5, np.float32(0.5), np.array(0.5), ml_dtypes.bfloat16(0.5), Fraction(1, 2)):
        got = dequantize_blocks([0x38], codes, "nvfp4", tensor_scale=scale)
        want = got if want is None else want
        assert np.array_equal(got, want, equal_nan=True), scale
    for bad in (Fraction(1, 3), ml_dtypes.bfloat16(-1), np.array([0.5]), 10**400):
        with pytest.raises((TypeError, ValueError), match="tensor_scale"):
            dequantize_blocks([0x38], codes, "nvfp4", tensor_scale=bad)


def test_a_block_format_where_a_format_is_expected_is_named_as_one() -> None:
    """get_format("mxfp4") (compute_scale, round_to...) says that mxfp4 is a block
    format and where it goes; it suggested 'fp4 (float4_e2m1fn) or fp64'."""
    import fpexplore as fpx
    from fpexplore.formats import suggest
    from fpexplore.scaling.block_formats import _ALIASES

    assert set(suggest.BLOCK_NAMES) == {*BLOCK_FORMATS, *_ALIASES}
    for name in [*BLOCK_FORMATS, *_ALIASES, "MXFP4", " nvfp4 "]:
        with pytest.raises(ValueError, match="is a block format.*quantize_blocks"):
            get_format(name)
    with pytest.raises(ValueError, match="block format"):
        fpx.compute_scale(3.0, "mxfp4")
