"""bfloat16 and float16 inputs (every code, in every format each dtype holds), jit,
vmap, grad and the straight-through gradient, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

from .common import FORMATS, MODES, eager_round, expected_bits, float32_bits, random_float32

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")
ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = {"bfloat16": jnp.bfloat16, "float16": jnp.float16}


def _holds(name: str, dtype: object) -> bool:
    """Whether every value of the format is a value of ``dtype`` (from the values)."""
    f = fpx.get_format(name)
    if f.bits > 19:  # float32
        return False
    values = fpx.codes.codes_to_values(np.arange(f.n_codes, dtype=np.uint64), f)
    values = values[np.isfinite(values)]
    with np.errstate(over="ignore"):
        return bool((values.astype(dtype).astype(np.float64) == values).all())


def _to_bits16(bits32: np.ndarray, dtype_name: str) -> np.ndarray:
    """16-bit codes of float32 values that the dtype holds (NaNs: top payload bits)."""
    if dtype_name == "bfloat16":
        return (bits32 >> 16).astype(np.uint16)
    values = bits32.view(np.float32)
    with np.errstate(invalid="ignore"):
        out = values.astype(np.float16).view(np.uint16)
    nan = np.isnan(values)
    nan_bits = ((bits32 >> 16) & 0x8000) | 0x7C00 | ((bits32 & 0x7F_FFFF) >> 13)
    out[nan] = nan_bits[nan].astype(np.uint16)
    return out


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_every_16_bit_input_in_every_format_it_holds(dtype_name: str) -> None:
    dtype = DTYPES[dtype_name]
    codes = np.arange(2**16, dtype=np.uint16)
    x16 = codes.view(ml_dtypes.bfloat16 if dtype_name == "bfloat16" else np.float16)
    x32 = x16.astype(np.float32)
    checked = 0
    for name in FORMATS:
        if not _holds(name, x16.dtype):
            with pytest.raises(ValueError, match=f"{fpx.get_format(name).name} has values that"):
                fjax.round_to(jnp.asarray(x16, dtype), name)
            continue
        keep = ~np.isnan(x32) if not fpx.get_format(name).has_nan else np.ones(x32.size, bool)
        for mode in MODES:
            got = eager_round(x16[keep], name, mode)
            assert got.dtype == x16.dtype
            want = _to_bits16(expected_bits(x32[keep], name, mode, None), dtype_name)
            np.testing.assert_array_equal(got.view(np.uint16), want, (name, mode))
        checked += 1
    assert checked >= (14 if dtype_name == "bfloat16" else 12)


def test_vmap_and_jit_give_the_same_bits() -> None:
    x = random_float32()[:12_000].reshape(40, 300)
    direct = float32_bits(fjax.round_to(jnp.asarray(x), "float8_e5m2", "down"))
    mapped = jax.vmap(lambda row: fjax.round_to(row, "float8_e5m2", "down"))(jnp.asarray(x))
    jitted = jax.jit(jax.vmap(lambda row: fjax.round_to(row, "e5m2", "down")))(jnp.asarray(x))
    np.testing.assert_array_equal(float32_bits(mapped), direct)
    np.testing.assert_array_equal(float32_bits(jitted), direct)


def test_gradients() -> None:
    """round_to is a step function: gradient 0. round_ste: the same values, gradient
    the identity (through jit, in a chain, and for bfloat16 inputs)."""
    x = jnp.array([0.3, -1.7, 5.9, 100.0, 1e-3], jnp.float32)
    w = jnp.array([1.0, 2.0, -3.0, 0.5, 4.0], jnp.float32)
    zero = jax.grad(lambda v: (fjax.round_to(v, "float4_e2m1fn") * w).sum())(x)
    assert zero.tolist() == [0.0] * 5
    ste = jax.jit(jax.grad(lambda v: (fjax.round_ste(v, "float4_e2m1fn") * w).sum()))(x)
    assert ste.tolist() == w.tolist()
    values = fjax.round_ste(x, "float4_e2m1fn")
    np.testing.assert_array_equal(float32_bits(values), float32_bits(fjax.round_to(x, "fp4")))
    _, tangent = jax.jvp(lambda v: fjax.round_ste(v, "bfloat16", "up"), (x,), (w,))
    assert tangent.tolist() == w.tolist()
    key = jax.random.key(3)
    g = jax.grad(lambda v: fjax.round_ste(v, "e4m3", "stochastic", key=key).sum())(x)
    assert g.tolist() == [1.0] * 5
    xb = x.astype(jnp.bfloat16)
    gb = jax.grad(lambda v: fjax.round_ste(v, "float8_e4m3fn").astype(jnp.float32).sum())(xb)
    assert gb.dtype == jnp.bfloat16 and gb.tolist() == [1.0] * 5


def test_errors_name_what_is_wrong() -> None:
    x = jnp.ones(3, jnp.float32)
    with pytest.raises(ValueError, match="float64 has values that float32 cannot hold"):
        fjax.round_to(x, "float64")
    with pytest.raises(ValueError, match="e9m3 has values that float32 cannot hold"):
        fjax.round_to(x, fpx.Format.ieee_like(9, 3))
    with pytest.raises(ValueError, match="e8m30 has values that float32"):
        fjax.round_to(x, "e8m30")
    with pytest.raises(ValueError, match="bfloat16 has values that float16 inputs"):
        fjax.round_to(x.astype(jnp.float16), "bfloat16")
    with pytest.raises(ValueError, match="float16 has values that bfloat16 inputs"):
        fjax.round_to(x.astype(jnp.bfloat16), "float16")
    with pytest.raises(ValueError, match="'float7'"):
        fjax.round_to(x, "float7")
    with pytest.raises(ValueError, match="unknown rounding mode 'nearest'"):
        fjax.round_to(x, "bfloat16", "nearest")
    with pytest.raises(ValueError, match="unknown overflow policy 'clip'"):
        fjax.round_to(x, "bfloat16", overflow="clip")
    with pytest.raises(ValueError, match="needs key="):
        fjax.round_to(x, "bfloat16", "stochastic")
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        fjax.round_to(x, "bfloat16", "stochastic", key=0)
    with pytest.raises(TypeError, match="dtype float64"):
        fjax.round_to(np.ones(3), "bfloat16")
    with pytest.raises(TypeError, match="dtype int32"):
        fjax.round_to(jnp.ones(3, jnp.int32), "bfloat16")
    with pytest.raises(TypeError, match="got list"):
        fjax.round_to([1.0, 2.0], "bfloat16")
    with pytest.raises(ValueError, match="e8m30 has values"):
        fjax.round_ste(x, "e8m30")


def test_one_compilation_per_shape_format_and_mode() -> None:
    from fpexplore.jax import rounding

    rounding._round.clear_cache()
    x = jnp.ones(5, jnp.float32)
    for _ in range(3):
        fjax.round_to(x, "float8_e4m3fn")
        fjax.round_to(x + 1, "e4m3")  # the same format by its alias
    fjax.round_to(x, "float8_e4m3fn", "up")
    assert rounding._round._cache_size() == 2


def test_jax_scalar_types_name_formats() -> None:
    """jnp.bfloat16, jnp.float8_e4m3fn... (JAX's own classes, no numpy types) name
    their formats as their dtypes do, in every function that takes a format."""
    x = jnp.asarray(random_float32()[:3000])
    for jax_type in (jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn, jnp.float8_e5m2fnuz,
                     jnp.float4_e2m1fn, jnp.float32):  # fmt: skip
        name = np.dtype(jax_type).name
        want = float32_bits(fjax.round_to(x, name, "up"))
        np.testing.assert_array_equal(float32_bits(fjax.round_to(x, jax_type, "up")), want)
        np.testing.assert_array_equal(float32_bits(fjax.round_ste(x, jax_type, "up")), want)
    assert float(fjax.compute_scale(3.0, jnp.float8_e5m2)) == fpx.compute_scale(3.0, "e5m2")
    t = fjax.scale_per_tensor(x[:100], jnp.float8_e4m3fn)
    np.testing.assert_array_equal(
        float32_bits(t.scaled), float32_bits(fjax.scale_per_tensor(x[:100], "e4m3").scaled)
    )
    with pytest.raises(ValueError, match="float64 has values that float32 cannot hold"):
        fjax.round_to(x, jnp.float64)
    with pytest.raises(ValueError, match="bfloat16 has values that float16 inputs"):
        fjax.round_to(x.astype(jnp.float16), jnp.bfloat16)


def test_numpy_inputs_of_the_other_byte_order() -> None:
    """A big-endian numpy array (">f4", ">f2") is read by its values, in every function
    (JAX itself refuses such arrays)."""
    x = random_float32()[:2000]
    for dtype in (">f4", ">f2"):
        with np.errstate(over="ignore", invalid="ignore"):
            native = x.astype(dtype[1:])
        swapped = native.astype(dtype)
        want = float32_bits(np.asarray(fjax.round_to(native, "e5m2", "down"), np.float32))
        got = fjax.round_to(swapped, "e5m2", "down")
        assert got.dtype == native.dtype
        np.testing.assert_array_equal(float32_bits(np.asarray(got, np.float32)), want)
        finite = np.where(np.isfinite(native), native, 0).astype(dtype)
        assert fjax.amax_of(finite) == fjax.amax_of(finite.astype(dtype[1:]))
        np.testing.assert_array_equal(
            np.asarray(fjax.quantize_blocks(finite, "mxfp4")),
            np.asarray(fjax.quantize_blocks(finite.astype(dtype[1:]), "mxfp4")),
        )
        scale = fjax.scale_per_tensor(finite.astype(dtype[1:]), "e4m3").scale
        assert float(fjax.scale_per_tensor(finite, "e4m3").scale) == float(scale)
