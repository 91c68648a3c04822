"""checkpoint_report and tensor_report at their edges: formats named twice, the heatmap
of one scaling or of no rows, tensors left out and why."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx


def test_a_format_named_twice_gives_its_rows_once() -> None:
    x = np.linspace(-1.0, 1.0, 64)
    spellings = ["e4m3", "float8_e4m3fn", "E4M3", fpx.get_format("e4m3"), "mxfp4", "MXFP4"]
    rows = fpx.tensor_report(x, spellings).to_records()
    assert [(r["format"], r["scaling"]) for r in rows] == [
        ("float8_e4m3fn", "none"), ("float8_e4m3fn", "per_tensor"), ("float8_e4m3fn", "block"),
        ("mxfp4", "block"),
    ]  # fmt: skip
    r = fpx.checkpoint_report({"a": x, "b": 2 * x}, spellings, progress=False)
    assert len(r.records) == 2 * 4
    assert {s["tensors"] for s in r.summary().to_records()} == {2}


def test_the_command_line_names_a_format_once(tmp_path, capsys) -> None:
    from fpexplore.cli.main import main

    np.save(tmp_path / "w.npy", np.linspace(-1.0, 1.0, 64))
    assert main(["report", str(tmp_path / "w.npy"), "-f", "e4m3,float8_e4m3fn", "--json"]) == 0
    import json

    records = json.loads(capsys.readouterr().out)
    assert len(records) == 3


def test_plot_of_one_scaling_and_of_no_rows() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    r = fpx.checkpoint_report({"a": np.linspace(-1.0, 1.0, 64)}, ["e4m3"], progress=False)
    ax = r.plot(scaling="block")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["float8_e4m3fn\nblock"]
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="scaling 'blocks'.* none, per_tensor, block"):
        r.plot(scaling="blocks")
    mx = fpx.checkpoint_report({"a": np.ones(64)}, ["mxfp4"], progress=False)
    with pytest.raises(ValueError, match="no rows of scaling 'none'"):
        mx.plot(scaling="none")
    empty = fpx.checkpoint_report({"step": np.arange(3)}, ["e4m3"], progress=False)
    ax = empty.plot()  # no warnings (pytest turns them into errors): a title, no image
    assert not ax.images
    assert "no floating-point tensors" in ax.get_title()
    plt.close(ax.figure)


def test_tensors_left_out_say_why() -> None:
    source = {"step": np.arange(3), "mask": np.ones(2, bool), "c": np.ones(2, np.complex64),
              "long": np.ones(2, np.longdouble), "w": np.ones(4)}  # fmt: skip
    r = fpx.checkpoint_report(source, ["e4m3"], progress=False)
    why = dict(r.skipped)
    assert why["step"] == "dtype int64 is not floating point"
    assert why["mask"] == "dtype bool is not floating point"
    assert why["c"].startswith("dtype complex64 is complex")
    assert "long double" in why["long"] and "not floating point" not in why["long"]
    assert {row["tensor"] for row in r.to_records()} == {"w"}
    text = str(r)
    assert "step (int64)" in text and "long" in text
    empty = fpx.checkpoint_report({"step": np.arange(3)}, ["e4m3"], progress=False)
    assert "step (int64)" in str(empty) and "step" in empty._repr_html_()


def test_the_worst_rows_print_as_the_worst_rows_not_as_a_model() -> None:
    rng = np.random.default_rng(4)
    source = {f"t{i}": rng.standard_normal(64) for i in range(5)}
    source["broken"] = np.r_[np.ones(9), 1e6]
    r = fpx.checkpoint_report(source, ["e4m3"], progress=False)
    worst = r.worst(2)
    text, html = str(worst), worst._repr_html_()
    # a summary of two rows would call them the model ("tensors 1, passing 0 (0%)")
    assert "summary per format and scaling" not in text and "summary" not in html
    assert "the 2 worst of 18 rows" in text and "the 2 worst of 18 rows" in html
    assert [row["tensor"] for row in worst.to_records()] == ["broken", "broken"]
    assert "summary per format and scaling" in str(r)
    assert len(worst.worst(1).records) == 1 and "the 1 worst of 18 rows" in str(worst.worst(1))


def test_tensor_report_of_a_path_or_a_mapping_points_to_checkpoint_report(tmp_path) -> None:
    from pathlib import Path

    np.save(tmp_path / "w.npy", np.ones(3))
    for source in (str(tmp_path / "w.npy"), Path(tmp_path / "w.npy"), {"w": np.ones(3)}):
        with pytest.raises(TypeError, match=r"checkpoint_report\(") as caught:
            fpx.tensor_report(source, ["e4m3"])
        assert "decode()" not in str(caught.value)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize(("shape", "axis"), [((30, 40), 0), ((5, 7, 9), None), ((300, 400), 0)])
def test_a_rows_numbers_do_not_depend_on_the_other_scalings_asked(dtype, shape, axis) -> None:
    # checkpoint_report(..., scalings=("none",)) must equal tensor_report's "none" rows:
    # a row's sums were cut into pieces padded to the block size only when a block row
    # was asked, so the SNR moved in its last digits with the scalings chosen
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    formats = ["e4m3", "bf16", "e5m2", "mxfp4"]
    full = fpx.tensor_report(x, formats, axis=axis).to_records()
    for scalings in [("none",), ("per_tensor",), ("none", "per_tensor"), ("block",)]:
        want = [r for r in full if r["scaling"] in scalings]
        got = fpx.checkpoint_report({"x": x}, formats, scalings=scalings, axis=axis,
                                    progress=False).to_records()  # fmt: skip
        same = [{k: "nan" if v != v else v for k, v in r.items()} for r in want]
        assert [{k: "nan" if r[k] != r[k] else r[k] for k in want[0]} for r in got] == same


def test_tensors_holding_nan_or_inf_say_so(capsys) -> None:
    # a tensor full of NaN was shown as stored "exact" (SNR inf: no finite value to
    # miss), with nothing telling that its values are NaN in the checkpoint itself
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    source = {"w": np.linspace(-1.0, 1.0, 64), "broken": np.full((3, 4), np.nan),
              "some": np.array([1.0, np.inf, np.nan, 2.0]), "zero": np.zeros(8)}  # fmt: skip
    r = fpx.checkpoint_report(source, ["e4m3"], progress=False)
    assert r.nonfinite == {"broken": 12, "some": 2}
    assert r.worst(2).nonfinite == r.nonfinite
    text = str(r.table())
    assert "NaN or inf in the checkpoint itself" in text
    assert "broken (12 of 12 values)" in text and "some (2 of 4 values)" in text
    assert "broken (12 of 12 values)" in r._repr_html_()
    ax = r.plot()
    cells = {t.get_text() for t in ax.texts}
    assert "no finite values" in cells and "exact" in cells  # "zero" is stored exactly
    grid = ax.images[0].get_array()
    assert np.ma.getmaskarray(grid)[1].all()  # the NaN tensor's row: no colour
    plt.close(ax.figure)
    clean = fpx.checkpoint_report({"w": np.ones(4)}, ["e4m3"], progress=False)
    assert clean.nonfinite == {} and "NaN or inf in the" not in str(clean)


def test_the_command_line_names_tensors_holding_nan(tmp_path, capsys) -> None:
    from fpexplore.cli.main import main

    np.savez(tmp_path / "m.npz", w=np.linspace(-1.0, 1.0, 64), broken=np.full(4, np.nan))
    assert main(["report", str(tmp_path / "m.npz"), "-f", "e4m3", "--no-progress"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "2 tensors, 68 values; NaN or inf (left out of the statistics) in broken"


def test_the_command_line_counts_one_tensor_in_the_singular(tmp_path, capsys) -> None:
    from fpexplore.cli.main import main

    np.save(tmp_path / "w.npy", np.linspace(-1.0, 1.0, 64))
    assert main(["report", str(tmp_path / "w.npy"), "-f", "e4m3", "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "1 tensor, 64 values"  # not "1 tensors"


def test_formats_and_scalings_that_give_no_rows_are_refused(tmp_path, capsys) -> None:
    # checkpoint_report(..., ["bf16"], scalings=["block"]) printed "no floating-point
    # tensors" about a model full of them; the command line blamed block formats
    from fpexplore.cli.main import main

    weights = {"w": np.linspace(-1.0, 1.0, 64)}
    with pytest.raises(ValueError, match=r"bfloat16 has no block row.*\(mxfp4, nvfp4"):
        fpx.checkpoint_report(weights, ["bf16"], scalings=["block"], progress=False)
    with pytest.raises(ValueError, match=r"^scalings block give no rows"):  # an iterator too
        fpx.checkpoint_report(weights, ["bf16"], scalings=iter(["block"]), progress=False)
    with pytest.raises(ValueError, match=r"mxfp4 has the block scaling only"):
        fpx.checkpoint_report(weights, ["mxfp4"], scalings=("none", "per_tensor"), progress=False)
    np.save(tmp_path / "w.npy", weights["w"])
    assert main(["report", str(tmp_path / "w.npy"), "-f", "bf16", "--scaling", "block"]) == 2
    err = capsys.readouterr().err
    assert "bfloat16 has no block row" in err and err.count("\n") == 1
    rows = fpx.checkpoint_report(weights, ["bf16", "e4m3"], scalings=["block"], progress=False)
    assert [r["format"] for r in rows.to_records()] == ["float8_e4m3fn"]  # rows of one: fine


def test_worst_takes_a_numpy_integer() -> None:
    # worst(np.int64(2)) (a count computed with numpy) was refused as not an int
    r = fpx.checkpoint_report({"a": np.linspace(-1.0, 1.0, 64)}, ["e4m3"], progress=False)
    assert r.worst(np.int64(2)).to_records() == r.worst(2).to_records()
    for bad in (True, -1, 2.0, "2"):
        with pytest.raises(ValueError, match="n must be a non-negative int"):
            r.worst(bad)


def test_summary_takes_a_numpy_threshold() -> None:
    r = fpx.checkpoint_report({"a": np.linspace(-1.0, 1.0, 64)}, ["e4m3"], progress=False)
    assert r.summary(np.int64(40)).to_records() == r.summary(40).to_records()
    assert r.summary(np.float32(40)).min_snr_db == 40.0
    for bad in (float("nan"), "20", None, True):
        with pytest.raises(ValueError, match="min_snr_db must be a number"):
            r.summary(bad)
