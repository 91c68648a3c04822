"""The command line's arithmetic: expressions, one format or many, JSON, bad input."""

from __future__ import annotations

import json

import pytest

from fpexplore.cli import main
from fpexplore.cli.expression import parse_expression
from fpexplore.cli.output import UsageError


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_sum_in_bfloat16_is_explained(capsys):
    status, out, err = run(capsys, "0.1 + 0.2", "-f", "bfloat16")
    assert (status, err) == (0, "")
    assert out.startswith("0.1 + 0.2 in bfloat16")
    assert "= 0.30078125   (0x3E9A)" in out and "guard bit" in out


@pytest.mark.parametrize(
    ("expression", "value"),
    [("1 - 0.25", 0.75), ("3 * 0.5", 1.5), ("3 x 0.5", 1.5), ("1 / 4.0", 0.25),
     ("sqrt(2)", 1.4140625), ("fma(2, 3, 1)", 7.0), ("-0.5 * -4", 2.0),
     ("div(1, 3)", 0.333251953125), ("neg(2)", -2.0), ("abs(-2)", 2.0)],
)  # fmt: skip
def test_each_operation_as_json(capsys, expression, value):
    status, out, err = run(capsys, expression, "-f", "half", "--json")
    assert (status, err) == (0, "")
    assert json.loads(out)["value"] == value


def test_rounding_saturate_and_all_formats(capsys):
    _, out, _ = run(capsys, "1 - 1", "-f", "half", "--rounding", "down", "--json")
    assert json.loads(out)["hex"] == "0x8000"  # an exact zero sum rounding down is -0
    _, out, _ = run(capsys, "300 * 300", "-f", "half", "--saturate", "--json")
    assert json.loads(out)["value"] == 65504 and "overflow" in json.loads(out)["flags"]
    status, out, _ = run(capsys, "0 / 0", "-f", "all")
    assert status == 0 and "float4_e2m1fn: 0 / 0 is an invalid operation" in out
    _, out, _ = run(capsys, "0.1 + 0.2", "-f", "float16,bfloat16", "--json")
    records = json.loads(out)
    assert [r["value"] for r in records] == [0.2998046875, 0.30078125]


def test_a_ratio_alone_stays_a_value(capsys):
    assert parse_expression("1/3") is None and parse_expression(" 1 / 3 ") is None
    status, out, _ = run(capsys, "1/3", "-f", "half")
    assert status == 0 and "bits" in out  # the breakdown of the exact value one third
    assert parse_expression("1 / 3.0") == ("div", ("1", "3.0"))
    assert parse_expression("-1e-8") is None


@pytest.mark.parametrize(
    ("expression", "message"),
    [("pow(2, 3)", "unknown operation 'pow'"), ("1 +", "expected a number, found the end"),
     ("1 + 2 + 3", "one operation at a time"), ("sqrt(2", "expected ',' or ')'"),
     ("div(1, 3, 4)", "div takes 2 operand(s), got 3"), ("1 $ 2", "unexpected '$'"),
     ("sqrt(-1)", "has no NaN")],
)  # fmt: skip
def test_bad_expressions_exit_2_with_one_line(capsys, expression, message):
    fmt = "e2m1" if expression == "sqrt(-1)" else "half"
    status, out, err = run(capsys, expression, "-f", fmt)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_parser_never_evaluates():
    with pytest.raises(UsageError):
        parse_expression("__import__('os')")


def test_remainder_from_the_command_line(capsys):
    status, out, _ = run(capsys, "remainder(7, 2)", "-f", "half", "--json")
    assert status == 0 and json.loads(out)["value"] == -1.0
