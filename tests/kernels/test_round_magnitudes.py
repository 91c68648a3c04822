"""The report's magnitude kernels (float32 and float64 addition) against round_values."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx
import fpexplore.codes as K
from fpexplore._kernels.round.magnitudes import (
    binades32,
    nearest_rounder32,
    round_magnitudes32,
    round_magnitudes64,
)
from fpexplore._kernels.round.nearest import NearestScratch, nearest_rounder

FORMATS32 = [f for f in fpx.format_names() if nearest_rounder32(fpx.get_format(f), saturate=False)]
FORMATS64 = [f for f in fpx.format_names() if nearest_rounder(fpx.get_format(f), saturate=False)]


def _magnitudes32() -> np.ndarray:
    """Random float32 bit patterns, every format's ties and limits, and their neighbours."""
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 0x7F80_0000, 1 << 16, dtype=np.uint64).astype(np.uint32)
    ties = np.ldexp(1 + rng.integers(0, 128, 1 << 14) / 128, rng.integers(-149, 127, 1 << 14))
    out = np.concatenate([bits.view(np.float32), ties.astype(np.float32)])
    for name in FORMATS32:
        f = fpx.get_format(name)
        marks = [f.max, f.max * (1 + 2.0**-f.mantissa_bits / 2), f.smallest_normal,
                 f.smallest_subnormal, f.smallest_subnormal / 2, 2.0 ** (f.emax + 1)]  # fmt: skip
        out = np.concatenate([out, np.array(marks, np.float32)])
    up, down = np.float32(np.inf), np.float32(0)
    out = np.concatenate([out, np.nextafter(out, up), np.nextafter(out, down), [0, 3.4e38]])
    return np.abs(out[np.isfinite(out)]).astype(np.float32)


def test_the_eligible_formats() -> None:
    names = set(FORMATS32)
    assert {"float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float16", "float6_e3m2fn"} <= names
    for name in ("bfloat16", "float32", "float8_e8m0fnu", "float8_e4m3fnuz"):
        assert nearest_rounder32(fpx.get_format(name), saturate=False) is None


@pytest.mark.parametrize("name", FORMATS32)
@pytest.mark.parametrize("saturate", [False, True])
def test_float32_bit_for_bit(name: str, saturate: bool) -> None:
    fmt = fpx.get_format(name)
    r = nearest_rounder32(fmt, saturate=saturate)
    a = _magnitudes32()
    out, c = np.empty_like(a), np.empty_like(a)
    beyond = round_magnitudes32(a, binades32(a, np.empty_like(a)), r, out, c)
    with np.errstate(all="ignore"):
        ref = K.round_values(a, fmt, overflow="saturate" if saturate else None)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out), nan)
    assert np.array_equal(out[~nan].astype(np.float64), ref[~nan])
    top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
    over = (a >= top) if fmt.max_mantissa % 2 else (a > top)
    assert beyond == int(np.count_nonzero(over))


@pytest.mark.parametrize("name", FORMATS64)
def test_float64_bit_for_bit(name: str) -> None:
    fmt = fpx.get_format(name)
    rng = np.random.default_rng(1)
    spread = rng.standard_normal(1 << 14) * np.exp2(rng.integers(-60, 60, 1 << 14))
    a = np.concatenate([_magnitudes32().astype(np.float64), np.abs(spread)])
    for saturate in (False, True):
        r = nearest_rounder(fmt, saturate=saturate)
        out = np.empty_like(a)
        with np.errstate(all="ignore"):
            beyond = round_magnitudes64(a, r, out, NearestScratch(a.size))
            ref = K.round_values(a, fmt, overflow="saturate" if saturate else None)
        nan = np.isnan(ref)
        assert np.array_equal(np.isnan(out), nan)
        assert np.array_equal(out[~nan], ref[~nan])
        top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
        over = (a >= top) if fmt.max_mantissa % 2 else (a > top)
        assert beyond == int(np.count_nonzero(over))
