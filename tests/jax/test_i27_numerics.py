"""fpexplore.jax's blocks, Hadamard transform and gemm against numpy, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import fpexplore as fpx  # noqa: E402
import fpexplore.jax as fjax  # noqa: E402

F32 = fpx.BlockFormat("f32_e4m3", "float8_e4m3fn", 32, "float32", 8)
F32_INT8 = fpx.BlockFormat("f32_int8", "int8", 32, "float32", 0)
POW2 = fpx.BlockFormat("pow2_e2m1", "float4_e2m1fn", 16, "float32_pow2", 2)
CASES = [
    ("nvfp4", (0, 1), (16, 16), None),
    ("nvfp4", 0, 1, None),
    ("mxfp8_e4m3", -1, 7, "rceil"),
    ("mxfp4", (1, 0), (4, 8), "even"),
    ("mxfp4", 0, (8, 4), None),  # an int axis with a tile: 4 along axis 0, 8 along axis 1
    ("mxint8", 0, 32, "ceil"),
    (F32, (0, 1), (16, 16), None),
    (F32_INT8, -1, 5, None),
    (POW2, 1, 16, "rceil"),
]


def _tensor(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * np.exp(2 * rng.standard_normal(shape))
    x[0, :5] = 0.0
    return x.astype(np.float32)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{getattr(c[0], 'name', c[0])}-{c[2]}")
@pytest.mark.parametrize("mode", ["nearest_even", "down"])
def test_quantize_blocks_bit_for_bit(case: tuple, mode: str) -> None:
    fmt, axis, size, rule = case
    x = _tensor((37, 45))
    want = fpx.quantize_blocks(x, fmt, mode, axis=axis, block_size=size, scale_rule=rule)
    got = jax.jit(lambda v: fjax.quantize_blocks(v, fmt, mode, axis=axis, block_size=size,
                                                 scale_rule=rule))(x)  # fmt: skip
    np.testing.assert_array_equal(
        np.asarray(got).view(np.uint32), want.values.astype(np.float32).view(np.uint32)
    )


def test_tensor_amax_is_the_numpy_one() -> None:
    x = _tensor((8, 32))
    want = fpx.quantize_blocks(x, "nvfp4", tensor_amax=1000.0).values.astype(np.float32)
    got = jax.jit(lambda v, t: fjax.quantize_blocks(v, "nvfp4", tensor_amax=t))(x, 1000.0)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("size", [1, 4, 16, 128])
@pytest.mark.parametrize("inverse", [False, True])
def test_hadamard_bit_for_bit(size: int, inverse: bool) -> None:
    x = np.random.default_rng(size).standard_t(2, (128, 24)).astype(np.float32)
    want = fpx.hadamard(x, size, axis=0, seed=4, inverse=inverse)
    got = jax.jit(lambda v: fjax.hadamard(v, size, axis=0, seed=4, inverse=inverse))(x)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))


CUSTOM = fpx.Accumulator(
    group=8, bits=20, alignment="nearest", final="nearest_even", promote_every=64
)
MODELS = [
    "h100_fp8",
    "h100_fp8_promoted",
    CUSTOM,
    fpx.Accumulator(group=4, bits=3),
    fpx.Accumulator(group=4, bits=3, alignment="nearest"),
    fpx.Accumulator(group=1, bits=27, final="nearest_even"),
    fpx.Accumulator(group=1, bits=27, alignment="nearest"),
    fpx.Accumulator(group=16, bits=0, alignment="nearest", final="nearest_even"),
    fpx.Accumulator(group=32, bits=23, alignment="nearest", promote_every=96),
]


def _model_id(acc: object) -> str:
    """A test id that names the model's parameters (the same in every process)."""
    if isinstance(acc, str):
        return acc
    a = acc
    assert isinstance(a, fpx.Accumulator)
    return f"g{a.group}-b{a.bits}-{a.alignment}-{a.final}-p{a.promote_every}"


def _operands(kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 300)) * np.exp(2 * rng.standard_normal((6, 300)))
    b = rng.standard_normal((300, 5))
    if kind == "fp8":  # few significant bits: many products land exactly on a tie
        a = fpx.round_to(a.astype(np.float32), "float8_e4m3fn", overflow="saturate")
        b = fpx.round_to(b.astype(np.float32), "float8_e5m2")
    a, b = a.astype(np.float32), b.astype(np.float32)
    b[:7] = 0.0
    a[1, ::3] = -a[1, ::3]
    if kind == "wide":  # tiny and huge products side by side, subnormal inputs
        a[2] *= np.float32(2.0**-100)
        a[3, :50] = np.float32(3e-41)
        b[200:] *= np.float32(2.0**60)
    return a, b


@pytest.mark.parametrize("kind", ["normal", "fp8", "wide"])
@pytest.mark.parametrize("acc", MODELS, ids=_model_id)
def test_gemm_bit_for_bit(acc: object, kind: str) -> None:
    a, b = _operands(kind)
    want = fpx.gemm(a, b, accumulate=acc)
    got = jax.jit(lambda x, y: fjax.gemm(x, y, accumulate=acc))(a, b)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="2-D block .* at least 2 dimensions"):
        fjax.quantize_blocks(np.ones(32, np.float32), "nvfp4", axis=(0, 1), block_size=(16, 16))
    with pytest.raises(ValueError, match="size must be a power of two"):
        fjax.hadamard(np.ones(12, np.float32), 12)
    with pytest.raises(ValueError, match="must divide the length"):
        fjax.hadamard(np.ones(24, np.float32), 16)
    with pytest.raises(ValueError, match="accumulate must be"):
        fjax.gemm(np.ones((2, 2)), np.ones((2, 2)), accumulate="b300")


def _assert_same_bits(got: object, want: np.ndarray) -> None:
    """Bit for bit, NaN payloads aside: the same NaNs, the same bits elsewhere."""
    got = np.asarray(got)
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    np.testing.assert_array_equal(got.view(np.uint32)[keep], want.view(np.uint32)[keep])


SPECIAL_MODELS = ["h100_fp8", "h100_fp8_promoted", CUSTOM, fpx.Accumulator(group=1, bits=27)]


@pytest.mark.parametrize("acc", SPECIAL_MODELS, ids=_model_id)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([[np.inf, 1]], [[1], [1]]),
        ([[np.nan, 1]], [[1], [1]]),
        ([[np.inf, 1]], [[0], [1]]),
        ([[-np.inf, np.inf]], [[1], [1]]),
        ([[-np.inf, 2]], [[-1], [np.inf]]),
        ([[3e38, 3e38]], [[2], [2]]),  # a finite sum beyond float32's range
        ([[3e38]], [[3e38]]),
        ([[3e38, -3e38]], [[2], [2]]),
    ],
)
def test_gemm_ieee_specials(acc: object, a: list, b: list) -> None:
    a, b = np.array(a, np.float32), np.array(b, np.float32)
    want = fpx.gemm(a, b, accumulate=acc)
    _assert_same_bits(fjax.gemm(a, b, accumulate=acc), want)
    _assert_same_bits(jax.jit(lambda x, y: fjax.gemm(x, y, accumulate=acc))(a, b), want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("acc", SPECIAL_MODELS, ids=_model_id)
def test_gemm_inf_nan_anywhere(acc: object, seed: int) -> None:
    """inf, -inf, NaN and zeros in random places (within a group, across groups,
    across promotions), and sums that overflow: numpy's IEEE results."""
    rng = np.random.default_rng(seed)
    m, k, n = 7, 300, 6
    a = rng.standard_normal((m, k)) * np.exp(2 * rng.standard_normal((m, k)))
    b = rng.standard_normal((k, n))
    a[m - 1] = 3e38 * np.sign(a[m - 1])  # row of huge values: overflows mid-sum
    for x in (a, b):
        for value, count in ((np.inf, 3), (-np.inf, 3), (np.nan, 1), (0.0, 40)):
            rows = rng.integers(0, x.shape[0], count)
            cols = rng.integers(0, x.shape[1], count)
            x[rows, cols] = value
    a, b = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # numpy's last promotion warns
        want = fpx.gemm(a, b, accumulate=acc)
    assert np.isfinite(want).any() and np.isinf(want).any() and np.isnan(want).any()
    _assert_same_bits(jax.jit(lambda x, y: fjax.gemm(x, y, accumulate=acc))(a, b), want)
