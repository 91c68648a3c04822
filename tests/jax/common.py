"""Shared inputs and comparisons for the fpexplore.jax tests (imports no JAX)."""

from __future__ import annotations

from functools import cache

import numpy as np

import fpexplore as fpx
from fpexplore import codes as K

MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]

# Every format whose values float32 holds: the catalogue (float64 aside) and custom ones.
FORMATS = [name for name in fpx.FORMATS if name != "float64"] + [
    "float8_e4m3",  # ml_dtypes' IEEE-style E4M3 (max 240)
    "float8_e3m4",
    "e2m5",
    "e8m3",  # float32's exponent range, 4 significant bits: subnormals below 2**-126
    "e6m9",
    # custom biases: normals down to 2**-119 with subnormals below float32's normals,
    # and normals below float32's (2**-129): the kernel's general route
    fpx.Format("e7m8_bias120", 7, 8, 120),
    fpx.Format("e8m4_bias130", 8, 4, 130),
    # unsigned with no subnormals (E8M0's kind) and mantissa bits: no zero, and nothing
    # between the smallest value 2**emin and zero
    fpx.Format("ue5m3", 5, 3, 15, "fn", is_signed=False, has_subnormals=False),
]


def eager_round(x: np.ndarray, name: str, mode: str, overflow: str | None = None) -> np.ndarray:
    """fpexplore.jax.round_to op by op (``disable_jit``: the same integer operations,
    with no compilation per format and mode), on ``x`` padded to a size shared by many
    calls, so that each operation compiles once for all of them; a numpy array."""
    import jax
    import jax.numpy as jnp

    import fpexplore.jax as fjax

    size = max(2**16, 1 << (x.size - 1).bit_length())
    padded = np.zeros(size, x.dtype)
    padded[: x.size] = x
    with jax.disable_jit():
        got = fjax.round_to(jnp.asarray(padded), name, mode, overflow=overflow)
    return np.asarray(got)[: x.size]


def float32_bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)


def expected_bits(x: np.ndarray, fmt: str, mode: str, overflow: str | None) -> np.ndarray:
    """fpexplore.round_to's results as float32 bits; a NaN result as the float32 bits
    that keep its code's sign and payload (the NaN rule of docs/formats.md), widened exactly."""
    f = fpx.get_format(fmt)
    values = fpx.round_to(x, f, mode, overflow=overflow)
    with np.errstate(invalid="ignore"):
        bits = float32_bits(values.astype(np.float32))
    nan = np.isnan(values)
    if nan.any():
        codes = K.round_codes(x[nan], f, mode, overflow=overflow).astype(np.uint32)
        bits[nan] = nan_bits(codes, f)
    return bits


def nan_bits(codes: np.ndarray, f: fpx.Format) -> np.ndarray:
    """float32 bits of NaN codes: IEEE formats place the payload at the top of the
    fraction; 'fn' formats give the quiet NaN of their sign; fnuz and P3109 the NaN
    with the sign bit (their NaN is the code of -0); E8M0 the positive quiet NaN."""
    sign = np.where((codes >> (f.bits - 1)) & 1 == 1, 0x8000_0000, 0).astype(np.uint32)
    if not f.is_signed:
        sign[:] = 0
    if f.nan_encoding == "ieee":
        payload = codes & ((1 << f.mantissa_bits) - 1)
        return sign | np.uint32(0x7F80_0000) | (payload << (23 - f.mantissa_bits)).astype(np.uint32)
    if f.nan_encoding in ("fnuz", "p3109"):
        return np.full(codes.shape, 0xFFC0_0000, np.uint32)
    return sign | np.uint32(0x7FC0_0000)


def assert_bits_equal(got: np.ndarray, want: np.ndarray, x: np.ndarray, label: object) -> None:
    bad = np.flatnonzero(got != want)
    if bad.size:
        i = bad[:5]
        raise AssertionError(
            f"{label}: {bad.size} of {x.size} differ, e.g. inputs "
            f"{[hex(v) for v in float32_bits(x)[i]]} -> {[hex(v) for v in got[i]]}, "
            f"expected {[hex(v) for v in want[i]]}"
        )


@cache
def random_float32() -> np.ndarray:
    """Random float32s: every bit pattern kind (NaNs with payloads, infinities,
    subnormals), normals across the whole exponent range, and edge values."""
    rng = np.random.default_rng(23)
    patterns = rng.integers(0, 2**32, 60_000, dtype=np.uint64).astype(np.uint32)
    exponents = rng.integers(-149, 128, 60_000)
    spread = rng.uniform(1, 2, 60_000) * np.exp2(exponents.astype(np.float64))
    spread *= rng.choice([-1.0, 1.0], spread.size)
    with np.errstate(over="ignore"):
        spread32 = spread.astype(np.float32)
    tiny = (rng.integers(0, 2**23, 5_000, dtype=np.uint32) | np.uint32(0)).view(np.float32)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, 3.4028235e38, -3.4028235e38, 1e-45, 448,
                      464, 480, 57344, 61440, 65504, 65520, 6, 7, 2**127, 1.5 * 2**127,
                      2**-127, 2**-128, 2**-126, 1.5 * 2**-128], np.float32)  # fmt: skip
    nans = np.array([0x7FC0_0000, 0xFFC0_0001, 0x7F80_0001, 0xFF80_0001, 0x7FA0_0000,
                     0x7F81_2345, 0xFFFF_FFFF, 0x7F80_2000, 0x7FBF_FFFF], np.uint32)  # fmt: skip
    return np.concatenate([patterns.view(np.float32), spread32, tiny, -tiny, edges,
                           nans.view(np.float32)])  # fmt: skip
