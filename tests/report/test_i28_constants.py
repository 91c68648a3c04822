"""Issue 28: constants (an ONNX mask of -1e9, an epsilon, a Constant node's output) stay
out of a checkpoint report unless asked for; QuantizedBlocks.short_blocks for 1-D
blocks and 2-D tiles."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

RNG = np.random.default_rng(2828)
W = RNG.standard_normal((8, 4)).astype(np.float32)  # MatMul's (K, N)
BIAS = RNG.standard_normal(4).astype(np.float32)
MASK = np.full((4, 4), -1e9, np.float32)
EPS = np.full((1,), 1e-5, np.float32)  # an epsilon broadcast to shape (1,)
EPS4 = np.full((4,), 1e-6, np.float32)  # an epsilon of several values
ZERO_BIAS = np.zeros(4, np.float32)  # a bias still at its initial zeros
ONES = np.ones(4, np.float32)  # a norm's scale at its initial ones
TABLE = RNG.standard_normal((4, 4)).astype(np.float32)  # a Constant node's values
ALL = {"w", "b", "zero_b", "gamma", "mask", "eps", "eps4", "table"}


def _model(path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["y"]),  # the bias: a parameter
        helper.make_node("Add", ["y", "zero_b"], ["y0"]),
        helper.make_node("Mul", ["y0", "gamma"], ["y1"]),
        helper.make_node("Add", ["y1", "mask"], ["s"]),  # an attention mask of -1e9
        helper.make_node("Constant", [], ["table"], value=numpy_helper.from_array(TABLE)),
        helper.make_node("Mul", ["s", "table"], ["t"]),
        helper.make_node("Pow", ["t", "eps"], ["p"]),
        helper.make_node("Div", ["p", "eps4"], ["z"]),
    ]
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("w", W), ("b", BIAS), ("zero_b", ZERO_BIAS), ("gamma", ONES), ("mask", MASK), ("eps", EPS),
        ("eps4", EPS4)]]  # fmt: skip
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 4])], inits,
    )  # fmt: skip
    onnx.save(helper.make_model(graph), str(path))


def _tensors(report) -> set[str]:
    return {row["tensor"] for row in report.to_records()}


def test_onnx_constants_stay_out_of_the_report_by_default(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    _model(path)
    r = fpx.checkpoint_report(path, ["e4m3", "nvfp4"], progress=False)
    assert _tensors(r) == {"w", "b", "zero_b", "gamma"}  # the weight and parameters, at 0 and 1 too
    why = dict(r.skipped)
    assert set(why) == {"mask", "eps", "eps4", "table"}
    assert why["eps"] == "1 value, fewer than min_size=2"
    assert why["mask"].startswith("constant: every one of its 16 values is -1e+09")
    assert "Add" in why["mask"] and "weights_only=False" in why["mask"]
    assert why["eps4"].startswith("constant: every one of its 4 values is 1e-06")
    assert why["table"].startswith("constant: an ONNX Constant node's output")
    every = fpx.checkpoint_report(path, ["e4m3", "nvfp4"], weights_only=False, progress=False)
    worst = every.worst(3).records  # what they would do asked for: fill the worst rows
    assert {row["tensor"] for row in worst} <= {"mask", "eps4", "table"}


def test_asked_for_the_constants_come_back(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    _model(path)
    every = fpx.checkpoint_report(path, ["e4m3"], weights_only=False, progress=False)
    assert _tensors(every) == {"w", "b", "zero_b", "gamma", "mask", "eps4", "table"}
    assert dict(every.skipped) == {"eps": "1 value, fewer than min_size=2"}
    everything = fpx.checkpoint_report(path, ["e4m3"], weights_only=False, min_size=0,
                                       progress=False)  # fmt: skip
    assert _tensors(everything) == ALL and everything.skipped == []
    named = fpx.checkpoint_report(path, ["e4m3"], include=["w", "mask", "table", "eps*"],
                                  progress=False)  # fmt: skip
    assert _tensors(named) == {"w", "mask", "table"}  # by their names; eps* names neither
    assert dict(named.skipped)["eps4"].startswith("constant: ")
    mask = next(row for row in every.to_records() if row["tensor"] == "mask")
    assert mask["overflow"] + mask["clipped"] > 0  # why it would fill the worst rows
    weights = fpx.checkpoint_report(path, ["e4m3"], weights_only=True, progress=False)
    assert _tensors(weights) == {"w"}
    assert dict(weights.skipped)["mask"].startswith("not a weight (consumed by Add")


def test_the_reader_keeps_constants_and_says_why(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    _model(path)
    ckpt = fpx.open_checkpoint(path)
    assert set(ckpt) == ALL  # the reader reads them all
    assert np.array_equal(ckpt["mask"], MASK) and np.array_equal(ckpt["table"], TABLE)
    for name in ("w", "b", "zero_b", "gamma"):
        assert ckpt.constant(name) == "", name
    assert ckpt.constant("eps") == ""  # one value: min_size's
    assert ckpt.constant("mask").startswith("every one of its 16 values is -1e+09")
    mapping = fpx.open_checkpoint({"m": MASK})  # a mapping says nothing: no constants
    assert mapping.constant("m") == ""  # the base class: no file but ONNX names constants
    plain = fpx.checkpoint_report({"m": MASK, "w": W}, ["e4m3"], progress=False)
    assert _tensors(plain) == {"m", "w"}


def test_weights_are_never_constants_however_stored(tmp_path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    nodes = [  # torch.onnx stores weights as Constant nodes at times
        helper.make_node("Constant", [], ["cw"], value=numpy_helper.from_array(W)),
        helper.make_node("MatMul", ["x", "cw"], ["m"]),
        helper.make_node("MatMul", ["m", "ones_w"], ["n"]),  # a filled weight
        helper.make_node("Add", ["n", "mask"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.ones((4, 4), np.float32), "ones_w"),
             numpy_helper.from_array(MASK, "mask"),
             numpy_helper.from_array(np.full(4, 7.0, np.float32), "unused")]  # fmt: skip
    onnx.save(
        helper.make_model(helper.make_graph(nodes, "g", [], [], inits)), str(tmp_path / "m.onnx")
    )
    r = fpx.checkpoint_report(tmp_path / "m.onnx", ["e4m3"], progress=False)
    assert _tensors(r) == {"cw", "ones_w", "unused"}  # consumed by no node: said nothing of
    assert [name for name, _ in r.skipped] == ["mask"]


def test_the_command_line_reports_a_constant_named(tmp_path, capsys) -> None:
    import json

    from fpexplore.cli import main

    _model(tmp_path / "m.onnx")
    argv = ["report", str(tmp_path / "m.onnx"), "-f", "e4m3", "--scaling", "none", "--json"]
    assert main(argv) == 0
    assert {row["tensor"] for row in json.loads(capsys.readouterr().out)} == {
        "w", "b", "zero_b", "gamma"}  # fmt: skip
    assert main([*argv, "--include", "w", "--include", "mask"]) == 0
    assert {row["tensor"] for row in json.loads(capsys.readouterr().out)} == {"w", "mask"}
    assert main([*argv, "--constants"]) == 0  # every tensor of 2 values or more
    assert {row["tensor"] for row in json.loads(capsys.readouterr().out)} == {
        "w", "b", "zero_b", "gamma", "mask", "eps4", "table"}  # fmt: skip
    assert main([*argv, "--constants", "--weights-only"]) == 2
    err = capsys.readouterr().err
    assert "not allowed with argument" in err and len(err.strip().splitlines()) == 1
    assert main(["report", "--help"]) == 0
    assert "--constants" in capsys.readouterr().out


def _blocks(shape, axis, block_size):
    return fpx.quantize_blocks(np.ones(shape), "nvfp4", axis=axis, block_size=block_size)


@pytest.mark.parametrize(
    ("shape", "axis", "block_size", "short", "note"),
    [
        ((3, 40), -1, 16, False, None),
        ((3, 10), -1, 16, True, "axis 1 holds 10 values, fewer than a block of 16"),
        ((10, 40), 0, None, True, "axis 0 holds 10 values, fewer than a block of 16"),
        ((3, 40), (0, 1), (16, 16), True, "axis 0 holds 3 values, fewer than the tile's 16"),
        ((40, 3), (0, 1), (16, 16), True, "axis 1 holds 3 values, fewer than the tile's 16"),
        ((3, 5), (0, 1), (16, 4), True, "axis 0 holds 3 values, fewer than the tile's 16"),
        ((3, 5), (-2, -1), (2, 8), True, "axis 1 holds 5 values, fewer than the tile's 8"),
        ((32, 40), (0, 1), (16, 16), False, None),
        ((2, 16, 16), (-2, -1), 16, False, None),
        ((2, 4, 20), (-1, -2), (16, 8), True, "axis 1 holds 4 values, fewer than the tile's 8"),
    ],
)
def test_short_blocks(shape, axis, block_size, short, note) -> None:
    q = _blocks(shape, axis, block_size)
    assert q.short_blocks is short and isinstance(q.short_blocks, bool)
    text, html = str(q), q._repr_html_()
    if note is None:
        assert "fewer than" not in text and "fewer than" not in html
    else:
        assert note in text and note in html


def test_both_tile_axes_short_are_both_named() -> None:
    q = _blocks((3, 5), (0, 1), (16, 16))
    assert q.short_blocks is True
    summary = str(q).splitlines()[0]
    assert "axis 0 holds 3 values" in summary and "axis 1 holds 5 values" in summary
    assert "each tile holds 3 x 5" in summary
    one = _blocks((3, 40), (0, 1), (16, 16))
    assert "each tile holds at most 3 x 16" in str(one).splitlines()[0]
