"""fpexplore.jax.round_to bit for bit against fpexplore.round_to: every float16 and
bfloat16 code and every midpoint between neighbours of each format (and the float32s
either side of it), in every format and deterministic mode; random float32s of every
kind; NaN payloads; jit."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K

from .common import (
    FORMATS,
    MODES,
    assert_bits_equal,
    eager_round,
    expected_bits,
    float32_bits,
    random_float32,
)

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")


@cache
def _codes16() -> np.ndarray:
    """Every float16 and every bfloat16 code, as float32 values."""
    codes = np.arange(2**16, dtype=np.uint32)
    return np.concatenate([codes.astype(np.uint16).view(np.float16).astype(np.float32),
                           (codes << 16).view(np.float32)])  # fmt: skip


@cache
def _midpoints(name: str) -> np.ndarray:
    """Each midpoint between neighbouring values of the format (the one above max
    included), and the float32s just below and above it, with both signs."""
    f = fpx.get_format(name)
    if f.bits > 19:
        return np.zeros(0, np.float32)  # float32: no midpoint is a float32
    values = K.codes_to_values(np.arange(f.n_codes, dtype=np.uint64), f)
    values = np.unique(values[np.isfinite(values) & (values >= 0)])
    values = np.append(values, f.max + 2.0 ** (f.emax - f.mantissa_bits))
    if values[0] > 0:  # E8M0: no zero; a value below the smallest still rounds
        values = np.insert(values, 0, 0.0)
    mids = (values[:-1] + values[1:]) / 2
    mids = mids[mids.astype(np.float32) == mids].astype(np.float32)
    around = [mids, np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(0))]
    positive = np.concatenate(around)
    return np.concatenate([positive, -positive])


def _inputs(name: str) -> np.ndarray:
    x = np.concatenate([_codes16(), _midpoints(name)])
    return x if fpx.get_format(name).has_nan else x[~np.isnan(x)]


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n == "tf32" else n for n in FORMATS],
    ids=str,
)  # TF32's 2**18 midpoints take about 10 s
def test_every_16_bit_code_and_every_midpoint(name: str) -> None:
    """The whole matrix, op by op (:func:`eager_round`); under jit below."""
    x = _inputs(name)
    for mode in MODES:
        for overflow in (None, "saturate"):
            got = float32_bits(eager_round(x, name, mode, overflow))
            assert_bits_equal(got, expected_bits(x, name, mode, overflow), x,
                              (name, mode, overflow))  # fmt: skip


@pytest.mark.parametrize("name", FORMATS, ids=str)
def test_random_float32_every_mode(name: str) -> None:
    """Random float32s of every kind, every deterministic mode and overflow policy
    (op by op), and nearest-even with one more mode under jit (one compilation)."""
    x = random_float32()
    if not fpx.get_format(name).has_nan:
        x = x[~np.isnan(x)]
    for mode in MODES:
        for overflow in (None, "saturate"):
            got = float32_bits(eager_round(x, name, mode, overflow))
            assert_bits_equal(got, expected_bits(x, name, mode, overflow), x,
                              (name, mode, overflow))  # fmt: skip
    modes = sorted({"nearest_even", MODES[len(str(name)) % 5]})  # one more mode, varied
    jitted = jax.jit(lambda v: [fjax.round_to(v, name, m) for m in modes])(jnp.asarray(x))
    for mode, got in zip(modes, jitted, strict=True):
        assert_bits_equal(float32_bits(got), expected_bits(x, name, mode, None), x, (name, mode))


def test_ml_dtypes_casts_agree() -> None:
    """An oracle outside fpexplore: ml_dtypes' casts from float32 (round to nearest
    even; NaNs and E8M0 below 2**-126 aside, where docs/contributing.md says they differ)."""
    ml = pytest.importorskip("ml_dtypes")
    x = random_float32()
    x = x[np.isfinite(x)]
    for name in ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                 "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4", "float4_e2m1fn"):  # fmt: skip
        dtype = np.float16 if name == "float16" else getattr(ml, name)
        with np.errstate(over="ignore"):
            theirs = x.astype(dtype).astype(np.float32)
        ours = np.asarray(fjax.round_to(jnp.asarray(x), name))
        same = (float32_bits(ours) == float32_bits(theirs)) | (np.isnan(ours) & np.isnan(theirs))
        assert same.all(), name


@pytest.mark.parametrize("name", ["bfloat16", "float16", "float8_e5m2", "float8_e3m4", "e2m5"])
def test_nan_payloads(name: str) -> None:
    """A NaN keeps its sign, quiet bit and top payload bits; a signalling NaN whose
    kept payload is empty gets the lowest kept bit, so it stays a NaN."""
    m = fpx.get_format(name).mantissa_bits
    low = 1 << (23 - m)
    bits = np.array([0x7FC0_0000, 0xFFC0_0000 | low, 0x7F80_0000 | low, 0x7F80_0001,
                     0xFF80_0000 | (low - 1), 0x7FFF_FFFF], np.uint32)  # fmt: skip
    got = float32_bits(fjax.round_to(jnp.asarray(bits.view(np.float32)), name))
    keep = np.uint32(0xFFFF_FFFF - (low - 1))
    want = bits & keep
    want[2:5] = [0x7F80_0000 | low, 0x7F80_0000 | low, 0xFF80_0000 | low]
    np.testing.assert_array_equal(got, want)
    x = bits.view(np.float32)
    np.testing.assert_array_equal(got, expected_bits(x, name, "nearest_even", None))  # codes


@pytest.mark.parametrize("name", ["float6_e3m2fn", "float6_e2m3fn", "float4_e2m1fn"])
def test_formats_without_nan_pass_a_nan_through(name: str) -> None:
    """fpexplore.round_to refuses a NaN into FP6/FP4; a jitted function cannot raise
    on data, so the NaN comes back unchanged."""
    x = np.array([np.nan, 1.0, -np.inf], np.float32)
    with pytest.raises(ValueError, match="no NaN"):
        fpx.round_to(x, name)
    got = np.asarray(fjax.round_to(jnp.asarray(x), name))
    assert float32_bits(got)[0] == float32_bits(x)[0]
    f = fpx.get_format(name)
    assert got[1:].tolist() == [1.0, -f.max]


def test_signed_zeros_and_e8m0() -> None:
    x = jnp.array([-1e-30, -0.0, 0.0, -1.0, 1e-40, 2**-128, 3 * 2**-129, 2**127, 1.6 * 2**127])
    fnuz = float32_bits(fjax.round_to(x, "float8_e4m3fnuz"))
    assert fnuz[:3].tolist() == [0, 0, 0]  # no -0: +0
    e8m0 = np.asarray(fjax.round_to(x, "e8m0"))
    assert np.isnan(e8m0[:4]).all()  # no zero, no negatives
    assert e8m0[4:].tolist()[:4] == [2.0**-127, 2.0**-127, 2.0**-127, 2.0**127]
    assert np.isnan(e8m0[8])  # above max: NaN, as ml_dtypes
    toward = np.asarray(fjax.round_to(x, "e8m0", "toward_zero"))
    assert np.isnan(toward[4]) and toward[8] == 2.0**127


def test_float32_is_identity_and_the_result_keeps_shape() -> None:
    x = random_float32()[:6000].reshape(20, 30, 10)
    got = fjax.round_to(jnp.asarray(x), "float32", "up")
    assert got.shape == x.shape and got.dtype == jnp.float32
    np.testing.assert_array_equal(float32_bits(got), float32_bits(x))
