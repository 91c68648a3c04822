"""Per-tensor scaling in JAX against fpexplore's numpy scaling: amax, compute_scale,
scale_per_tensor (current and delayed recipes, margins, powers of two, every mode,
both overflow policies, inf and NaN inputs, 16-bit inputs) and the amax history."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

from .common import MODES, float32_bits, random_float32

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")

FORMATS = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"] + [
    pytest.param(f, marks=pytest.mark.slow)
    for f in ("float16", "bfloat16", "float8_e4m3fnuz", "p3109_p3")
]  # a few seconds each: three formats (IEEE, fn, none) in the fast suite


def _same(got: object, want: np.ndarray) -> bool:
    got = np.asarray(got)
    return bool(
        ((float32_bits(got) == float32_bits(want)) | (np.isnan(got) & np.isnan(want))).all()
    )


def _amaxes() -> np.ndarray:
    x = np.abs(random_float32())
    return np.concatenate([x[np.isfinite(x)][:3000], np.float32([0.0, 1e-45, 3.4028235e38])])


@pytest.mark.parametrize("name", FORMATS)
def test_compute_scale_equals_numpy(name: str) -> None:
    amax = _amaxes()
    for margin, power in ((0, False), (3, False), (-2, True), (0, True)):
        with jax.disable_jit():  # op by op: no compilation per format and argument
            got = fjax.compute_scale(amax, name, margin=margin, power_of_two=power)
        want = np.array([fpx.compute_scale(float(a), name, margin=margin, power_of_two=power)
                         for a in amax], np.float64)  # fmt: skip
        assert _same(np.asarray(got), want.astype(np.float32)), (margin, power)
        assert (want >= 2.0**-127).all() and (want <= 2.0**127).all()  # the clamp, both ways


def _reference(x: np.ndarray, name: str, dtype_name: str = "float32", **kwargs: object) -> tuple:
    if "amax_history" in kwargs:  # the numpy function takes a list
        kwargs["amax_history"] = [float(a) for a in kwargs["amax_history"]]
    t = fpx.scale_per_tensor(x.astype(np.float32), name, **kwargs)
    values = fpx.round_to(t.values, dtype_name).astype(np.float32)
    return values, t.scaled.astype(np.float32), np.float32(t.scale), np.float32(t.amax)


@pytest.mark.parametrize("name", FORMATS)
def test_scale_per_tensor_equals_numpy(name: str) -> None:
    rng = np.random.default_rng(len(name))
    x = (rng.standard_normal(3000) * np.exp2(rng.integers(-40, 20, 3000))).astype(np.float32)
    x[::17] = 0.0
    x[1::17] = -0.0
    x[2::500], x[3::500] = np.inf, -np.inf
    if fpx.get_format(name).has_nan:
        x[4::500] = np.nan
    history = np.float32([0.5, 300.0, 2.0e4])
    cases = [dict(), dict(margin=2), dict(power_of_two=True), dict(overflow=None),
             dict(recipe="delayed", amax_history=history),
             dict(recipe="delayed", amax_history=history[:1], overflow=None)]  # fmt: skip
    cases += [dict(rounding=mode) for mode in MODES[1:]]
    for kwargs in cases:
        with jax.disable_jit():  # op by op: no compilation per format and case
            got = fjax.scale_per_tensor(jnp.asarray(x), name, **kwargs)
        want = _reference(x, name, **kwargs)
        for field, g, w in zip(("values", "scaled", "scale", "amax"), got, want, strict=True):
            assert _same(g, w), (name, kwargs, field)


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_16_bit_inputs(dtype_name: str) -> None:
    x = np.asarray(jnp.asarray(np.linspace(-7, 7, 301, dtype=np.float32)).astype(dtype_name))
    got = fjax.scale_per_tensor(jnp.asarray(x), "float8_e4m3fn")
    assert got.values.dtype == x.dtype and got.scaled.dtype == jnp.float32
    want = _reference(x.astype(np.float32), "float8_e4m3fn", dtype_name)
    assert _same(np.asarray(got.values.astype(jnp.float32)), want[0])
    assert all(_same(g, w) for g, w in zip(got[1:], want[1:], strict=True))


def test_delayed_steps_match_delayed_scaling() -> None:
    """A jitted training-step loop carrying the history in its state gives what
    fpexplore.DelayedScaling gives call by call (its first call, with an empty
    history, scales by the tensor's own amax: the loop starts from that)."""
    rng = np.random.default_rng(8)
    tensors = [(rng.standard_normal(64) * s).astype(np.float32) for s in (1, 4, 2, 0.5, 8)]
    numpy_side = fpx.DelayedScaling("float8_e4m3fn", history_len=3)
    expected = [numpy_side(t) for t in tensors]

    @jax.jit
    def step(history: object, x: object) -> tuple:
        t = fjax.scale_per_tensor(x, "float8_e4m3fn", recipe="delayed", amax_history=history)
        return fjax.record_amax(history, x), t

    history = jnp.full(3, fjax.amax_of(tensors[0]))  # the first step: its own amax
    for x, want in zip(tensors, expected, strict=True):
        history, got = step(history, jnp.asarray(x))
        assert float(got.amax) == want.amax and float(got.scale) == np.float32(want.scale)
        assert _same(got.values, fpx.round_to(want.values, "float32").astype(np.float32))


def test_stochastic_scaled_values_are_neighbours() -> None:
    x = np.random.default_rng(2).standard_normal(4000).astype(np.float32)
    got = fjax.scale_per_tensor(jnp.asarray(x), "float8_e5m2", rounding="stochastic",
                                key=jax.random.key(1))  # fmt: skip
    down, up = (_reference(x, "float8_e5m2", rounding=m)[1] for m in ("down", "up"))
    scaled = np.asarray(got.scaled)
    assert ((scaled == down) | (scaled == up)).all() and (scaled != down).any()


def test_amax_of_and_errors() -> None:
    x = random_float32()
    assert float(fjax.amax_of(jnp.asarray(x))) == fpx.scaling.per_tensor.amax_of(x)
    assert float(fjax.amax_of(jnp.asarray([np.nan, -np.inf], jnp.float32))) == 0.0
    with pytest.raises(ValueError, match="non-empty 1-d amax_history"):
        fjax.scale_per_tensor(jnp.ones(3), "e4m3", recipe="delayed")
    with pytest.raises(ValueError, match="unknown recipe 'late'"):
        fjax.scale_per_tensor(jnp.ones(3), "e4m3", recipe="late")
    with pytest.raises(ValueError, match="float64 has values that float32"):
        fjax.scale_per_tensor(jnp.ones(3), "float64")
    with pytest.raises(ValueError, match="amax must be finite and >= 0, got -1.0"):
        fjax.compute_scale(-1.0, "e4m3")
    assert float(fjax.compute_scale(jnp.float32(np.nan), "e4m3")) == 1.0
    with pytest.raises(TypeError, match="margin must be an int"):
        fjax.compute_scale(1.0, "e4m3", margin=0.5)
    with pytest.raises(ValueError, match="non-empty 1-d array"):
        fjax.record_amax(jnp.zeros(0), jnp.ones(3))
    with pytest.raises(ValueError, match="needs key="):
        fjax.scale_per_tensor(jnp.ones(3), "e4m3", rounding="stochastic")


def test_numbers_and_histories_taken_exactly() -> None:
    """A number or a list of them is taken at its exact value and checked as the numpy
    functions take it: 448 / 0.3 is not 448 / float32(0.3); an amax float32 cannot
    hold (1e-50, 2**130) is still scaled by the clamped scale, not by 1.0."""
    from fractions import Fraction

    x = jnp.asarray(np.linspace(-3, 3, 50, dtype=np.float32))
    for amax in (0.3, 1e-50, 2.0**130, Fraction(1, 3), 2**200, np.float64(0.7), np.array(0.1)):
        got = fjax.compute_scale(amax, "float8_e4m3fn", margin=1)
        assert float(got) == fpx.compute_scale(amax, "float8_e4m3fn", margin=1), amax
        history = [0.1, amax] if isinstance(amax, float) else [amax]
        t = fjax.scale_per_tensor(x, "float8_e4m3fn", recipe="delayed", amax_history=history)
        n = fpx.scale_per_tensor(np.asarray(x), "float8_e4m3fn", recipe="delayed",
                                 amax_history=history)  # fmt: skip
        with np.errstate(over="ignore"):  # 2**130: inf as float32
            want = (fpx.round_to(n.values, "float32"), n.scaled, n.scale, np.float32(n.amax))
        for field, g, w in zip(("values", "scaled", "scale", "amax"), t, want, strict=True):
            assert _same(g, np.asarray(w, np.float32)), (amax, field)
    for bad in (np.float32(-3.0), np.float16(np.inf), np.array(-1.0)):
        with pytest.raises(ValueError, match="amax must be finite and >= 0"):
            fjax.compute_scale(bad, "e4m3")
    for bad in ("3", True, None, [3.0]):
        with pytest.raises(TypeError, match="amax must be a real number"):
            fjax.compute_scale(bad, "e4m3")
    for history in ([-5.0], [1.0, np.nan], np.float32([2.0, np.inf])):
        with pytest.raises(ValueError, match=r"amax_history\[\d\] must be finite and >= 0"):
            fjax.scale_per_tensor(x, "e4m3", recipe="delayed", amax_history=history)
