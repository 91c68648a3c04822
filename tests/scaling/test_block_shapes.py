"""Blocks of any size along any axis, 2-D tiles, scale rules and scale kinds,
against the Fraction oracle (tests/scaling_oracle.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore import BlockFormat, dequantize_blocks, quantize_blocks
from tests.scaling_oracle import expected_tiles

F32 = BlockFormat("f32_e4m3", "float8_e4m3fn", 32, "float32", 8)
POW2 = BlockFormat("pow2_e4m3", "float8_e4m3fn", 32, "float32_pow2", 8)
F32_INT8 = BlockFormat("f32_int8", "int8", 32, "float32", 0)
FORMATS = ["mxfp4", "mxfp8_e4m3", "mxfp6_e2m3", "mxint8", "nvfp4", F32, POW2, F32_INT8]
LAYOUTS = [(-1, 7), (0, 1), ((0, 1), (16, 16)), ((1, 0), (4, 3)), (1, None)]


def _tensor(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp(2 * rng.standard_normal(shape))
    x[0, :5] = 0.0  # a block of zeros at the edge of another
    return x.astype(np.float32)


def _name(fmt: object) -> str:
    return getattr(fmt, "name", str(fmt))


@pytest.mark.parametrize("fmt", FORMATS, ids=_name)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("mode", ["nearest_even", "toward_zero", "up"])
def test_against_fraction_oracle(fmt: object, layout: tuple, mode: str) -> None:
    axis, size = layout
    x = _tensor((19, 23))
    pow2 = _name(fmt) in ("mxfp4", "mxint8", "pow2_e4m3", "mxfp8_e4m3")
    rules = ["floor", "rceil", "ceil", "even"] if pow2 else [None]
    for rule in rules:
        q = quantize_blocks(x, fmt, mode, axis=axis, block_size=size, scale_rule=rule)
        axes, sizes = q.axes, q.block_shape
        want = expected_tiles(x, q.format, mode, axes, sizes, rule or "floor")
        got = q.values
        assert all(float(w) == g for w, g in zip(want.flat, got.flat, strict=True)), (rule, axes)
        np.testing.assert_array_equal(q.dequantize(), q.values)


def test_scale_rules_differ_as_documented() -> None:
    x = np.array([7.0, 1.0, 6.0, 5.0], np.float32)  # amax 7: floor X=1, rceil/ceil/even X=2
    values = {r: quantize_blocks(x, "mxfp4", scale_rule=r).values.tolist() for r in
              ("floor", "rceil", "ceil", "even")}  # fmt: skip
    assert values["floor"] == [6.0, 1.0, 6.0, 4.0]  # 7 saturates at 6
    assert values["rceil"] == values["ceil"] == values["even"] == [8.0, 1.0, 6.0, 4.0]
    six = np.array([6.0, 1.0], np.float32)  # amax 6 = max: rceil and floor keep X = 1
    assert quantize_blocks(six, "mxfp4", scale_rule="rceil").scales.tolist() == [127]
    assert quantize_blocks(six, "mxfp4", scale_rule="ceil").scales.tolist() == [128]


def test_2d_tiles_make_w_and_wt_the_same_matrix() -> None:
    w = _tensor((48, 40), seed=3)
    one = quantize_blocks(w, "nvfp4", axis=(0, 1), block_size=(16, 16)).values
    other = quantize_blocks(w.T, "nvfp4", axis=(0, 1), block_size=(16, 16)).values
    np.testing.assert_array_equal(one.T, other)
    rows = quantize_blocks(w, "nvfp4", axis=1).values  # 1-D blocks: W and W^T differ
    cols = quantize_blocks(w.T, "nvfp4", axis=1).values
    assert not np.array_equal(rows.T, cols)


def test_tile_geometry_and_block() -> None:
    q = quantize_blocks(_tensor((20, 40)), "nvfp4", axis=(0, 1), block_size=(16, 16))
    assert q.scales.shape == (2, 3) and q.block_size == (16, 16) and q.axis == (0, 1)
    assert q.block((1, 2))["input"].size == 4 * 8  # the corner tile: 4 rows, 8 columns
    d = dequantize_blocks(q.scales, q.codes, "nvfp4", axis=(0, 1), block_size=(16, 16),
                          tensor_scale=q.tensor_scale)  # fmt: skip
    np.testing.assert_array_equal(d, q.values)
    three = quantize_blocks(np.ones((2, 3, 40)), "mxfp4", block_size=(2, 16))  # last two axes
    assert three.axis == (1, 2) and three.scales.shape == (2, 2, 3)


def test_blocks_of_one_scale_each_element() -> None:
    x = _tensor((4, 9))
    q = quantize_blocks(x, "mxfp8_e4m3", block_size=1, scale_rule="rceil")
    assert q.scales.shape == x.shape
    error = np.abs(q.values - x)  # E4M3's 3 mantissa bits at each element's own scale
    assert np.all(error <= np.abs(x) / 16)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="2-D block .* at least 2 dimensions, got 1"):
        quantize_blocks(np.ones(32), "nvfp4", axis=(0, 1), block_size=(16, 16))
    with pytest.raises(ValueError, match="2-D block .* at least 2 dimensions, got 1"):
        quantize_blocks(np.ones(32), "nvfp4", block_size=(16, 16))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        quantize_blocks(np.ones((4, 4)), "mxfp4", axis=(0, 2), block_size=(2, 2))
    with pytest.raises(ValueError, match="1-D .* or 2-D"):
        quantize_blocks(np.ones((4, 4, 4)), "mxfp4", axis=(0, 1, 2), block_size=(2, 2, 2))
    with pytest.raises(ValueError, match="two different axes"):
        quantize_blocks(np.ones((4, 4)), "mxfp4", axis=(1, -1), block_size=(2, 2))
    with pytest.raises(ValueError, match="block_size must be a positive int, got -2"):
        quantize_blocks(np.ones((4, 4)), "mxfp4", axis=(0, 1), block_size=(2, -2))
    with pytest.raises(ValueError, match="unknown scale_rule 'round'"):
        quantize_blocks(np.ones(4), "mxfp4", scale_rule="round")
    with pytest.raises(ValueError, match="scale_rule applies to power-of-two scales"):
        quantize_blocks(np.ones(4), "nvfp4", scale_rule="rceil")
    with pytest.raises(ValueError, match="scale must be one of"):
        BlockFormat("x", "float8_e4m3fn", 32, "e5m2", 8)
    with pytest.raises(ValueError, match="e4m3 block scale .* float4_e2m1fn"):
        BlockFormat("x", "float8_e4m3fn", 32, "e4m3", 8)
    for alias in ("e2m1", "fp4", "float4_e2m1"):  # an element format's aliases are the format
        assert BlockFormat("x", alias, 16, "e4m3", 2) == BlockFormat("x", "float4_e2m1fn", 16,
                                                                     "e4m3", 2)  # fmt: skip
    assert BlockFormat("x", "e4m3", 32, "e8m0", 8).element == "float8_e4m3fn"
    with pytest.raises(ValueError, match="block_size must be a positive int or a pair"):
        BlockFormat("x", "float8_e4m3fn", (16, 16, 16), "e8m0", 8)
    with pytest.raises(ValueError, match="tensor_amax applies"):
        quantize_blocks(np.ones(4), F32, tensor_amax=1.0)


def test_an_int_axis_with_a_pair_of_sizes_is_the_axis_the_tiles_run_along() -> None:
    """block_size[1] along ``axis``, block_size[0] along the other axis of a matrix: as a
    report's tiles run (``tensor_report(w, axis=...)``); a larger array's tiles are its
    last two axes, so an int axis there must be the last."""
    x = _tensor((24, 40))
    for axis, pair in ((1, (0, 1)), (-1, (0, 1)), (0, (1, 0)), (-2, (1, 0))):
        got = quantize_blocks(x, "nvfp4", axis=axis, block_size=(8, 16))
        want = quantize_blocks(x, "nvfp4", axis=pair, block_size=(8, 16))
        assert np.array_equal(got.values, want.values) and got.axis == want.axis, axis
    cube = _tensor((3, 24, 40))
    last = quantize_blocks(cube, "nvfp4", axis=-1, block_size=(8, 16))
    assert last.axis == (1, 2)
    with pytest.raises(ValueError, match=r"must be its last axis, got axis=0: pass a pair of axes"):
        quantize_blocks(cube, "nvfp4", axis=0, block_size=(8, 16))
    with pytest.raises(ValueError, match=r"last two axes .* got axis=1"):
        quantize_blocks(cube, NVFP4_16X16, axis=1)


NVFP4_16X16 = BlockFormat("nvfp4_16x16", "float4_e2m1fn", (16, 16), "e4m3", 2)


def _snr(x: np.ndarray, y: np.ndarray) -> float:
    x = x.astype(np.float64)
    return float(10 * np.log10(np.sum(x**2) / np.sum((x - y) ** 2)))


def test_reports_answer_what_16x16_nvfp4_blocks_do_to_a_weight() -> None:
    from fpexplore import checkpoint_report, tensor_report

    w = _tensor((64, 48), seed=5)
    pow2 = BlockFormat("pow2_64", "float8_e4m3fn", 64, "float32_pow2", 8)
    report = tensor_report(w, ["mxfp4", NVFP4_16X16, F32, pow2])
    by_name = {r["format"]: r for r in report.to_records()}
    tiles = quantize_blocks(w, NVFP4_16X16, axis=(0, 1)).values
    assert by_name["nvfp4_16x16"]["snr_db"] == pytest.approx(_snr(w, tiles), abs=1e-9)
    assert by_name["f32_e4m3"]["snr_db"] == pytest.approx(
        _snr(w, quantize_blocks(w, F32).values), abs=1e-9
    )
    assert by_name["pow2_64"]["snr_db"] == pytest.approx(
        _snr(w, quantize_blocks(w, pow2).values), abs=1e-9
    )
    assert by_name["mxfp4"]["snr_db"] == tensor_report(w, "mxfp4").to_records()[0]["snr_db"]
    record = checkpoint_report({"w": w}, [NVFP4_16X16], axis=-1).to_records()[0]
    assert record["snr_db"] == by_name["nvfp4_16x16"]["snr_db"]
    part = w[:40]  # partial tiles at the edge, scaled on their own (as quantize_blocks does)
    edge = tensor_report(part, NVFP4_16X16).to_records()[0]
    assert edge["snr_db"] == pytest.approx(
        _snr(part, quantize_blocks(part, NVFP4_16X16, axis=(0, 1)).values), abs=1e-9
    )
