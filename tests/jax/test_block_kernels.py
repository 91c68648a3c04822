"""The kernels behind NVFP4 in JAX: division by a reciprocal (fpexplore.jax._bits
.divide_by) against restoring division over a million significand pairs and the
edge cases; NVFP4 in every mode against the numpy path on exact ties between
elements, their float32 neighbours and the largest floats; stochastic NVFP4
unbiased against exact Fraction probabilities."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx

from .common import MODES, float32_bits

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")

from fpexplore.jax._bits import divide, divide_by, reciprocal  # noqa: E402


def _significands() -> tuple[np.ndarray, np.ndarray]:
    """Normalized numerators of 24 significant bits (float32 values) and divisors of
    up to 28 (a block scale times a tensor scale), random and at the edges: equal,
    powers of two, the largest, divisors of few bits, zero numerators."""
    rng = np.random.default_rng(0)
    n = 1 << 20
    numerators = (rng.integers(1 << 23, 1 << 24, n, dtype=np.uint64) << 7).astype(np.uint32)
    divisors = (rng.integers(1 << 27, 1 << 28, n, dtype=np.uint64) << 3).astype(np.uint32)
    divisors[:1000] = rng.integers(8, 16, 1000).astype(np.uint32) << 27  # 4 bits: s alone
    divisors[1000:1100] = 1 << 30
    divisors[1100:1200] = 0x7FFF_FFF8
    divisors[1200:1300] = (1 << 30) + 8
    numerators[1300:1400] = divisors[1300:1400] & 0xFFFF_FF80  # equal, or just below
    numerators[1400:1500] = 0x7FFF_FF80
    numerators[1500:1600] = 1 << 30
    numerators[1600:1700] = 0
    return numerators, divisors


@pytest.mark.parametrize("bits", [4, 6, 26, 31])
def test_divide_by_reciprocal_equals_long_division(bits: int) -> None:
    numerators, divisors = _significands()
    e = np.zeros(numerators.size, np.int32)

    @jax.jit
    def both(n: object, d: object) -> tuple:
        return divide(n, e, d, e, bits=bits), divide_by(n, e, d, e, reciprocal(d), bits=bits)

    (q1, e1), (q2, e2) = both(numerators, divisors)
    assert np.array_equal(np.asarray(q1), np.asarray(q2))
    assert np.array_equal(np.asarray(e1), np.asarray(e2))


def _exact_quotients(numerators: np.ndarray, divisors: np.ndarray, bits: int) -> np.ndarray:
    """:func:`divide`'s quotient bits in exact integer arithmetic: ``bits`` bits of
    ``R / D`` (``R`` the numerator doubled when below the divisor), shifted to the
    normalized position, with the remainder's sticky bit."""
    r, d = numerators.astype(np.uint64) >> 2, divisors.astype(np.uint64) >> 2
    r = np.where(r < d, r << 1, r)
    scaled = r << np.uint64(bits - 1)
    q = scaled // d
    sticky = (scaled - q * d != 0).astype(np.uint64)
    out = (q << np.uint64(31 - bits)) | sticky
    return np.where(numerators == 0, 0, out).astype(np.uint32)


@pytest.mark.parametrize("bits", [4, 6, 10, 13, 24, 26, 31])
def test_divide_equals_exact_integer_division(bits: int) -> None:
    """Every quotient bit and the sticky bit, against exact integer arithmetic, for
    divisors of up to 28 bits (a block scale times a tensor scale) and numerators of
    24: whatever float division XLA runs to estimate them."""
    numerators, divisors = _significands()
    e = np.zeros(numerators.size, np.int32)
    q, _ = jax.jit(lambda n, d: divide(n, e, d, e, bits=bits))(numerators, divisors)
    expected = _exact_quotients(numerators, divisors, bits)
    assert np.array_equal(np.asarray(q), expected)


def test_reciprocal_is_floor_of_2_to_60_over_the_divisor() -> None:
    _, divisors = _significands()
    d = (divisors >> 2).astype(np.uint64)
    inverse = np.asarray(jax.jit(reciprocal)(divisors)).astype(np.uint64)
    exact = (np.uint64(1) << np.uint64(60)) // d
    shifted = d != (1 << 28)  # D = 2**28 (2**32 would not fit): divide_by shifts instead
    assert np.array_equal(inverse[shifted], exact[shifted])


def _ties() -> np.ndarray:
    """Blocks whose elements are exactly halfway between two E2M1 values times the
    block's divisor ``s g``, or a float32 step either side of it, or exactly an
    E2M1 value times it, with both signs:
    the tensor's amax 2688 makes ``g = 1``, the blocks' amaxes 2688 and 15 make
    ``s = 448`` and ``s = 2.5``."""
    midpoints = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])
    grid = np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])  # exact elements: no rounding
    rows = []
    for divisor in (448.0, 2.5):
        ties = (midpoints * divisor).astype(np.float32)
        for tie in (ties, np.nextafter(ties, np.float32(0)), np.nextafter(ties, np.float32(1e9))):
            rows.append(np.concatenate([[6 * divisor], tie, -tie, [-6 * divisor]]))
        rows.append(np.concatenate([[6 * divisor], grid * divisor, -grid * divisor, [0.0]]))
    return np.array(rows, np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_nvfp4_ties_neighbours_and_largest_floats(mode: str) -> None:
    x = _ties()
    q = fpx.quantize_blocks(x, "nvfp4")
    assert q.tensor_scale == 1.0 and set(q.scale_values.ravel()) == {448.0, 2.5}
    big = np.float32(3.4028235e38) * np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 16)
    for tensor in (x, big):  # big: the thresholds of the top scales near float32's largest
        got = np.asarray(fjax.quantize_blocks(jnp.asarray(tensor), "nvfp4", mode))
        values = fpx.quantize_blocks(tensor, "nvfp4", rounding=mode).values
        want = fpx.round_to(values, "float32").astype(np.float32)
        assert np.array_equal(float32_bits(got), float32_bits(want)), (mode, tensor[0, 0])


def test_nvfp4_stochastic_is_unbiased() -> None:
    """Over 2000 keys, the count of elements rounded away from zero is Binomial with
    the exact probability (|V| - lower) / (upper - lower), the neighbours' values
    (element times s g, exact in float64), within 5 deviations."""
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((4, 64)) * np.exp2(rng.integers(-3, 3, (4, 64)))).astype(np.float32)
    toward = fpx.quantize_blocks(x, "nvfp4", rounding="toward_zero").values
    away = np.where(x < 0, fpx.quantize_blocks(x, "nvfp4", rounding="down").values,
                    fpx.quantize_blocks(x, "nvfp4", rounding="up").values)  # fmt: skip
    pairs = zip(x.ravel(), toward.ravel(), away.ravel(), strict=True)
    p = np.array([0.0 if a == b else float((Fraction(float(v)) - Fraction(float(a)))
                                           / (Fraction(float(b)) - Fraction(float(a))))
                  for v, a, b in pairs])  # fmt: skip
    keys = jax.random.split(jax.random.key(11), 2000)
    run = jax.jit(jax.vmap(lambda k: fjax.quantize_blocks(x, "nvfp4", "stochastic", key=k)))
    results = np.asarray(run(keys)).reshape(2000, -1)
    lo, hi = (fpx.round_to(v, "float32").astype(np.float32).ravel() for v in (toward, away))
    assert ((results == lo) | (results == hi)).all()
    spread = hi != lo
    ups = (results[:, spread] == hi[spread]).sum(axis=0)
    ps = p[spread]
    z = (ups.sum() - 2000 * ps.sum()) / np.sqrt((2000 * ps * (1 - ps)).sum())
    assert abs(z) < 5, z
    assert spread.sum() > 100


@pytest.mark.parametrize("mode", ["nearest_even", "up", "stochastic"])
def test_nvfp4_under_vmap_is_each_tensor_alone(mode: str) -> None:
    """Under vmap each tensor gets its own tensor scale and tables."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 8, 64)) * np.array([1e-3, 1.0, 1e3])[:, None, None]
    x = jnp.asarray(x.astype(np.float32))
    key = jax.random.key(0)
    batched = jax.vmap(lambda v: fjax.quantize_blocks(v, "nvfp4", mode, key=key))(x)
    for one, v in zip(np.asarray(batched), x, strict=True):
        alone = fjax.quantize_blocks(v, "nvfp4", mode, key=key)
        assert np.array_equal(float32_bits(one), float32_bits(np.asarray(alone)))
