"""fpexplore.jax.quantize_blocks against fpexplore.quantize_blocks: every block
format, axis and rounding mode, ragged shapes, special blocks, the clamps of the
scales, bfloat16/float16 inputs, stochastic rounding."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

from .common import MODES, float32_bits

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
fjax = pytest.importorskip("fpexplore.jax")

BLOCK_FORMATS = list(fpx.BLOCK_FORMATS)


def _inputs(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values over a wide range, with zeros, float32 subnormals, tiny and huge
    blocks, and an element of 2**-100 of its neighbours every 7th."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-30, 30, shape))
    flat = x.reshape(-1)
    flat[::7] *= 2.0**-100
    flat[::13] = 0.0
    flat[5::29] = rng.integers(1, 2**23, flat[5::29].size) * 2.0**-149  # subnormals
    return x.astype(np.float32)


def _specials() -> np.ndarray:
    """A block with inf or NaN is NaN; all-zero blocks; the largest float32s (MX's
    shared exponent near E8M0's top); blocks clamped at 2**-127; -0."""
    x = np.ones((8, 32), np.float32)
    x[0, 3], x[1, 5], x[2, 0] = np.nan, np.inf, -np.inf
    x[3] = 0.0
    x[4] = np.float32(3.4028235e38) * np.linspace(-1, 1, 32, dtype=np.float32)
    x[5] = np.float32(1e-42) * np.arange(32, dtype=np.float32)
    x[6] = np.float32(2.0**-126) * np.linspace(-3, 3, 32, dtype=np.float32)
    x[7, ::2] = -0.0
    return x


# (array, axis): ragged last blocks along every kind of axis, special blocks, and a
# tensor of subnormals only (NVFP4's tensor scale clamped at 2**-149)
CASES = [
    (_inputs((70,), 0), -1),
    (_inputs((33, 4), 1), 0),
    (_inputs((3, 40, 2), 2), 1),
    (_specials(), -1),
    (_specials(), 0),
    ((np.arange(1, 41, dtype=np.uint32) * 977).view(np.float32).reshape(2, 20), -1),
]


def _reference(x: np.ndarray, fmt: str, axis: int, mode: str) -> np.ndarray:
    """The numpy path's values rounded once to float32 (exact in float64 first)."""
    values = fpx.quantize_blocks(x, fmt, axis=axis, rounding=mode).values
    return fpx.round_to(values, "float32").astype(np.float32)


def _assert_same(got: object, want: np.ndarray, label: object) -> None:
    got = np.asarray(got)
    same = (float32_bits(got) == float32_bits(want)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (label, int((~same).sum()), got[~same][:4], want[~same][:4])


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_every_format_axis_and_shape(fmt: str) -> None:
    """Every case in one compiled call."""
    arrays = [x for x, _ in CASES]
    cases = jax.jit(lambda xs: [fjax.quantize_blocks(x, fmt, axis=a) for x, (_, a)
                                in zip(xs, CASES, strict=True)])(arrays)  # fmt: skip
    for (x, axis), got in zip(CASES, cases, strict=True):
        assert got.shape == x.shape and got.dtype == jnp.float32
        _assert_same(got, _reference(x, fmt, axis, "nearest_even"), (fmt, x.shape, axis))


@pytest.mark.parametrize(
    "fmt",
    [f if f in ("mxfp8_e4m3", "mxint8", "nvfp4") else pytest.param(f, marks=pytest.mark.slow)
     for f in BLOCK_FORMATS],
)  # fmt: skip
def test_every_mode(fmt: str) -> None:
    """Every mode on a ragged 3-d case, in one compiled call (a second or two per
    format: the element kinds, MX float, MXINT8 and NVFP4, run in the fast suite)."""
    x, axis = CASES[2]
    modes = jax.jit(lambda v: [fjax.quantize_blocks(v, fmt, axis=axis, rounding=m)
                               for m in MODES])(x)  # fmt: skip
    for mode, got in zip(MODES, modes, strict=True):
        _assert_same(got, _reference(x, fmt, axis, mode), (fmt, mode))


def test_nvfp4_values_need_more_than_float32() -> None:
    """element * block scale * tensor scale can have 30 significant bits: rounded once."""
    x = np.array([[3.0, 5.0, 0.7, -1.1] * 4, [1.0, 2.0, 3.0, 1e-3] * 4], np.float32) * 1.2345678
    q = fpx.quantize_blocks(x, "nvfp4")
    exact = q.values
    assert (exact != exact.astype(np.float32)).any()  # some need rounding
    _assert_same(fjax.quantize_blocks(jnp.asarray(x), "nvfp4"), _reference(x, "nvfp4", -1,
                 "nearest_even"), "nvfp4")  # fmt: skip


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_16_bit_inputs(dtype_name: str) -> None:
    """bfloat16 and float16 inputs: the values rounded once into their dtype."""
    dtype = getattr(jnp, dtype_name)
    x = np.asarray(jnp.asarray(_inputs((4, 70), 9)).astype(dtype))
    x32 = x.astype(np.float32)
    for fmt in ("mxfp8_e4m3", "mxint8", "nvfp4"):
        got = fjax.quantize_blocks(jnp.asarray(x), fmt)
        assert got.dtype == dtype
        values = fpx.quantize_blocks(x32, fmt).values
        want = fpx.round_to(values, dtype_name).astype(np.float32)
        _assert_same(np.asarray(got.astype(jnp.float32)), want, (fmt, dtype_name))


@pytest.mark.parametrize("fmt", ["mxfp8_e4m3", "mxint8", "nvfp4"])
def test_stochastic_gives_a_neighbour_and_is_unbiased(fmt: str) -> None:
    """Each element is the numpy path's ``down`` or ``up`` result (the scales do not
    depend on the mode), the same for the same key, and its count of ``up`` results
    over 2000 keys is Binomial(2000, p): the total within 5 standard deviations."""
    x = _inputs((4, 64), 3)
    lo, hi = (_reference(x, fmt, -1, mode) for mode in ("down", "up"))
    keys = jax.random.split(jax.random.key(4), 2000)
    run = jax.jit(jax.vmap(lambda k: fjax.quantize_blocks(x, fmt, rounding="stochastic", key=k)))
    results = np.asarray(run(keys))
    assert ((results == lo) | (results == hi)).all()
    spread = hi > lo
    x64, lo64, hi64 = (np.asarray(a, np.float64)[spread] for a in (x, lo, hi))
    if fmt != "nvfp4":  # MX: the values are the element grid times X, exactly
        p = (x64 - lo64) / (hi64 - lo64)
        ups = (results[:, spread] == hi[spread]).sum(axis=0)
        z = (ups.sum() - 2000 * p.sum()) / np.sqrt((2000 * p * (1 - p)).sum())
        assert abs(z) < 5, z
    assert spread.sum() > 100


def test_errors() -> None:
    x = jnp.ones((2, 40))
    with pytest.raises(ValueError, match="unknown block format 'mxfp3'"):
        fjax.quantize_blocks(x, "mxfp3")
    with pytest.raises(ValueError, match="at least one dimension"):
        fjax.quantize_blocks(jnp.float32(1.0), "mxfp4")
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        fjax.quantize_blocks(x, "mxfp4", axis=2)
    with pytest.raises(ValueError, match="needs key="):
        fjax.quantize_blocks(x, "mxfp4", rounding="stochastic")
    with pytest.raises(ValueError, match="unknown rounding mode 'odd'"):
        fjax.quantize_blocks(x, "mxfp4", rounding="odd")
    with pytest.raises(TypeError, match="dtype float64"):
        fjax.quantize_blocks(np.ones((2, 40)), "mxfp4")


@pytest.mark.parametrize("fmt", ["mxfp4", "nvfp4"])
def test_empty_arrays(fmt: str) -> None:
    """Arrays with no elements come back as they are (shape and dtype), whatever
    the block axis, as the numpy path's values do."""
    for shape, axis in (((0,), -1), ((0, 5), 1), ((5, 0), 0), ((3, 0, 40), -1)):
        for dtype in (jnp.float32, jnp.bfloat16):
            got = fjax.quantize_blocks(jnp.zeros(shape, dtype), fmt, axis=axis)
            assert got.shape == shape and got.dtype == dtype
        want = fpx.quantize_blocks(np.zeros(shape, np.float32), fmt, axis=axis).values
        assert want.shape == shape


def test_bad_keys_are_named_before_tracing() -> None:
    x = jnp.ones((2, 40))
    with pytest.raises(TypeError, match="key must be a jax.random key .* got 0$"):
        fjax.quantize_blocks(x, "mxfp4", rounding="stochastic", key=0)
    with pytest.raises(ValueError, match="single jax.random key"):
        fjax.quantize_blocks(x, "nvfp4", rounding="stochastic",
                             key=jax.random.split(jax.random.key(0), 2))  # fmt: skip


@pytest.mark.parametrize("amax", [-3.0, float("nan"), float("inf"), np.float32(-1.0)])
def test_a_concrete_bad_tensor_amax_is_refused_as_numpy_refuses_it(amax: object) -> None:
    x = np.ones((2, 32), np.float32)
    with pytest.raises(ValueError, match="tensor_amax must be finite and >= 0"):
        fpx.quantize_blocks(x, "nvfp4", tensor_amax=amax)
    with pytest.raises(ValueError, match="tensor_amax must be finite and >= 0"):
        fjax.quantize_blocks(x, "nvfp4", tensor_amax=amax)
    with pytest.raises(ValueError, match="tensor_amax must be finite and >= 0"):
        fjax.quantize_blocks(x, "nvfp4", tensor_amax=np.asarray(amax, np.float32))


def test_a_traced_tensor_amax_is_left_unchecked() -> None:
    x = np.ones((2, 32), np.float32)
    got = jax.jit(lambda v, t: fjax.quantize_blocks(v, "nvfp4", tensor_amax=t))(x, 2.0)
    want = fpx.quantize_blocks(x, "nvfp4", tensor_amax=2.0).values.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(got), want)
    fjax.quantize_blocks(x, "nvfp4", tensor_amax=0.0)  # zero is allowed, as in numpy
