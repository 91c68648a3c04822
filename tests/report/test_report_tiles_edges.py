"""2-D tiles and scale rules in the reports, against quantize_blocks as the oracle.

A report's tiled row must cover the very elements ``quantize_blocks`` groups (a
partial tile at an edge scaled on its own, each slice of a larger array tiled on its
own, a 1-D tensor as one row) and a report's ``scale_rule`` must round the MX
scales as ``quantize_blocks(..., scale_rule=)`` does. The oracle statistics below
are plain numpy over ``quantize_blocks``' values: the SNR, the values flushed to
zero and the largest relative error (which the report gives exactly).
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.scaling.blocks import BlockFormat, get_block_format

NVFP4_16 = dataclasses.replace(get_block_format("nvfp4"), name="nvfp4_16x16", block_size=(16, 16))
MXFP4_8X4 = dataclasses.replace(get_block_format("mxfp4"), name="mxfp4_8x4", block_size=(8, 4))
MXFP8_4X8 = dataclasses.replace(get_block_format("mxfp8_e4m3"), name="mx8_4x8",
                                block_size=(4, 8))  # fmt: skip
F32_5X3 = BlockFormat("f32_5x3", "float8_e4m3fn", (5, 3), "float32", 8)
POW2_2X6 = BlockFormat("pow2_2x6", "float8_e5m2", (2, 6), "float32_pow2", 15)
TILED = [NVFP4_16, MXFP4_8X4, MXFP8_4X8, F32_5X3, POW2_2X6]


def _tensor(shape: tuple[int, ...], seed: int = 0, dtype: type = np.float32) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp(2 * rng.standard_normal(shape))
    x.flat[::7] = 0.0  # some zeros, which the statistics leave out
    return x.astype(dtype)


def _oracle(x: np.ndarray, values: np.ndarray) -> dict[str, float]:
    x, v = x.astype(np.float64).reshape(-1), values.astype(np.float64).reshape(-1)
    nonzero = x != 0
    noise = float(np.sum((x - v) ** 2))
    return {
        "snr_db": 10 * math.log10(float(np.sum(x**2)) / noise) if noise else math.inf,
        "flushed_to_zero": int(np.count_nonzero((v == 0) & nonzero)),
        "max_rel_error": float(np.max(np.abs(x - v)[nonzero] / np.abs(x[nonzero]))),
    }


def _check(record: dict, want: dict) -> None:
    assert record["snr_db"] == pytest.approx(want["snr_db"], rel=1e-12)
    assert record["flushed_to_zero"] == want["flushed_to_zero"]
    assert record["max_rel_error"] == want["max_rel_error"]


def _tiles_of(x: np.ndarray, fmt: BlockFormat, axis: int, other: int | None) -> np.ndarray:
    """quantize_blocks' values for the report's tiles: ``b0`` along ``other``, ``b1``
    along ``axis`` (a 1-D tensor as one row)."""
    if other is None:
        return fpx.quantize_blocks(x[None], fmt, axis=-1).values
    moved = np.moveaxis(x, (other, axis), (-2, -1))
    values = fpx.quantize_blocks(moved, fmt, axis=-1).values
    return np.moveaxis(values, (-2, -1), (other, axis))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(20, 40), (40, 20), (15, 7), (1, 100), (100, 1), (33, 33)])
def test_partial_tiles_at_the_edges_are_scaled_on_their_own(shape, dtype) -> None:
    x = _tensor(shape, seed=sum(shape), dtype=dtype)
    for axis in (0, 1):
        records = fpx.tensor_report(x, TILED, axis=axis).to_records()
        for fmt, record in zip(TILED, records, strict=True):
            values = fpx.quantize_blocks(x, fmt, axis=axis).values  # b1 along axis
            _check(record, _oracle(x, values))
            b0, b1 = fmt.block_size
            assert record["short_blocks"] == (shape[axis] < b1 or shape[1 - axis] < b0)


@pytest.mark.parametrize("shape", [(5, 3, 37), (3, 17, 2, 9), (2, 40, 3, 3)])
def test_each_slice_of_a_larger_array_is_tiled_on_its_own(shape) -> None:
    x = _tensor(shape, seed=len(shape))
    for axis in range(len(shape)):
        default = fpx.tensor_report(x, TILED, axis=axis).to_records()
        other = len(shape) - 1 if axis != len(shape) - 1 else len(shape) - 2
        for fmt, record in zip(TILED, default, strict=True):
            _check(record, _oracle(x, _tiles_of(x, fmt, axis, other)))
        for given in set(range(len(shape))) - {axis}:
            records = fpx.tensor_report(x, TILED, axis=axis, tile_axis=given).to_records()
            for fmt, record in zip(TILED, records, strict=True):
                _check(record, _oracle(x, _tiles_of(x, fmt, axis, given)))
    if x.ndim == 3:  # the last axis: quantize_blocks' own tiles of the last two axes
        record = fpx.tensor_report(x, NVFP4_16).to_records()[0]
        _check(record, _oracle(x, fpx.quantize_blocks(x, NVFP4_16, axis=-1).values))


def test_a_conv_weight_tiled_out_by_in_at_each_tap() -> None:
    w = _tensor((48, 40, 3, 3), seed=9)  # ONNX/PyTorch (out, in, kh, kw), summed along in
    record = fpx.tensor_report(w, NVFP4_16, axis=1, tile_axis=0).to_records()[0]
    taps = np.moveaxis(w, (0, 1), (-2, -1))  # (kh, kw, out, in)
    _check(record, _oracle(taps, fpx.quantize_blocks(taps, NVFP4_16, axis=-1).values))
    assert not record["short_blocks"]
    assert fpx.tensor_report(w, NVFP4_16, axis=1).to_records()[0]["short_blocks"]  # kw x in


def test_a_1d_tensor_is_one_row_of_tiles_and_a_checkpoint_report_goes_on() -> None:
    bias = _tensor((50,), seed=3)
    for fmt, record in zip(TILED, fpx.tensor_report(bias, TILED).to_records(), strict=True):
        _check(record, _oracle(bias, _tiles_of(bias, fmt, 0, None)))
        assert record["short_blocks"]  # one row, fewer than b0
    weights = {"fc.weight": _tensor((32, 48), seed=4), "fc.bias": bias, "eps": np.ones(1)}
    report = fpx.checkpoint_report(weights, [NVFP4_16, "e4m3"], progress=False)
    by = {(r["tensor"], r["format"], r["scaling"]): r for r in report.to_records()}
    assert not by["fc.weight", "nvfp4_16x16", "block"]["short_blocks"]
    assert by["fc.bias", "nvfp4_16x16", "block"]["short_blocks"]
    for name, axis in (("fc.weight", 1), ("fc.bias", 0)):
        single = fpx.tensor_report(weights[name], [NVFP4_16, "e4m3"], axis=axis).to_records()
        got = [r for r in report.to_records() if r["tensor"] == name]
        assert [r["snr_db"] for r in got] == [r["snr_db"] for r in single]


def test_tiles_of_a_dask_array_equal_the_numpy_report() -> None:
    da = pytest.importorskip("dask.array")
    for shape, chunks in (((40, 50), (7, 13)), ((3, 20, 33), (2, 9, 10)), ((50,), (9,))):
        x = _tensor(shape, seed=11)
        for axis in range(len(shape)):
            want = fpx.tensor_report(x, [*TILED, "e4m3"], axis=axis).to_records()
            got = fpx.tensor_report(da.from_array(x, chunks=chunks), [*TILED, "e4m3"],
                                    axis=axis).to_records()  # fmt: skip
            _same(got, want)


def test_tiles_do_not_depend_on_the_chunk_size() -> None:
    x = _tensor((70, 90), seed=12)
    want = fpx.tensor_report(x, TILED).to_records()
    _same(fpx.tensor_report(x, TILED, chunk_bytes=1000).to_records(), want)


def _same(got: list[dict], want: list[dict]) -> None:
    """Equal records but for the SNR's last bits (float64 sums of squares over pieces
    that other chunks cut differently)."""
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g["snr_db"] == pytest.approx(w["snr_db"], rel=1e-13)
        assert {**g, "snr_db": 0} == {**w, "snr_db": 0}


def test_a_tile_axis_that_is_not_one_is_refused_by_name() -> None:
    x = _tensor((8, 16))
    with pytest.raises(ValueError, match="tile_axis 1 is the block axis 1"):
        fpx.tensor_report(x, NVFP4_16, tile_axis=1)
    with pytest.raises(ValueError, match="tile_axis 2 is out of range"):
        fpx.tensor_report(x, NVFP4_16, tile_axis=2)
    with pytest.raises(TypeError, match="tile_axis must be an int or None, got 0.5"):
        fpx.tensor_report(x, NVFP4_16, tile_axis=0.5)


RULED = ["mxfp4", "mxfp8_e5m2", "e4m3", "mxint8", MXFP4_8X4, POW2_2X6]


@pytest.mark.parametrize("rule", ["floor", "rceil", "ceil", "even"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_scale_rule_rounds_the_scales_as_quantize_blocks_does(rule, dtype) -> None:
    x = _tensor((24, 70), seed=5, dtype=dtype)
    x[3, :32] = 6.0  # amax exactly an element's largest: where the rules differ
    x[4, :32] = 7.0
    for axis in (0, 1):
        report = fpx.tensor_report(x, RULED, axis=axis, scale_rule=rule, scalings=["block"])
        for spec, record in zip(RULED, report.to_records(), strict=True):
            fmt = "mxfp8_e4m3" if spec == "e4m3" else spec
            values = fpx.quantize_blocks(x, fmt, axis=axis, scale_rule=rule).values
            _check(record, _oracle(x, values))
            assert record["scale_rule"] == rule
            if rule == "rceil":
                assert record["clipped"] == 0  # rounded up: no element saturates


def test_a_rule_changes_the_mx_rows_only() -> None:
    x = _tensor((16, 64), seed=6)
    x[0, :32] = 7.0  # the floor rule clips 7 to 6 in E2M1; rceil does not
    floor = {(r["format"], r["scaling"]): r for r in
             fpx.tensor_report(x, ["e4m3", "mxfp4", "nvfp4"]).to_records()}  # fmt: skip
    rceil = {
        (r["format"], r["scaling"]): r
        for r in fpx.tensor_report(x, ["e4m3", "mxfp4", "nvfp4"], scale_rule="rceil").to_records()
    }
    for key in floor:
        pow2 = key in (("float8_e4m3fn", "block"), ("mxfp4", "block"))
        assert rceil[key]["scale_rule"] == ("rceil" if pow2 else None)
        assert floor[key]["scale_rule"] == ("floor" if pow2 else None)
        if not pow2:
            assert rceil[key] == floor[key]
    assert floor["mxfp4", "block"]["clipped"] >= 32 > rceil["mxfp4", "block"]["clipped"]


def test_checkpoint_report_takes_the_rule_as_tensor_report_does() -> None:
    weights = {"fc.weight": _tensor((32, 48), seed=7), "fc.bias": _tensor((48,), seed=8)}
    report = fpx.checkpoint_report(weights, ["mxfp4", "e4m3"], scale_rule="even", progress=False)
    for record in report.to_records():
        if record["tensor"] == "fc.weight" and record["scaling"] == "block":
            single = fpx.tensor_report(weights["fc.weight"], record["format"], axis=1,
                                       scale_rule="even", scalings=["block"])  # fmt: skip
            assert single.to_records()[0]["snr_db"] == record["snr_db"]
            assert record["scale_rule"] == "even"


def test_a_bad_scale_rule_is_refused_by_name() -> None:
    x = _tensor((4, 32))
    with pytest.raises(ValueError, match=r"unknown scale_rule 'round'; expected one of floor"):
        fpx.tensor_report(x, "mxfp4", scale_rule="round")
    with pytest.raises(TypeError, match="scale_rule must be a str"):
        fpx.tensor_report(x, "mxfp4", scale_rule=1)
    with pytest.raises(ValueError, match="scale_rule='rceil' applies to the block rows of power"):
        fpx.tensor_report(x, ["nvfp4", "bf16"], scale_rule="rceil")
    with pytest.raises(ValueError, match="applies to the block rows"):
        fpx.tensor_report(x, "e4m3", scale_rule="ceil", scalings=["none", "per_tensor"])
    with pytest.raises(ValueError, match="unknown scale_rule"):
        fpx.checkpoint_report({"w": x}, "mxfp4", scale_rule="RCEIL ", progress=False)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fpexplore", "report", *args],
                          capture_output=True, text=True)  # fmt: skip


def test_the_cli_takes_a_scale_rule(tmp_path) -> None:
    path = tmp_path / "w.npy"
    x = _tensor((8, 64), seed=9)
    x[0, :32] = 7.0
    np.save(path, x)
    out = _cli(str(path), "-f", "mxfp4", "--scale-rule", "rceil", "--csv", "--no-progress")
    assert out.returncode == 0, out.stderr
    header, row = out.stdout.splitlines()
    record = dict(zip(header.split(","), row.split(","), strict=True))
    want = fpx.tensor_report(x, "mxfp4", scale_rule="rceil").to_records()[0]
    assert record["scale_rule"] == "rceil" and int(record["clipped"]) == want["clipped"]
    for bad, said in (
        (["-f", "mxfp4", "--scale-rule", "up"], "unknown --scale-rule 'up'"),
        (["-f", "nvfp4", "--scale-rule", "rceil"], "--scale-rule rceil: scale_rule"),
    ):
        out = _cli(str(path), *bad)
        assert out.returncode == 2 and said in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_checkpoint_tiles_an_onnx_or_pytorch_conv_weight_out_by_in(tmp_path) -> None:
    """PyTorch's layout (an npz of a state_dict's names) and an ONNX Conv's weight
    ``(out, in, kh, kw)``, blocked along ``in``, get ``out x in`` tiles at each tap."""
    w = _tensor((32, 20, 3, 3), seed=13)
    np.savez(tmp_path / "m.npz", **{"conv.weight": w})
    record = fpx.checkpoint_report(tmp_path / "m.npz", NVFP4_16, progress=False).to_records()[0]
    assert (record["axis"], record["axis_source"]) == (1, "layout")
    want = fpx.tensor_report(w, NVFP4_16, axis=1, tile_axis=0).to_records()[0]
    assert {**record, "snr_db": 0} == {**record, **want, "snr_db": 0}
    assert record["snr_db"] == want["snr_db"] and not record["short_blocks"]
    keras_kernel = np.moveaxis(w, (0, 1), (-1, -2))  # (kh, kw, in, out): out is the last axis
    mapped = fpx.checkpoint_report({"k": keras_kernel}, NVFP4_16, axis=2).to_records()[0]
    _check(
        mapped,
        _oracle(
            keras_kernel,
            fpx.quantize_blocks(
                np.moveaxis(keras_kernel, (3, 2), (-2, -1)), NVFP4_16, axis=-1
            ).values.transpose(0, 1, 3, 2),
        ),
    )
