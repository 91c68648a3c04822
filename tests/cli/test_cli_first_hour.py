"""The command line as a new user meets it, read against the docs' command-line page: an
integer power wherever a number is typed, block-format family names, and block tables whose values
show the digits that make up their errors."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fpexplore import count_between, decode, quantize_blocks
from fpexplore.exact import FLAGS
from tests.cli.helpers import one_error_line, run, strict

pytestmark = pytest.mark.usefixtures("plain_terminal")


# -- a power is a number wherever a number is typed ---------------------------------------------
@pytest.mark.parametrize("text", ["2**-24", "2^-24", "2 ** -24"])
def test_a_power_compared_across_formats(capsys, text):
    status, out, err = run(capsys, text, "-f", "half", "-f", "float32")
    assert (status, err) == (0, "")
    assert out.splitlines()[0].startswith(f"{text} stored in 2 formats")
    records = strict(run(capsys, text, "-f", "half,float32", "--json")[1])
    assert [r["stored"] for r in records] == [2.0**-24, 2.0**-24]
    assert [r["kind"] for r in records] == ["subnormal", "normal"]
    assert [r["flags"] for r in records] == [[], []]


def test_a_power_in_every_format(capsys):
    records = strict(run(capsys, "2^-24", "-f", "all", "--json")[1])
    by_format = {r["format"]: r for r in records}
    assert by_format["float16"]["stored"] == 2.0**-24
    for name, record in by_format.items():
        flags = decode(Fraction(1, 2**24), name).flags
        assert record["flags"] == [f for f in FLAGS if f in flags], name
    assert by_format["float8_e4m3fn"]["flags"] == ["underflow", "inexact"]


def test_a_power_that_overflows_in_a_compare_table_is_flagged(capsys):
    records = strict(run(capsys, "2**16", "-f", "half,float32", "--json")[1])
    assert records[0]["stored"] == "inf" and records[0]["flags"] == ["overflow", "inexact"]
    assert records[1]["stored"] == 65536.0


@pytest.mark.parametrize(
    ("lo", "hi", "exact"),
    [("2**-24", "1", (Fraction(1, 2**24), 1)), ("0", "2^-14", (0, Fraction(1, 2**14))),
     ("-2**3", "2**3", (-8, 8))],
)  # fmt: skip
def test_count_takes_powers(capsys, lo, hi, exact):
    record = strict(run(capsys, "--count", lo, hi, "-f", "half", "--json")[1])
    assert record["count"] == count_between(*exact, "float16")
    assert (record["lo"], record["hi"]) == (lo, hi)


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--count", "2**0.5", "1"], "integer exponent"),
     (["--count", "0", "1 + 1"], "expected a number"),
     (["2**0.5", "-f", "half,float32"], "integer exponent"),
     (["0**-1", "-f", "all"], "zero to a negative power")],
)  # fmt: skip
def test_bad_powers_elsewhere_are_one_line(capsys, argv, message):
    assert message in one_error_line(capsys, *argv)


# -- block formats by family ----------------------------------------------------------------------
MX = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"]


@pytest.mark.parametrize("family", ["mx", "MX", "Mx"])
def test_the_mx_family_lists_its_block_formats(capsys, family):
    err = one_error_line(capsys, "1", "2", "-f", family)
    for name in MX:
        assert name in err, (name, err)
    assert "nvfp4" not in err


def test_the_mxfp_family_lists_its_float_block_formats(capsys):
    err = one_error_line(capsys, "1", "2", "-f", "mxfp")
    assert all(name in err for name in MX[:-1]) and "mxint8" not in err


@pytest.mark.parametrize("prefix", ["nv", "NV", "nvfp"])
def test_a_prefix_of_one_block_format_suggests_it(capsys, prefix):
    assert "did you mean nvfp4?" in one_error_line(capsys, "1", "2", "-f", prefix)


# -- block tables show values with the digits of their errors -------------------------------------
def test_nvfp4_values_are_not_rounded_to_six_digits(capsys):
    q = quantize_blocks(np.array([0.1, 0.5, 3, 100]), "nvfp4")
    assert q.values[3] != 100.0  # the two-level scale is not exact: 6 x 448 x s
    status, out, _ = run(capsys, "0.1", "0.5", "3", "100", "-f", "nvfp4")
    assert status == 0
    row = next(line for line in out.splitlines() if line.split()[:2] == ["3", "100.0"])
    assert repr(float(q.values[3])) in row.split(), row


@pytest.mark.parametrize(
    ("name", "expected"),
    [("mx", "mxfp8_e4m3 (float8_e4m3fn elements)"), ("nv", "did you mean nvfp4?"),
     ("mxfp", "mxfp6_e2m3"), ("flaot32", "did you mean float32?")],
)  # fmt: skip
def test_report_names_block_families_and_typos_as_the_main_command_does(
    capsys, tmp_path, name, expected
):
    path = tmp_path / "t.npy"
    np.save(path, np.arange(4, dtype=np.float32))
    status, out, err = run(capsys, "report", str(path), "-f", f"e4m3,{name}")
    assert (status, out) == (2, "") and err.count("\n") == 1, err
    assert expected in err, err


# -- bit patterns typed in groups, quoted or not ------------------------------------------------
@pytest.mark.parametrize(
    ("pieces", "values"),
    [(["0b0011", "1100", "0000", "0000"], [1.0]), (["0x3C", "00"], [1.0]),
     (["0x3c", "00", "0x7c", "00"], [1.0, "inf"]), (["0b0011", "1100", "0000", "0000", "0x7C00"],
     [1.0, "inf"]), (["0x3c00", "0011110000000000"], [1.0, 1.0]),
     (["0011", "1100", "0000", "0000"], [1.0]), (["0x7B", "FF"], [65504.0])],
)  # fmt: skip
def test_bit_groups_read_as_the_same_text_quoted(capsys, pieces, values):
    if len(values) == 1:  # one pattern: the same as the pieces typed as one quoted word
        quoted = strict(run(capsys, "--bits", " ".join(pieces), "-f", "half", "--json")[1])
        assert quoted["value"] == values[0]
    status, out, err = run(capsys, "--bits", *pieces, "-f", "half", "--json")
    assert (status, err) == (0, ""), err
    records = strict(out)
    records = records if isinstance(records, list) else [records]
    assert [r["value"] for r in records] == values


@pytest.mark.parametrize("pieces", [["0x3C", "0G"], ["0b0011", "1100", "2"], ["0x3C", "00", "1"]])
def test_bad_bit_groups_are_one_line(capsys, pieces):
    one_error_line(capsys, "--bits", *pieces, "-f", "half")


# -- powers in --plot ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [["2**-3", "--plot", "bits", "-f", "e4m3"],
     ["--plot", "number_line", "-f", "e4m3", "--range", "2**-3", "2^3"],
     ["--plot", "relative_error", "-f", "half", "--range", "2**-20", "1"]],
)  # fmt: skip
def test_plots_take_powers(capsys, tmp_path, argv):
    pytest.importorskip("matplotlib")
    path = tmp_path / "figure.png"
    status, _, err = run(capsys, *argv, "-o", str(path))
    assert (status, err) == (0, ""), err
    assert path.stat().st_size > 0


def test_a_plot_value_that_is_no_number_is_one_line_without_advice_on_ranges(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    err = one_error_line(capsys, "abc", "--plot", "bits", "-o", str(tmp_path / "f.png"))
    assert "could not read 'abc'" in err and "--range" not in err
    assert not (tmp_path / "f.png").exists()


# -- JSON: an operation's exact result is its decimal digits, as the text shows it ------------
@pytest.mark.parametrize(
    ("expression", "fmt", "exact"),
    [("0.1 * 3", "e4m3", Fraction(39, 128)), ("0.1 + 0.2", "bfloat16", Fraction(615, 2048)),
     ("2**-1074 * 2**-1074", "float64", Fraction(1, 2**2148)), ("1 + 2", "half", Fraction(3))],
)  # fmt: skip
def test_an_operations_exact_result_is_all_its_digits(capsys, expression, fmt, exact):
    record = strict(run(capsys, expression, "-f", fmt, "--json")[1])
    assert "/" not in record["exact"], record["exact"]
    assert Fraction(record["exact"]) == exact
    text = run(capsys, expression, "-f", fmt)[1]
    if exact.denominator < 2**60:  # the text shows short ones whole
        assert f"exact      = {record['exact']}" in text
