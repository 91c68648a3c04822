"""Stochastic rounding: always one of the two neighbours, unbiased over many keys,
the same result from the same key."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

from .common import FORMATS, expected_bits, float32_bits, random_float32

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")


@pytest.mark.parametrize("name", FORMATS, ids=str)
def test_always_a_neighbour(name: str) -> None:
    """The result is fpexplore's ``down`` or ``up`` result, bit for bit (NaN inputs:
    the format's NaN, as every mode gives it); beyond the overflow threshold it is
    what nearest rounding gives."""
    x = random_float32()
    if not fpx.get_format(name).has_nan:
        x = x[~np.isnan(x)]
    key = jax.random.key(len(str(name)))
    with jax.disable_jit():
        got = float32_bits(fjax.round_to(jnp.asarray(x), name, "stochastic", key=key))
    down, up = (expected_bits(x, name, mode, None) for mode in ("down", "up"))
    assert ((got == down) | (got == up)).all(), name
    nearest = expected_bits(x, name, "nearest_even", None)
    f = fpx.get_format(name)
    with np.errstate(invalid="ignore"):
        far = np.abs(x.astype(np.float64)) >= f.max + 2.0 ** (f.emax - f.mantissa_bits)
    assert (got[far] == nearest[far]).all()


def test_same_key_same_result_and_keys_of_both_kinds() -> None:
    x = jnp.asarray(np.random.default_rng(1).standard_normal(5000).astype(np.float32))
    a = fjax.round_to(x, "float8_e4m3fn", "stochastic", key=jax.random.key(7))
    b = jax.jit(lambda v, k: fjax.round_to(v, "e4m3", "stochastic", key=k))(x, jax.random.key(7))
    c = fjax.round_to(x, "float8_e4m3fn", "stochastic", key=jax.random.PRNGKey(7))
    d = fjax.round_to(x, "float8_e4m3fn", "stochastic", key=jax.random.key(8))
    np.testing.assert_array_equal(float32_bits(a), float32_bits(b))
    np.testing.assert_array_equal(float32_bits(a), float32_bits(c))  # the same key data
    assert (float32_bits(a) != float32_bits(d)).mean() > 0.2
    rbg = jax.random.key(7, impl="rbg")
    e = fjax.round_to(x, "float8_e4m3fn", "stochastic", key=rbg)
    assert (float32_bits(a) != float32_bits(e)).mean() > 0.2


def test_split_keys_under_vmap_differ_and_match_single_calls() -> None:
    x = jnp.linspace(1.0, 2.0, 1000, dtype=jnp.float32)
    keys = jax.random.split(jax.random.key(0), 4)
    batched = jax.vmap(lambda k: fjax.round_to(x, "bfloat16", "stochastic", key=k))(keys)
    for i in range(4):
        single = fjax.round_to(x, "bfloat16", "stochastic", key=keys[i])
        np.testing.assert_array_equal(float32_bits(batched[i]), float32_bits(single))
    assert (float32_bits(batched[0]) != float32_bits(batched[1])).any()


@pytest.mark.parametrize(
    ("name", "dtype"),
    [("bfloat16", jnp.float32), ("float8_e4m3fn", jnp.float32), ("float4_e2m1fn", jnp.float32),
     ("float8_e5m2", jnp.bfloat16), ("float8_e8m0fnu", jnp.float32), ("p3109_p1", jnp.float32),
     ("float8_e4m3fnuz", jnp.float16)],
)  # fmt: skip
def test_unbiased_over_many_keys(name: str, dtype: object) -> None:
    """Each element rounds up a Binomial(N, p) number of times out of N keys, p its
    distance to the neighbour below over the spacing. The total count over all
    elements is then within 5 standard deviations of its expectation (a false alarm
    about once in 1.7 million runs), and so is each element's count whose p lies in
    [0.05, 0.95] (normal enough there; 6 deviations for the few hundred of them:
    about once in a million runs). A bias of 1% of the spacing would move the total
    by about 30 deviations."""
    f = fpx.get_format(name)
    rng = np.random.default_rng(5)
    exponents = rng.integers(f.emin - f.mantissa_bits - 3, min(f.emax, 20), 400)
    x = (rng.uniform(1, 2, 400) * np.exp2(exponents)).astype(np.float32)
    x = np.concatenate([x, -x[:100]]).astype(dtype)  # the negatives round up toward zero
    x32 = np.asarray(jnp.asarray(x).astype(jnp.float32), np.float64)
    lo = fpx.round_to(x32, f, "down")
    hi = fpx.round_to(x32, f, "up")
    keep = np.isfinite(lo) & np.isfinite(hi)  # E8M0 has nothing below 2**-127, no negatives
    x, x32, lo, hi = x[keep], x32[keep], lo[keep], hi[keep]
    spread = hi > lo
    p = np.where(spread, (x32 - lo) / np.where(spread, hi - lo, 1), 0.0)
    n = 3000
    keys = jax.random.split(jax.random.key(11), n)
    results = jax.jit(jax.vmap(lambda k: fjax.round_to(jnp.asarray(x), f, "stochastic", key=k)))(
        keys
    )
    ups = ((np.asarray(results.astype(jnp.float32), np.float64) == hi) & spread).sum(axis=0)
    assert np.isin(np.asarray(results.astype(jnp.float32)), np.stack([lo, hi])).all()
    expected, variance = n * p, n * p * (1 - p)
    z_total = (ups.sum() - expected.sum()) / np.sqrt(variance.sum())
    assert abs(z_total) < 5, z_total
    middle = (p >= 0.05) & (p <= 0.95)
    z = (ups[middle] - expected[middle]) / np.sqrt(variance[middle])
    assert np.abs(z).max() < 6, np.abs(z).max()
    assert middle.sum() > 100


def test_far_below_the_smallest_subnormal() -> None:
    """A value of 2**-20 of E4M3's smallest subnormal 2**-9 rounds up with
    probability 2**-20: about 1 time in 2**20 (counted over 2**22 elements)."""
    x = jnp.full(2**22, 2.0**-29, jnp.float32)
    got = fjax.round_to(x, "float8_e4m3fn", "stochastic", key=jax.random.key(2))
    ups = int((got > 0).sum())
    assert 0 < ups < 20  # mean 4, standard deviation 2
