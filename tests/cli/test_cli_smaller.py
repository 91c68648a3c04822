"""Small things a new user hit: the sign of a huge decimal, a row whose operand
overflowed, the flag column of inexact values, an empty --count range."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run, strict


@pytest.mark.parametrize("value", ["-1e400", "-7.5e100000"])
def test_a_huge_or_tiny_negative_decimal_keeps_its_sign(capsys, value) -> None:
    status, out, _ = run(capsys, value, "-f", "float32")
    assert status == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("input"))
    assert "about -" in line, line


def test_a_huge_positive_decimal_has_no_sign(capsys) -> None:
    _, out, _ = run(capsys, "1e400", "-f", "float32")
    assert "about 1.00000e+400" in out


def test_a_row_whose_operand_overflowed_shows_an_infinite_error(capsys) -> None:
    status, out, _ = run(capsys, "sqrt(2)", "-f", "all")
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("p3109_p7 "))
    assert row.split()[1:4] == ["inf", "0x7F", "inf"], row
    assert "error inf" in out  # the note below the table says the same


def test_the_comparison_flag_column_says_inexact(capsys) -> None:
    status, out, _ = run(capsys, "0.1", "-f", "float32,float64,e4m3")
    assert status == 0
    rows = [line for line in out.splitlines() if line.startswith(("float32 ", "float8"))]
    assert rows and all(line.rstrip().endswith("inexact") for line in rows), rows
    _, out, _ = run(capsys, "0.5", "-f", "float32,float16")
    rows = [line for line in out.splitlines() if line.startswith(("float32 ", "float16 "))]
    assert rows and not any("inexact" in line for line in rows), rows  # stored exactly
    _, out, _ = run(capsys, "0.1", "-f", "float32,float16", "--json")
    assert [r["flag"] for r in strict(out)] == ["inexact", "inexact"]


def test_an_empty_count_range_says_why_it_is_empty(capsys) -> None:
    for argv in (["4", "3"], ["3", "3", "-f", "e4m3,bf16"], ["inf", "-inf"], ["2**3", "1e400"]):
        status, out, err = run(capsys, "--count", *argv)
        assert status == 0 and err == ""
        assert ("the range is empty" in out) == (argv[0] != "2**3"), out
    status, out, _ = run(capsys, "--count", "-1e400", "-1e300")
    assert "empty" not in out


def test_a_tensor_of_nan_alone_has_no_snr_and_fails(tmp_path, capsys) -> None:
    import math

    import numpy as np

    from fpexplore import checkpoint_report, tensor_report

    nan = np.full(64, np.nan, np.float32)
    w = np.linspace(-1, 1, 64, dtype=np.float32)
    assert all(math.isnan(r["snr_db"]) for r in tensor_report(nan, "e4m3").to_records())
    report = checkpoint_report({"nan": nan, "w": w}, ["e4m3"], progress=False)
    assert report.worst(1).records[0]["tensor"] == "nan"  # failing: shown first
    for row in report.summary().to_records():
        assert row["passing"] == 1 and row["worst_tensor"] == "nan", row
        assert math.isnan(row["min_snr_db"]) and math.isfinite(row["snr_db"]), row
    alone = checkpoint_report({"nan": nan}, ["e4m3"], progress=False).summary().to_records()
    assert all(r["passing"] == 0 and math.isnan(r["snr_db"]) for r in alone), alone
    np.save(tmp_path / "nan.npy", nan)
    status, out, _ = run(capsys, "report", str(tmp_path / "nan.npy"), "-f", "e4m3")
    assert status == 0 and "0 (0%)" in out and "nan" in out


def test_the_mx_block_row_has_one_name_everywhere(tmp_path, capsys) -> None:
    import numpy as np

    from fpexplore import checkpoint_report, tensor_report

    w = np.linspace(-3, 3, 64, dtype=np.float32)
    np.save(tmp_path / "w.npy", w)
    _, out, _ = run(capsys, "report", str(tmp_path / "w.npy"), "-f", "e4m3")
    table, summary = out.split("summary per format and scaling")
    row = next(line for line in summary.splitlines() if " block" in line)
    assert "float8_e4m3fn  block (mxfp8_e4m3)" in row, row
    assert "block (mxfp8_e4m3)" in table and "block (mxfp8_e4m3)" in str(tensor_report(w, "e4m3"))
    report = checkpoint_report({"w": w}, "e4m3", progress=False)
    assert "block (mxfp8_e4m3)" in str(report.summary())
    block = [r for r in report.summary().to_records() if r["scaling"] == "block"]
    assert [r["block_format"] for r in block] == ["mxfp8_e4m3"]
