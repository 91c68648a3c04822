"""float32 inputs rounded on their own 32-bit codes: bit for bit the float64 path."""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore import codes as K
from fpexplore import representation_error, round_to
from fpexplore._kernels.dtypes import widen_into

FORMATS = ["bfloat16", "float16", "tf32", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn",
           "float6_e2m3fn", "float4_e2m1fn"]  # fmt: skip
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(32)
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    scaled = rng.standard_normal(100_000) * np.exp2(rng.integers(-40, 20, 100_000))
    edges = [0.0, -0.0, 1e-45, 448, 464, 465, 480, 6, 7, 65504, 65520, 3.4e38, -np.inf, np.inf]
    return np.concatenate([bits.view(np.float32), scaled.astype(np.float32),
                           np.array(edges, np.float32)])  # fmt: skip


@pytest.mark.parametrize("fmt", FORMATS)
def test_codes_and_values_match_the_float64_path(fmt: str) -> None:
    x = _inputs()
    if fmt.startswith(("float6", "float4")):
        x = x[~np.isnan(x)]  # no NaN to round into
    wide = np.empty(x.shape)
    widen_into(wide, x)  # exactly, NaN bits kept (a signalling NaN stays signalling)
    for mode in MODES:
        for overflow in (None, "saturate"):
            codes = K.round_codes(wide, fmt, mode, overflow=overflow)
            assert np.array_equal(K.round_codes(x, fmt, mode, overflow=overflow), codes)
            v64 = K.round_values(wide, fmt, mode, overflow=overflow)
            v32 = K.round_values(x, fmt, mode, overflow=overflow, dtype=np.float32)
            with np.errstate(invalid="ignore"):  # NaNs compared as NaNs below
                narrowed = v64.astype(np.float32)
            same = (narrowed.view(np.uint32) == v32.view(np.uint32)) | (
                np.isnan(v64) & np.isnan(v32)
            )
            assert same.all(), (mode, overflow)


@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3fn", "float4_e2m1fn"])
def test_representation_error_of_float32(fmt: str) -> None:
    x = _inputs()
    x = x[np.isfinite(x)]
    a, b = representation_error(x.astype(np.float64), fmt), representation_error(x, fmt)
    for name in ("rounded", "abs_error", "rel_error", "ulp_error"):
        p, q = getattr(a, name), getattr(b, name)
        assert ((p == q) | (np.isnan(p) & np.isnan(q))).all(), name
    assert b.values.dtype == np.float64


def test_round_to_dtype() -> None:
    x = np.array([0.1, 3.0, 400.0], np.float32)
    assert round_to(x, "bfloat16", dtype="narrow").dtype == np.float32
    assert round_to(x, "e4m3", dtype="narrow").dtype == np.float16
    assert round_to(x, "e4m3", dtype="narrow").tolist() == round_to(x, "e4m3").tolist()
    assert round_to(x, "float32", dtype="narrow").dtype == np.float32
    assert round_to(0.1, "bfloat16", dtype=np.float32) == np.float32(0.10009765625)
    ml = pytest.importorskip("ml_dtypes")
    got = round_to(x, "bfloat16", dtype=ml.bfloat16)
    assert got.dtype == ml.bfloat16 and np.array_equal(got, x.astype(ml.bfloat16))
    with pytest.raises(ValueError, match="cannot hold every bfloat16 value"):
        round_to(x, "bfloat16", dtype=np.float16)
    with pytest.raises(ValueError, match="not a float dtype"):
        round_to(x, "bfloat16", dtype=np.int32)
    with pytest.raises(ValueError, match="not a float dtype"):
        round_to(x, "bfloat16", dtype=ml.float8_e4m3fn)


@pytest.mark.parametrize("fmt", ["bfloat16", "float8_e4m3fn", "float6_e2m3fn"])
def test_against_the_exact_reference(fmt: str) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from fpexplore.exact import parse_real, round_real

    @settings(max_examples=300, deadline=None)
    @given(st.floats(width=32, allow_nan=False, allow_infinity=False), st.sampled_from(MODES))
    def check(x: float, mode: str) -> None:
        code = K.round_codes(np.array([x], np.float32), fmt, mode, overflow="saturate")[0]
        assert int(code) == round_real(parse_real(x), fmt, mode, overflow="saturate")

    check()
