"""The report's nearest-even kernel (float64 addition) against round_values, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx
import fpexplore.codes as K
from fpexplore._kernels.round.nearest import NearestScratch, nearest_rounder, round_nearest

FORMATS = [f for f in fpx.format_names() if nearest_rounder(fpx.get_format(f), saturate=False)]


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    bits32 = rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    bits64 = rng.integers(0, 1 << 63, 1 << 16, dtype=np.uint64)
    bits64 |= rng.integers(0, 2, 1 << 16, dtype=np.uint64) << np.uint64(63)
    near = rng.standard_normal(1 << 16) * np.exp2(rng.integers(-40, 40, 1 << 16))
    ties = np.ldexp(1 + rng.integers(0, 64, 1 << 14) / 64, rng.integers(-160, 130, 1 << 14))
    with np.errstate(invalid="ignore"):  # (signalling NaNs among the random bits)
        wide = bits32.view(np.float32).astype(np.float64)
    out = [wide, bits64.view(np.float64), near, ties]
    return [x[np.isfinite(x)] for x in out]


def test_the_eligible_formats() -> None:
    assert {"float32", "bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn"} <= set(FORMATS)
    for name in ("float64", "float8_e8m0fnu", "float8_e4m3fnuz", "p3109_p3"):
        assert nearest_rounder(fpx.get_format(name), saturate=False) is None


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("saturate", [False, True])
def test_bit_for_bit(name: str, saturate: bool) -> None:
    fmt = fpx.get_format(name)
    r = nearest_rounder(fmt, saturate=saturate)
    for x in _inputs():
        out = np.empty_like(x)
        beyond = round_nearest(x, r, out, NearestScratch(x.size))
        with np.errstate(all="ignore"):
            ref = K.round_values(x, fmt, overflow="saturate" if saturate else None)
        nan = np.isnan(ref)
        assert np.array_equal(np.isnan(out), nan)
        assert np.array_equal(out.view(np.uint64)[~nan], ref.view(np.uint64)[~nan])
        top = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits - 1)
        over = (np.abs(x) >= top) if fmt.max_mantissa % 2 else (np.abs(x) > top)
        assert beyond == int(np.count_nonzero(over))
