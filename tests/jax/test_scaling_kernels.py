"""The kernels behind per-tensor scaling. The exact unscaling
(fpexplore.jax._unscale): every value of each small format divided by many float32
scales, against the exact Fraction quotient rounded once (tests/oracle.py) into
float32, bfloat16 and float16, with subnormal results, overflow to inf, signed
zeros, inf and NaN; the table route and the direct division agree. The amax
reduction (cut into rows): every size around the row boundaries, the largest
value in each row and in the tail."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx

from ..oracle import finite_values, round_exact
from .common import float32_bits

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("fpexplore.jax")

from fpexplore.jax._core import spec_for  # noqa: E402
from fpexplore.jax._unscale import HOLDERS, TABLE_LIMIT, table_geometry, unscale  # noqa: E402

TABLE_FORMATS = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn",
                 "float6_e2m3fn", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3",
                 "p3109_p3", "float8_e3m4"]  # fmt: skip


def _scales() -> np.ndarray:
    """Positive float32 scales: the extremes (the smallest subnormal, 2**127, the
    largest float32), powers of two, and random significands over the whole range."""
    rng = np.random.default_rng(5)
    random = rng.uniform(1, 2, 40) * np.exp2(rng.integers(-149, 128, 40).astype(np.float64))
    edges = [2.0**-149, 3 * 2.0**-149, 2.0**-127, 2.0**-126, 1.0, 3.0, 448 / 3, 2.0**100,
             2.0**127, 1.9999999 * 2**127, 1e-38, 1e-30, 1e30]  # fmt: skip
    scales = np.concatenate([random, edges]).astype(np.float32)
    return scales[scales > 0]


def _codes(name: str) -> np.ndarray:
    """Every finite value of the format with both signs, and inf and NaN."""
    values = np.array([float(v) for v in finite_values(name)], np.float32)
    return np.concatenate([values, -values, np.float32([np.inf, -np.inf, np.nan])])


def _expected(q: np.ndarray, s: np.float32, holder: str) -> np.ndarray:
    """q / s rounded once into ``holder``, as float32 bits; inf and NaN pass through."""
    out = float32_bits(q.copy())
    target = fpx.get_format(holder)
    for i, v in enumerate(q):
        if not np.isfinite(v):
            continue
        exact = round_exact(Fraction(float(v)) / Fraction(float(s)), target, "nearest_even")
        if isinstance(exact, str):
            out[i] = float32_bits(np.float32([float(exact)]))[0]
        elif exact == 0:
            out[i] = 0x8000_0000 if np.signbit(v) else 0
        else:
            out[i] = float32_bits(np.float32([float(exact)]))[0]
    return out


def _check(name: str, holders: tuple[str, ...], scales: np.ndarray, codes: np.ndarray) -> None:
    spec = spec_for(fpx.get_format(name), "saturate")
    for holder in holders:
        kernel = jax.jit(lambda q, s, h=holder: unscale(q, s, spec, h))
        bits = jnp.asarray(float32_bits(codes))
        for s in scales:
            got = np.asarray(kernel(bits, jnp.uint32(float32_bits(np.float32([s]))[0])))
            want = _expected(codes, s, holder)
            same = (got == want) | (np.isnan(codes) & np.isnan(got.view(np.float32)))
            bad = np.flatnonzero(~same)
            label = (name, holder, float(s), codes[bad[:5]], got[bad[:5]].view(np.float32))
            assert not bad.size, (*label, want[bad[:5]].view(np.float32))


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLE_FORMATS)
def test_every_value_over_many_scales(name: str) -> None:
    assert table_geometry(spec_for(fpx.get_format(name), "saturate")) is not None
    _check(name, tuple(HOLDERS), _scales(), _codes(name))


def test_subnormal_results_overflow_and_zeros() -> None:
    """E4M3 over the scales that give float32 subnormals (2**-9 / 2**127), inf
    (448 / 2**-149) and zeros of both signs, for every output dtype."""
    scales = np.float32([2.0**-149, 2.0**127, 1.5 * 2**120, 2.0**-126, 0.75 * 2**-126])
    _check("float8_e4m3fn", tuple(HOLDERS), scales, _codes("float8_e4m3fn"))


def test_direct_division_route() -> None:
    """Formats without a table (too many values, or values below float32's normals)
    divide element by element, with the same results."""
    bfloat16 = fpx.get_format("bfloat16")
    assert (2 * (bfloat16.emax + 134)) << 7 > TABLE_LIMIT
    assert table_geometry(spec_for(bfloat16, None)) is None
    assert table_geometry(spec_for(fpx.get_format("float8_e8m0fnu"), None)) is None
    rng = np.random.default_rng(1)
    codes = fpx.round_to(rng.standard_normal(300) * np.exp2(rng.integers(-130, 120, 300)),
                         "bfloat16").astype(np.float32)  # fmt: skip
    codes = np.concatenate([codes, np.float32([0.0, -0.0, np.inf, np.nan, 2.0**-133])])
    _check("bfloat16", ("float32",), _scales()[::4], codes)
    e8m0 = np.float32([2.0**-127, 2.0**-100, 1.0, 2.0**127])
    _check("float8_e8m0fnu", ("float32", "float16"), _scales()[::4], e8m0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_amax_over_rows_and_tail(dtype: str) -> None:
    """amax_of equals numpy's for sizes around the cut into 16 rows (1024 and up),
    with the largest value (a subnormal, a normal, next to inf and NaN) anywhere."""
    import fpexplore.jax as fjax

    rng = np.random.default_rng(3)
    for size in (1, 17, 1023, 1024, 1025, 1040, 1047, 4096 + 15, 40_000):
        base = (
            rng.uniform(-1, 1, size) * 2.0**-140 if dtype == "float32" else rng.uniform(-1, 1, size)
        )
        base = np.asarray(jnp.asarray(base.astype(np.float32)).astype(dtype))
        for where in sorted({0, size // 16, size // 2, size - 1, (size // 16) * 16}):
            if where >= size:
                continue
            x = base.copy()
            x[::7] = np.inf
            x[1::11] = np.nan
            x[where] = -3.0
            got = float(fjax.amax_of(jnp.asarray(x)))
            assert got == 3.0, (dtype, size, where)
        finite = base.astype(np.float32)
        assert float(fjax.amax_of(jnp.asarray(base))) == float(np.abs(finite).max()), (dtype, size)


def test_vmap_over_tensors_scales_each_by_its_own_amax() -> None:
    """Under vmap the scale, and the table built from it, is one per tensor."""
    import fpexplore.jax as fjax

    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 8, 64)) * np.array([1e-3, 1.0, 1e3])[:, None, None]
    x = jnp.asarray(x.astype(np.float32))
    batched = jax.vmap(lambda v: fjax.scale_per_tensor(v, "float8_e4m3fn").values)(x)
    for one, v in zip(np.asarray(batched), x, strict=True):
        assert np.array_equal(one, np.asarray(fjax.scale_per_tensor(v, "float8_e4m3fn").values))
