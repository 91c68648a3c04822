"""The command line at its edges, as a user types them: powers of inf and nan, a value
that no chosen format can store, records in the order of -f, bit groups that do not
fill a format, custom eXmY names, and the notes of block formats."""

from __future__ import annotations

import pytest

from fpexplore import get_format
from tests.cli.helpers import one_error_line, run, strict

pytestmark = pytest.mark.usefixtures("plain_terminal")


# -- the grammar -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["inf**2", "nan^2", "inf ** 2 + 1", "2 * infinity**3"])
def test_a_power_of_inf_or_nan_says_the_base_must_be_finite(capsys, text):
    err = one_error_line(capsys, text, "-f", "half")
    assert "a power needs a finite base" in err, err


def test_positions_of_word_numbers_are_right(capsys):
    assert "found 'inf' at position 9" in one_error_line(capsys, "1 + inf inf", "-f", "half")
    assert "found 'nan' at position 7" in one_error_line(capsys, "1 + 2 nan", "-f", "half")


# -- every chosen format refuses a plain value too ---------------------------------------------
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_value_that_no_chosen_format_can_store_is_one_line(capsys, json_flag):
    err = one_error_line(capsys, "nan", "-f", "e2m1", "-f", "e3m2", *json_flag)
    assert "float4_e2m1fn" in err and "float6_e3m2fn" in err and "NaN" in err


def test_a_value_that_some_formats_cannot_store_is_still_a_table(capsys):
    status, out, _ = run(capsys, "nan", "-f", "e2m1,half")
    assert status == 0 and "no NaN" in out
    records = strict(run(capsys, "nan", "-f", "e2m1,half", "--json")[1])
    assert [r["format"] for r in records] == ["float4_e2m1fn", "float16"]


def test_records_follow_the_order_of_f(capsys):
    records = strict(run(capsys, "sqrt(-1)", "-f", "e2m1,half,e3m2,float32", "--json")[1])
    assert [r["format"] for r in records] == [
        "float4_e2m1fn",
        "float16",
        "float6_e3m2fn",
        "float32",
    ]
    assert "error" in records[0] and records[1]["flags"] == ["invalid"]


def test_the_compare_table_flags_a_finite_input_that_becomes_nan(capsys):
    out = run(capsys, "0", "-f", "e8m0,half")[1]
    row = next(line for line in out.splitlines() if line.startswith("float8_e8m0fnu"))
    assert row.split()[-1] == "invalid"


# -- get_format and -f with long or odd names ---------------------------------------------------
@pytest.mark.parametrize("spec", ["e" + "9" * 5000 + "m3", "e4m" + "9" * 300])
def test_a_long_custom_name_is_quoted_briefly(capsys, spec):
    with pytest.raises(ValueError, match="characters") as info:
        get_format(spec)
    assert len(str(info.value)) < 400
    assert len(one_error_line(capsys, "1", "-f", spec)) < 400


def test_a_dtype_that_is_no_float_format_reads_as_a_sentence():
    with pytest.raises(ValueError, match="dtype 'int8' is not a supported floating-point"):
        get_format("int8")
    with pytest.raises(ValueError, match="'i4' reads as dtype 'int32', which is not"):
        get_format("i4")


def test_a_custom_format_is_named_as_one(capsys):
    out = run(capsys, "1", "-f", "e4m4")[1]
    assert out.splitlines()[1].startswith(
        "  format    e4m4 is a custom IEEE-like format (not in the catalogue): 4 exponent and "
        "4 mantissa bits, max 248, with inf and NaN"
    )
    assert "(the values of float32)" in run(capsys, "1", "-f", "e8m23")[1].splitlines()[1]
    assert "  format " not in run(capsys, "1", "-f", "e4m3")[1].splitlines()[2]


# -- bit groups ---------------------------------------------------------------------------------
def test_bit_groups_that_do_not_fill_the_width_say_so(capsys):
    err = one_error_line(capsys, "--bits", "0", "01111", "00000000", "-f", "half")
    assert "14 bits" in err and "16" in err


# -- block formats ------------------------------------------------------------------------------
def test_nan_is_not_listed_as_moved_to_float64(capsys):
    out = run(capsys, "nan", "inf", "0.1", "-f", "mxfp4")[1]
    note = next(line for line in out.splitlines() if line.startswith("read as the nearest"))
    assert note.endswith(": 0.1"), note
