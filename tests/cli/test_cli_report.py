"""``fpexplore report`` on real checkpoint files: safetensors written by the safetensors
library (bfloat16), a Keras .keras file, an ONNX model; JSON, CSV and bad input."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shlex
from pathlib import Path

import numpy as np
import pytest

from fpexplore import tensor_report
from fpexplore.cli import main

ml_dtypes = pytest.importorskip("ml_dtypes")
RNG = np.random.default_rng(19)
TENSORS = {
    "embed.weight": (RNG.standard_normal((64, 48)) * 0.02).astype(np.float32),
    "mlp.up": RNG.standard_normal((48, 96)).astype(np.float32),
    "mlp.bias": (RNG.standard_normal(96) * 1e-6).astype(np.float32),  # flushed by e4m3
    "head": np.concatenate([RNG.standard_normal(63), [1000.0]]).astype(np.float32),
}


def run(capsys, *argv):
    status = main(["report", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def json_strict(text: str):
    """json.loads that refuses NaN/Infinity literals (not valid JSON)."""

    def refuse(literal: str):
        raise AssertionError(f"invalid JSON literal {literal}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def bf16_file(tmp_path_factory) -> Path:
    st = pytest.importorskip("safetensors.numpy")
    path = tmp_path_factory.mktemp("st") / "model.safetensors"
    st.save_file({k: v.astype(ml_dtypes.bfloat16) for k, v in TENSORS.items()}, str(path))
    return path


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def test_bf16_safetensors_json_equals_tensor_report(capsys, bf16_file: Path) -> None:
    status, out, err = run(capsys, bf16_file, "-f", "e4m3,mxfp4", "--json")
    assert status == 0 and err == ""
    records = json_strict(out)
    assert len(records) == len(TENSORS) * 4  # e4m3: none, per_tensor, block; mxfp4: block
    snrs = [math.inf if r["snr_db"] == "inf" else float(r["snr_db"]) for r in records]
    assert snrs == sorted(snrs)  # the worst first
    for name, values in TENSORS.items():
        stored = values.astype(ml_dtypes.bfloat16)
        expected = tensor_report(stored, ["e4m3", "mxfp4"]).to_records()
        got = [r for r in records if r["tensor"] == name]
        assert {(r["format"], r["scaling"]) for r in got} == {
            (r["format"], r["scaling"]) for r in expected
        }
        for row in expected:
            mine = next(
                r for r in got if (r["format"], r["scaling"]) == (row["format"], row["scaling"])
            )
            assert mine["shape"] == list(values.shape) and mine["dtype"] == "bfloat16"
            for key, value in row.items():
                if isinstance(value, float) and not math.isfinite(value):
                    value = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
                assert _same(mine[key], value), (name, row["format"], row["scaling"], key)


def test_text_output_worst_first_and_a_summary_line_per_format(capsys, bf16_file) -> None:
    status, out, err = run(capsys, bf16_file, "-f", "e4m3", "-f", "bf16", "--top", "3")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "4 tensors, 7,840 values"
    header = next(i for i, line in enumerate(lines) if line.startswith("tensor"))
    table = lines[header + 2 : header + 5]
    assert table[0].startswith("head ") and table[0].endswith("-inf")  # 1000 > 448: NaN
    assert table[1].startswith("mlp.bias") and "float8_e4m3fn  none" in table[1]  # flushed
    summary = out[out.index("summary per format and scaling") :].splitlines()
    rows = [line for line in summary[3:] if line.startswith(("float8", "bfloat16"))]
    assert [line.split()[:2] for line in rows] == [
        ["float8_e4m3fn", "none"], ["float8_e4m3fn", "per_tensor"], ["float8_e4m3fn", "block"],
        ["bfloat16", "none"], ["bfloat16", "per_tensor"],
    ]  # fmt: skip
    assert str(bf16_file.parent) not in out.replace(str(bf16_file), "")


def test_csv_and_top(capsys, bf16_file: Path) -> None:
    status, out, _ = run(capsys, bf16_file, "-f", "e5m2", "--scaling", "per_tensor,none",
                         "--csv", "--top", "2")  # fmt: skip
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2 and rows[0]["tensor"] == "mlp.bias"
    assert rows[0]["shape"] == "96" and rows[0]["scaling"] == "none"


def test_infinite_values_are_json_strings(capsys, tmp_path: Path) -> None:
    """Overflow to NaN makes the SNR -inf: JSON says "-inf", never -Infinity."""
    np.save(tmp_path / "big.npy", np.array([1.0, 600.0, -2.0], np.float32))
    status, out, _ = run(capsys, tmp_path / "big.npy", "-f", "e4m3", "--scaling", "none", "--json")
    assert status == 0
    (row,) = json_strict(out)
    assert row["overflow"] == 1 and row["snr_db"] == "-inf"
    assert row["max_rel_error"] in ("inf", "nan") or isinstance(row["max_rel_error"], float)


@pytest.mark.filterwarnings(  # Keras 3.15's Variable.numpy() and numpy 2's copy= keyword
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_keras_file(capsys, tmp_path: Path) -> None:
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    keras.utils.set_random_seed(0)
    layers = [keras.layers.Dense(16, name="hidden"), keras.layers.Dense(4, name="out")]
    model = keras.Sequential([keras.Input((8,)), *layers])
    model.save(tmp_path / "model.keras")
    status, out, err = run(capsys, tmp_path / "model.keras", "-f", "e4m3,mxfp4", "--axis", "0",
                           "--json")  # fmt: skip
    assert status == 0 and err == ""
    records = json_strict(out)
    assert {r["tensor"] for r in records} == {"hidden/kernel", "hidden/bias", "out/kernel",
                                              "out/bias"}  # fmt: skip
    kernel = np.asarray(model.layers[0].kernel.numpy())
    expected = tensor_report(kernel, ["e4m3", "mxfp4"], axis=0).to_records()
    got = [r for r in records if r["tensor"] == "hidden/kernel"]
    for row in expected:
        mine = next(
            r for r in got if (r["format"], r["scaling"]) == (row["format"], row["scaling"])
        )
        assert mine["snr_db"] == row["snr_db"] and mine["clipped"] == row["clipped"]


def test_onnx_model(capsys, tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = TENSORS["mlp.up"]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 48])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 96])],
        [numpy_helper.from_array(w, "w")],
    )  # fmt: skip
    onnx.save(helper.make_model(graph), str(tmp_path / "model.onnx"))
    status, out, err = run(capsys, tmp_path / "model.onnx", "-f", "nvfp4", "--json")
    assert status == 0 and err == ""
    (row,) = json_strict(out)
    (expected,) = tensor_report(w, ["nvfp4"], axis=0).to_records()  # MatMul's rows: its sum
    assert row["tensor"] == "w" and row["snr_db"] == expected["snr_db"]
    assert (row["axis"], row["axis_source"]) == (0, "graph")


BAD = {
    "missing file": (["nope.safetensors", "-f", "e4m3"], "nope.safetensors: no such file"),
    "no format": (["{file}"], "required: -f/--format"),
    "bad format": (["{file}", "-f", "e4m3,float7"], "float7"),
    "bad scaling": (["{file}", "-f", "e4m3", "--scaling", "blocks"], "unknown --scaling 'blocks'"),
    "no rows": (["{file}", "-f", "mxfp4", "--scaling", "none"], "gives no rows"),
    "json and csv": (["{file}", "-f", "e4m3", "--json", "--csv"], "not allowed with"),
    "bad axis": (
        ["{file}", "-f", "e4m3", "--axis", "x"],
        "--axis must be auto or an integer, got 'x'",
    ),
    "negative top": (["{file}", "-f", "e4m3", "--top", "-1"], "--top must be 0 or more"),
    "nan min-snr": (["{file}", "-f", "e4m3", "--min-snr", "nan"], "--min-snr must be"),
    "empty -f": (["{file}", "-f", ","], "empty -f/--format"),
    "unknown option": (["{file}", "-f", "e4m3", "--frobnicate"], "unrecognized arguments"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_input_exits_2_with_one_line(capsys, bf16_file: Path, case: str) -> None:
    argv, message = BAD[case]
    status, out, err = run(capsys, *(a.replace("{file}", str(bf16_file)) for a in argv))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fpexplore report: error: ")
    assert message in err


def test_bad_files_exit_2(capsys, tmp_path: Path, bf16_file: Path) -> None:
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(bf16_file.read_bytes()[:-5])
    for path in (cut, tmp_path, tmp_path / "notes.txt"):
        if path.suffix == ".txt":
            path.write_text("hello")
        status, out, err = run(capsys, path, "-f", "e4m3")
        assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "truncated" in run(capsys, cut, "-f", "e4m3")[2]


def test_help(capsys) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert '"inf", "-inf" and "nan"' in out and "--top N" in out
    path_help = " ".join(out.split("positional arguments:")[1].split())
    assert "a folder of sharded safetensors" in path_help and "*.index.json" in path_help
    assert main(["--help"]) == 0
    assert "fpexplore report PATH" in capsys.readouterr().out


def _report_commands() -> list[list[str]]:
    """The command lines of the docs' command-line page, section ``fpexplore report``."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    block = text.split("## `fpexplore report`", 1)[1].split("```bash\n", 1)[1]
    lines = block.split("```", 1)[0].splitlines()
    return [shlex.split(line.partition(" #")[0])[1:] for line in lines if line.strip()]


@pytest.mark.filterwarnings(  # Keras 3.15's Variable.numpy() and numpy 2's copy= keyword
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)
def test_the_documented_report_commands_run(
    capsys, tmp_path: Path, bf16_file: Path, monkeypatch
) -> None:
    """The documented report command lines, on a bf16 .safetensors file, a Keras and an
    ONNX model."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = pytest.importorskip("keras")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(bf16_file.read_bytes())
    keras.Sequential([keras.Input((8,)), keras.layers.Dense(16)]).save("model.keras")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(TENSORS["mlp.up"], "w")],
    )  # fmt: skip
    onnx.save(helper.make_model(graph), "model.onnx")
    commands = _report_commands()
    assert len(commands) == 4 and all(argv[0] == "report" for argv in commands)
    for argv in commands:
        assert main(argv) == 0, argv
        out, err = capsys.readouterr()
        assert err == "" and out, argv
        if "--json" in argv:
            assert {r["tensor"] for r in json_strict(out)} == {"w"}


def test_axis_filters_and_custom_format_notices(capsys, bf16_file: Path) -> None:
    status, out, err = run(capsys, bf16_file, "-f", "e4m4,mxfp4", "--csv")
    assert status == 0
    assert err == ("fpexplore report: warning: custom format e4m4 (not in the catalogue); "
                   "did you mean e4m3 (float8_e4m3fn)?\n")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    axes = {r["tensor"]: (r["axis"], r["axis_source"]) for r in rows}
    assert axes["mlp.up"] == ("1", "layout") and axes["mlp.bias"] == ("0", "last")
    status, out, err = run(capsys, bf16_file, "-f", "mxfp4", "--csv", "--weights-only",
                           "--exclude", "embed*")  # fmt: skip
    assert status == 0 and {r["tensor"] for r in csv.DictReader(io.StringIO(out))} == {"mlp.up"}
    status, out, err = run(capsys, bf16_file, "-f", "mxfp4", "--axis", "0", "--csv",
                           "--include", "mlp.*", "--min-size", "100")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["tensor"], r["axis"], r["axis_source"]) for r in rows] == [("mlp.up", "0", "given")]
    status, out, err = run(capsys, bf16_file, "-f", "e4m3", "--include", "attn*")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "no tensor left to report: 4 not included by attn*" in err
    status, out, err = run(capsys, bf16_file, "-f", "e4m3", "--axis", "3")
    assert status == 2 and "axis 3 is out of range for every tensor" in err
    status, out, err = run(capsys, bf16_file, "-f", "e4m3", "--min-size", "-1")
    assert status == 2 and "--min-size must be 0 or more" in err
