"""checkpoint_report's block axis per tensor (axis="auto"), its filters and notices."""

from __future__ import annotations

import re

import numpy as np
import pytest

import fpexplore as fpx

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

FORMATS = ["e4m3", "mxfp4", "nvfp4"]
RNG = np.random.default_rng(28)
CONV = RNG.standard_normal((32, 48, 3, 1)).astype(np.float32)  # (out, in, kh, kw)
GEMM = RNG.standard_normal((10, 48)).astype(np.float32)  # transB: (N, K)
MATMUL = RNG.standard_normal((48, 24)).astype(np.float32)  # (K, N)
EMBED = RNG.standard_normal((100, 48)).astype(np.float32)
BIAS = RNG.standard_normal(10).astype(np.float32)
EPS = np.array(1e-6, np.float32)


def _onnx_model(path) -> None:
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["e"]),
        helper.make_node("Conv", ["x", "conv_w"], ["c"]),
        helper.make_node("MatMul", ["h", "mm_w"], ["m"]),
        helper.make_node("Gemm", ["g", "gemm_w", "gemm_b"], ["y"], transB=1),
        helper.make_node("Add", ["y", "eps"], ["z"]),
    ]
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("emb", EMBED), ("conv_w", CONV), ("mm_w", MATMUL), ("gemm_w", GEMM), ("gemm_b", BIAS),
        ("eps", EPS)]]  # fmt: skip
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         [1])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
                              inits)  # fmt: skip
    onnx.save(helper.make_model(graph), str(path))


def _by_tensor(report) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in report.to_records():
        out.setdefault(r["tensor"], []).append(r)
    return out


def test_onnx_weights_are_blocked_along_the_axis_their_node_sums(tmp_path) -> None:
    _onnx_model(tmp_path / "m.onnx")
    ckpt = fpx.open_checkpoint(tmp_path / "m.onnx")
    assert ckpt.role("conv_w").axis == 1 and ckpt.role("conv_w").source == "graph"
    assert ckpt.role("gemm_b").weight is False and "Gemm" in ckpt.role("gemm_b").note
    r = fpx.checkpoint_report(tmp_path / "m.onnx", FORMATS, progress=False)
    rows = _by_tensor(r)
    expected = {"emb": (1, "graph"), "conv_w": (1, "graph"), "mm_w": (0, "graph"),
                "gemm_w": (1, "graph"), "gemm_b": (0, "last")}  # fmt: skip
    assert {t: (rs[0]["axis"], rs[0]["axis_source"]) for t, rs in rows.items()} == expected
    assert "eps" not in rows and ("eps", "1 value, fewer than min_size=2") in r.skipped
    x = {"emb": EMBED, "conv_w": CONV, "mm_w": MATMUL, "gemm_w": GEMM, "gemm_b": BIAS}
    for name, (axis, _) in expected.items():  # exactly tensor_report's rows on that axis
        want = fpx.tensor_report(x[name], FORMATS, axis=axis).to_records()
        got = [
            {
                k: v
                for k, v in row.items()
                if k not in ("tensor", "shape", "dtype", "size", "axis_source")
            }
            for row in rows[name]
        ]
        assert got == want, name
    short = {t for t, rs in rows.items() if any(row["short_blocks"] for row in rs)}
    assert short == {"gemm_b"}  # 10 values: shorter than blocks of 16 and 32
    assert any("gemm_b" in note and "Gemm" in note for note in r.notes)
    # the default last axis would block the convolution in blocks of 1 (its kernel width)
    last = fpx.checkpoint_report(tmp_path / "m.onnx", ["nvfp4"], axis=None, progress=False)
    conv_last = next(row for row in last.to_records() if row["tensor"] == "conv_w")
    assert conv_last["axis"] == 3 and conv_last["short_blocks"]
    assert "axis" in str(r) and "graph" in str(r)


def test_filters(tmp_path) -> None:
    _onnx_model(tmp_path / "m.onnx")
    path = tmp_path / "m.onnx"
    weights = fpx.checkpoint_report(path, ["e4m3"], weights_only=True, progress=False)
    assert {row["tensor"] for row in weights.to_records()} == {"emb", "conv_w", "mm_w", "gemm_w"}
    assert any(name == "gemm_b" and why.startswith("not a weight") for name, why in
               weights.skipped)  # fmt: skip
    every = fpx.checkpoint_report(path, ["e4m3"], min_size=0, progress=False)
    assert "eps" in {row["tensor"] for row in every.to_records()}
    some = fpx.checkpoint_report(path, ["e4m3"], include="*_w", exclude=["mm*"], progress=False)
    assert {row["tensor"] for row in some.to_records()} == {"conv_w", "gemm_w"}
    big = fpx.checkpoint_report(path, ["e4m3"], min_size=1000, progress=False)
    assert {row["tensor"] for row in big.to_records()} == {"emb", "conv_w", "mm_w"}
    with pytest.raises(ValueError, match=r"m.onnx: no tensor left to report: .*not included"):
        fpx.checkpoint_report(path, ["e4m3"], include="nothing*", progress=False)
    with pytest.raises(ValueError, match="min_size must be"):
        fpx.checkpoint_report(path, ["e4m3"], min_size=-1, progress=False)
    with pytest.raises(TypeError, match="glob patterns"):
        fpx.checkpoint_report(path, ["e4m3"], include=[3], progress=False)
    for name in ("include", "exclude"):  # not a pattern, nor several
        with pytest.raises(TypeError, match=rf"{name} takes a glob pattern .* got int 3"):
            fpx.checkpoint_report(path, ["e4m3"], **{name: 3}, progress=False)
        with pytest.raises(TypeError, match=rf"{name} takes a glob pattern .* got bytes b'f64'"):
            fpx.checkpoint_report(path, ["e4m3"], **{name: b"f64"}, progress=False)
        with pytest.raises(TypeError, match=rf"{name} takes glob patterns \(str\), got bytes "
                           "b'f64'"):  # fmt: skip
            fpx.checkpoint_report(path, ["e4m3"], **{name: ["*", b"f64"]}, progress=False)
        with pytest.raises(TypeError, match=rf"{name} takes glob patterns \(str\), got int 3"):
            fpx.checkpoint_report(path, ["e4m3"], **{name: ("*", 3)}, progress=False)
        kept = fpx.checkpoint_report(path, ["e4m3"], **{name: "conv_w"}, progress=False)
        assert ("conv_w" in {r["tensor"] for r in kept.to_records()}) is (name == "include")


def test_consumers_of_unknown_summed_axis_are_not_said_to_sum_over_none(tmp_path) -> None:
    nodes = [
        helper.make_node("LSTM", ["x", "lstm_w", "lstm_r"], ["h"], hidden_size=4),
        helper.make_node("FusedMatMul", ["x", "fused_w"], ["f"], domain="com.microsoft"),
        helper.make_node("Add", ["x", "bias"], ["a"]),
        helper.make_node("Mul", ["a", "bias"], ["b"]),
        helper.make_node("Add", ["b", "both"], ["c"]),
        helper.make_node("LSTM", ["x", "both", "lstm_r"], ["h2"], hidden_size=4),
    ]
    arrays = {"lstm_w": RNG.standard_normal((1, 16, 40)), "lstm_r": RNG.standard_normal(
        (1, 16, 4)), "fused_w": RNG.standard_normal((40, 16)), "bias": RNG.standard_normal(
        16), "both": RNG.standard_normal((1, 16, 40))}  # fmt: skip
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()]
    graph = helper.make_graph(nodes, "g", [], [], inits)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    )
    onnx.save(model, str(tmp_path / "m.onnx"))  # fmt: skip
    ckpt = fpx.open_checkpoint(tmp_path / "m.onnx")
    assert ckpt.role("lstm_w").note == "consumed by LSTM, whose summed axis is not known"
    assert ckpt.role("fused_w").note == "consumed by FusedMatMul, whose summed axis is not known"
    assert ckpt.role("bias").note == "consumed by Add, Mul, which sums over no axis of it"
    assert ckpt.role("both").note == (
        "consumed by LSTM, whose summed axis is not known (and by Add, which sums over no "
        "axis of it)"
    )
    r = fpx.checkpoint_report(tmp_path / "m.onnx", ["mxfp4"], progress=False)
    assert any("blocked along the last axis: consumed by LSTM, whose summed axis is not known"
               in note for note in r.notes)  # fmt: skip
    assert not any("LSTM, which sums" in note or "FusedMatMul, which sums" in note
                   for note in r.notes)  # fmt: skip


def test_layout_of_pytorch_files_and_given_axes(tmp_path) -> None:
    st = pytest.importorskip("safetensors.numpy")
    linear = RNG.standard_normal((16, 64)).astype(np.float32)  # nn.Linear (out, in)
    conv = RNG.standard_normal((8, 64, 3, 3)).astype(np.float32)  # (out, in, kh, kw)
    st.save_file({"fc.weight": linear, "conv.weight": conv, "fc.bias": linear[0]},
                 str(tmp_path / "m.safetensors"))  # fmt: skip
    r = fpx.checkpoint_report(tmp_path / "m.safetensors", ["mxfp4"], progress=False)
    got = {row["tensor"]: (row["axis"], row["axis_source"]) for row in r.to_records()}
    assert got == {"fc.weight": (1, "layout"), "conv.weight": (1, "layout"),
                   "fc.bias": (0, "last")}  # fmt: skip
    given = fpx.checkpoint_report(tmp_path / "m.safetensors", ["mxfp4"], axis=-1, progress=False)
    got = {row["tensor"]: (row["axis"], row["axis_source"]) for row in given.to_records()}
    assert got == {"fc.weight": (1, "given"), "conv.weight": (3, "given"), "fc.bias": (0, "given")}
    two = fpx.checkpoint_report(tmp_path / "m.safetensors", ["mxfp4"], axis=2, progress=False)
    got = {row["tensor"]: (row["axis"], row["axis_source"]) for row in two.to_records()}
    assert got["conv.weight"] == (2, "given") and got["fc.bias"] == (0, "last")
    with pytest.raises(ValueError, match="axis 4 is out of range for every tensor of m.safet"):
        fpx.checkpoint_report(tmp_path / "m.safetensors", ["mxfp4"], axis=4, progress=False)
    with pytest.raises(TypeError, match="axis must be 'auto', an int or None"):
        fpx.checkpoint_report(tmp_path / "m.safetensors", ["mxfp4"], axis="rows", progress=False)
    mapping = fpx.checkpoint_report({"w": linear}, ["mxfp4"], progress=False).to_records()
    assert (mapping[0]["axis"], mapping[0]["axis_source"]) == (1, "last")


def test_short_blocks_are_said_by_tensor_report_and_quantize_blocks() -> None:
    x = RNG.standard_normal((64, 3)).astype(np.float32)
    records = fpx.tensor_report(x, ["e4m3", "nvfp4"]).to_records()
    assert [(r["scaling"], r["short_blocks"]) for r in records] == [
        ("none", False),
        ("per_tensor", False),
        ("block", True),
        ("block", True),
    ]
    assert "short blocks: block axis 1" in str(fpx.tensor_report(x, ["nvfp4"]))
    assert not fpx.tensor_report(x, ["nvfp4"], axis=0).to_records()[0]["short_blocks"]
    assert "axis 1 holds 3 values, fewer than a block" in str(fpx.quantize_blocks(x, "mxfp4"))
    assert "fewer than a block" not in str(fpx.quantize_blocks(x, "mxfp4", axis=0))


def test_a_custom_format_name_warns_with_the_nearest_names() -> None:
    x = RNG.standard_normal(64)
    message = r"custom format e4m4 \(not in the catalogue\); did you mean e4m3"
    with pytest.warns(UserWarning, match=message):
        custom = fpx.tensor_report(x, ["e4m4"]).to_records()
    assert custom[0]["format"] == "e4m4"
    with pytest.warns(UserWarning, match=message):
        fpx.checkpoint_report({"w": x}, "e4m4", progress=False)
    with pytest.warns(UserWarning, match=message):
        rounded = fpx.round_to(x, "e4m4")
    assert np.array_equal(rounded, fpx.round_to(x, fpx.get_format("e4m4")))  # unchanged
    fpx.tensor_report(x, ["e4m3", "float8_e4m3fn", "bf16"])  # catalogue names: no warning


def test_a_custom_name_of_a_catalogue_format_s_values_names_that_format() -> None:
    from fpexplore.formats import custom_format_notice

    assert custom_format_notice("e5m10").startswith(
        "custom format e5m10 (not in the catalogue); it has float16's values: did you mean float16?"
    )
    assert "bfloat16's values" in custom_format_notice("e8m7")
    assert "values" not in custom_format_notice("e4m4")  # no format has its values
    with pytest.warns(UserWarning, match="float16's values"):
        fpx.round_to([1.1], "e5m10")


@pytest.mark.parametrize("e", range(1, 12))
@pytest.mark.parametrize("m", range(0, 12))
def test_every_custom_name_names_a_catalogue_format(e: int, m: int) -> None:
    """Each eXmY name outside the catalogue names at least one catalogue format, those
    nearest in bits where no name resembles it (e7m7: bfloat16, one exponent bit more)."""
    from fpexplore.formats import custom_format_notice

    name = f"e{e}m{m}"
    notice = custom_format_notice(name)
    try:
        fpx.get_format(name)
    except ValueError:  # no such format (e1m4): get_format says why where it is used
        return
    if not notice:  # a catalogue alias (e4m3, e5m2...)
        return
    assert notice.startswith(f"custom format {name} (not in the catalogue); ")
    words = re.findall(r"[a-z0-9_]+", notice.split("; ", 1)[1])
    assert set(words) & {*fpx.format_names(), "float8_e3m4", "float8_e4m3"}, notice


def test_the_nearest_formats_in_bits() -> None:
    from fpexplore.formats import custom_format_notice

    assert custom_format_notice("e7m7").endswith("the nearest catalogue format: bfloat16 (e8m7)")
    assert custom_format_notice("e6m9").endswith("the nearest catalogue format: float16 (e5m10)")


def test_the_heatmap_shows_the_worst_tensors_of_a_large_report() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tensors = {f"t{i:03d}": RNG.standard_normal(64) * 10.0 ** (i % 3) for i in range(60)}
    tensors["bad"] = np.array([1.0, 1e6] * 16)
    r = fpx.checkpoint_report(tensors, ["e4m3"], progress=False)
    ax = r.plot(top=10)
    assert ax.images[0].get_array().shape == (10, 3)
    assert "51 more not shown" in ax.get_title()
    assert "bad" in [t.get_text() for t in ax.get_yticklabels()]
    assert r.plot(top=None).images[0].get_array().shape == (61, 3)
    plt.close("all")


@pytest.mark.parametrize("length", [1, 3, 16, 17])
def test_short_block_axes_match_quantize_blocks(length: int) -> None:
    """Pieces of a short axis are not padded to 32 values (the cost a value of blocks
    of 1 is that of blocks of 32): the rows still equal quantize_blocks' values."""
    x = (RNG.standard_t(3, (96, length)) * 0.1).astype(np.float32)
    for fmt in ("mxfp4", "nvfp4", "mxfp8_e4m3"):
        (row,) = fpx.tensor_report(x, [fmt], axis=1).to_records()
        q = fpx.quantize_blocks(x, fmt, axis=1).values
        noise = float(np.sum((q.astype(np.float64) - x) ** 2))
        snr = 10 * np.log10(float(np.sum(x.astype(np.float64) ** 2)) / noise)
        assert row["snr_db"] == pytest.approx(snr, rel=1e-12), (fmt, length)
        rel = np.abs(q - x.astype(np.float64)) / np.abs(x)
        assert row["max_rel_error"] == float(rel.max())
        assert row["short_blocks"] == (length < fpx.get_block_format(fmt).block_size)


def test_the_large_model_page_runs_as_written() -> None:
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "large-models.md"
    failures, tried = doctest.testfile(str(page), module_relative=False,
                                       optionflags=doctest.NORMALIZE_WHITESPACE)  # fmt: skip
    assert tried >= 5 and failures == 0
