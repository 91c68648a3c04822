"""The command line guides a new user: format names (suggestions, families, aliases), flags
with their reasons, operands that overflow, one JSON rule, powers, several bit patterns,
wrapped tables, digits that tell formats apart, block formats, and one clean line (exit 2)
whenever nothing can be shown."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fpexplore import FORMATS, quantize_blocks
from fpexplore.cli.jsonout import to_json_value
from tests.cli.helpers import one_error_line, run, strict

pytestmark = pytest.mark.usefixtures("plain_terminal")


# -- format names ------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["fp8", "float8"])
def test_a_family_name_lists_its_members(capsys, family):
    err = one_error_line(capsys, "1", "-f", family)
    assert "float8_e4m3fn (e4m3, max 448)" in err and "float8_e5m2 (e5m2, max 57344)" in err
    assert len(err) < 700


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [("flaot32", "did you mean float32?"), ("bfloat61", "bfloat16"), ("mxfp9", "mxfp4")],
)
def test_typos_get_suggestions(capsys, typo, suggestion):
    assert suggestion in one_error_line(capsys, "1", "-f", typo)


def test_a_huge_format_word_is_one_short_line(capsys):
    err = one_error_line(capsys, "1", "-f", "9" * 5000)
    assert "5000 characters" in err and len(err) < 400


def test_the_header_says_what_an_alias_is(capsys):
    status, out, _ = run(capsys, "300", "-f", "e4m3")
    assert status == 0
    assert out.splitlines()[1].startswith("  format    e4m3 is float8_e4m3fn")
    assert "max 448" in out.splitlines()[1]
    status, out, _ = run(capsys, "300", "-f", "e4m3", "-f", "float8_e4m3")
    assert status == 0
    header = out.splitlines()[1:3]  # under the title, above the table
    assert header[0].startswith("  format    e4m3 is float8_e4m3fn") and "max 448" in header[0]
    assert header[1].startswith("  format    float8_e4m3 is ml_dtypes' IEEE-style")
    assert "max 240" in header[1]


def test_a_canonical_name_gets_no_alias_line(capsys):
    assert "  format " not in run(capsys, "300", "-f", "float8_e4m3fn")[1]


# -- flags --------------------------------------------------------------------------------------
def test_overflow_in_e4m3_says_why(capsys):
    out = run(capsys, "500", "-f", "e4m3")[1]
    assert (
        "flags     overflow, inexact: above the largest value, 448: float8_e4m3fn has no "
        "infinity, overflow gives NaN" in out
    )
    assert strict(run(capsys, "500", "-f", "e4m3", "--json")[1])["flags"] == [
        "overflow",
        "inexact",
    ]


def test_float16_overflow_is_flagged(capsys):
    assert "flags     overflow, inexact" in run(capsys, "65520", "-f", "float16")[1]
    record = strict(run(capsys, "65520", "-f", "float16", "--json")[1])
    assert (record["value"], record["flags"]) == ("inf", ["overflow", "inexact"])
    assert strict(run(capsys, "0.5", "--json")[1])["flags"] == []
    assert strict(run(capsys, "--bits", "0x7C00", "-f", "half", "--json")[1])["flags"] == []


def test_compare_records_carry_the_flags(capsys):
    records = strict(run(capsys, "1e-10", "-f", "half,float32", "--json")[1])
    assert [r["flags"] for r in records] == [["underflow", "inexact"], ["inexact"]]


def test_an_operand_that_overflows_is_flagged_and_its_error_shown(capsys):
    out = run(capsys, "70000 + 1", "-f", "half")[1]
    lines = out.splitlines()
    a = next(i for i, line in enumerate(lines) if line.strip().startswith("a "))
    assert "'70000' is not a float16 value: rounded to inf (0x7C00), error inf" in lines[a]
    assert "overflow, inexact: above the largest value, 65504: overflow gives inf" in lines[a + 1]
    flags_line = next(line for line in out.splitlines() if line.strip().startswith("flags"))
    assert flags_line.split() == "flags none (this operation); on the way in: a overflow".split()
    record = strict(run(capsys, "70000 + 1", "-f", "half", "--json")[1])
    first = record["operands"][0]
    assert first["rounded"] is True
    assert first["flags"] == ["overflow", "inexact"]
    assert first["abs_error"] == "inf"


def test_sqrt2_in_every_format_flags_the_operand_of_p3109_p7(capsys):
    out = run(capsys, "sqrt(2)", "-f", "all")[1]
    row = next(line for line in out.splitlines() if line.startswith("p3109_p7"))
    assert "a: overflow" in row
    assert "p3109_p7: a = 2 is above the largest value, 1.96875: stored as inf (error inf)" in out
    records = strict(run(capsys, "sqrt(2)", "-f", "all", "--json")[1])
    p7 = next(r for r in records if r["format"] == "p3109_p7")
    assert p7["operands"][0]["flags"] == ["overflow", "inexact"]


# -- one JSON rule ------------------------------------------------------------------------------
NUMERIC_KEYS = {"value", "abs_error", "rel_error", "ulp_error", "ulp", "next_up", "next_down",
                "stored", "max", "eps", "smallest_normal", "smallest_subnormal", "scale",
                "amax", "count", "binades"}  # fmt: skip


def _walk(data, path=""):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _walk(value, key)
    elif isinstance(data, list):
        for value in data:
            yield from _walk(value, path)
    else:
        yield path, data


@pytest.mark.parametrize(
    "argv",
    [["0.1", "-f", "half"], ["1e6", "-f", "all"], ["sqrt(2)", "-f", "all"], ["nan", "-f", "half"],
     ["70000 + 1", "-f", "half"], ["--list-formats"], ["--count", "1", "2", "-f", "all"],
     ["--bits", "0x7C00", "0x3C00", "-f", "half"], ["0.1", "0.5", "3", "100", "-f", "mxfp4"],
     ["1e40", "1", "-f", "mxfp8_e5m2"]],
)  # fmt: skip
def test_json_numbers_are_numbers_and_non_finite_ones_strings(capsys, argv):
    status, out, err = run(capsys, *argv, "--json")
    assert (status, err) == (0, "")
    data = strict(out)
    seen = 0
    for key, value in _walk(data):
        if key in NUMERIC_KEYS and value is not None:
            seen += 1
            assert isinstance(value, int | float) or value in ("inf", "-inf", "nan"), (key, value)
            assert not isinstance(value, bool)
    assert seen


def test_list_formats_json_is_one_record_per_format(capsys):
    records = strict(run(capsys, "--list-formats", "-f", "half,e4m3", "--json")[1])
    assert [r["format"] for r in records] == ["float16", "float8_e4m3fn"]
    assert (records[0]["max"], records[1]["max"]) == (65504.0, 448.0)
    assert records[1]["has_infinity"] is False and records[1]["nan_encoding"] == "fn"


def test_to_json_value():
    data = {"a": [1.5, math.inf, -math.inf, math.nan], "b": np.float32(0.5), "c": (1, 2),
            "d": np.array([1.0, np.inf]), "e": frozenset({"x"}), "f": np.int64(3)}  # fmt: skip
    assert to_json_value(data) == {"a": [1.5, "inf", "-inf", "nan"], "b": 0.5, "c": [1, 2],
                                   "d": [1.0, "inf"], "e": ["x"], "f": 3}  # fmt: skip
    json.dumps(to_json_value(data), allow_nan=False)


def test_help_states_the_json_rule_and_the_power_operators(capsys):
    out = run(capsys, "--help")[1]
    assert '"inf", "-inf" and "nan"' in out
    assert "**" in out and "^" in out


# -- powers -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["2**-24", "2^-24", "2 ** -24", "0.5**24"])
def test_integer_powers_are_exact_values(capsys, text):
    record = strict(run(capsys, text, "-f", "half", "--json")[1])
    assert (record["value"], record["abs_error"], record["kind"]) == (2.0**-24, 0.0, "subnormal")
    assert record["input"] == text


def test_a_power_as_an_operand(capsys):
    record = strict(run(capsys, "1e-3 * 2**10", "-f", "half", "--json")[1])
    assert record["operation"] == "mul" and record["expression"] == "1e-3 x 2**10"
    assert record["operands"][1]["value"] == 1024.0 and record["operands"][1]["rounded"] is False
    assert record["value"] == 1.0244140625  # 1e-3 rounds to 0.0010004043579101562 first


@pytest.mark.parametrize(
    ("text", "message"),
    [("2**0.5", "integer exponent"), ("2**", "expected an integer exponent"),
     ("2**100000", "too large"), ("0**-1", "zero to a negative power"),
     ("2**3**2", "one power at a time")],
)  # fmt: skip
def test_bad_powers_are_one_line(capsys, text, message):
    assert message in one_error_line(capsys, text, "-f", "half")


# -- several bit patterns -----------------------------------------------------------------------
def test_several_bit_patterns(capsys):
    status, out, _ = run(capsys, "--bits", "0x3c00", "0x7c00", "-f", "half")
    assert status == 0
    assert "bit pattern 0x3C00 of float16" in out and "bit pattern 0x7C00 of float16" in out
    records = strict(run(capsys, "--bits", "0x3c00", "0x7c00", "-f", "half", "--json")[1])
    assert [r["value"] for r in records] == [1.0, "inf"]


def test_bit_groups_that_fill_the_width_are_one_pattern(capsys):
    record = strict(run(capsys, "--bits", "0", "01111", "0000000000", "-f", "half", "--json")[1])
    assert record["value"] == 1.0


# -- tables that fit --------------------------------------------------------------------------
@pytest.mark.parametrize("columns", ["80", "120"])
def test_list_formats_wraps_to_the_terminal(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    out = run(capsys, "--list-formats")[1]
    assert max(len(line) for line in out.splitlines()) <= int(columns)
    for name in FORMATS:
        assert name in out


def test_every_format_shows_the_digits_that_tell_it_apart(capsys):
    out = run(capsys, "sqrt(2)", "-f", "all")[1]
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[3:] if line.strip()}
    assert rows["float64"] == "1.4142135623730951"
    assert rows["float32"] == "1.4142135"
    assert rows["bfloat16"] == "1.414" and rows["float8_e4m3fn"] == "1.375"


# -- block formats ------------------------------------------------------------------------------
def test_values_quantized_as_one_block(capsys):
    status, out, err = run(capsys, "0.1", "0.5", "3", "100", "-f", "mxfp4")
    assert (status, err) == (0, "")
    assert "shared scale X = 2**(6 - 2) = 16.0" in out
    assert "96.0" in out and "flushed" in out
    q = quantize_blocks(np.array([0.1, 0.5, 3, 100]), "mxfp4")
    record = strict(run(capsys, "0.1", "0.5", "3", "100", "-f", "mxfp4", "--json")[1])
    assert record["values"] == q.values.tolist()
    assert record["blocks"] == [{"amax": 100.0, "scale_code": 0x83, "scale": 16.0, "index": 0}]
    assert record["codes"] == q.codes.tolist()
    assert record["format"] == "mxfp4" and record["block_size"] == 32


def test_nvfp4_and_several_block_formats(capsys):
    status, out, _ = run(capsys, "0.1", "0.5", "3", "100", "-f", "nvfp4,mxfp8")
    assert status == 0 and "nvfp4" in out and "mxfp8_e4m3" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["0.1", "0.5", "-f", "half"], "several values go with a block format"),
     (["0.1 + 1", "-f", "mxfp4"], "a block format quantizes numbers"),
     (["1", "-f", "mxfp4,half"], "block formats and element formats"),
     (["abc", "1", "-f", "mxfp4"], "could not read 'abc'")],
)  # fmt: skip
def test_block_format_misuse(capsys, argv, message):
    assert message in one_error_line(capsys, *argv)


# -- when every chosen format refuses (issue 21, section 7) ------------------------------------
@pytest.mark.parametrize(
    "argv",
    [["sqrt(-1)", "-f", "e2m1", "-f", "e3m2"], ["nan + 1", "-f", "fp4,e2m3"],
     ["1 + 1_", "-f", "all"], ["1 + 1_", "-f", "all", "--json"], ["1 + 1_", "-f", "half"],
     ["sqrt(-1)", "-f", "e2m1", "-f", "e3m2", "--json"]],
)  # fmt: skip
def test_every_format_refusing_is_one_line_and_status_2(capsys, argv):
    err = one_error_line(capsys, *argv)
    if "1_" in argv[0]:
        assert "1_" in err


def test_some_formats_refusing_is_noted(capsys):
    status, out, _ = run(capsys, "sqrt(-1)", "-f", "half,e2m1")
    assert status == 0 and "float4_e2m1fn:" in out
    status, out, _ = run(capsys, "sqrt(-1)", "-f", "half,e2m1", "--json")
    records = strict(out)
    assert status == 0 and records[1]["format"] == "float4_e2m1fn" and "error" in records[1]
