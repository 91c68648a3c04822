"""The ``fpexplore`` command: outputs, exit codes, colour, JSON and bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import pytest

from fpexplore import FORMATS, __version__, get_format
from fpexplore.cli import main
from fpexplore.cli.output import use_color
from fpexplore.cli.parser import protect_negative_numbers

ANSI = "\x1b["


def run(capsys, *argv):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def field(out: str, name: str) -> str:
    """The raw field value printed after ``name`` in the text breakdown."""
    for line in out.splitlines():
        words = line.split()
        if words and words[0] == name:
            return words[1]
    raise AssertionError(f"no {name!r} line in:\n{out}")


def json_strict(text: str):
    """json.loads that refuses NaN/Infinity literals (not valid JSON)."""

    def refuse(constant):
        raise ValueError(f"invalid JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)


# -- the breakdown ----------------------------------------------------------------------------
def test_pi_breakdown_shows_the_design_card_fields(capsys):
    status, out, err = run(capsys, "3.14159", "--format", "float32")
    assert (status, err) == (0, "")
    assert (field(out, "sign"), field(out, "exponent"), field(out, "mantissa")) == (
        "0",
        "128",
        "4788176",
    )
    assert "0x40490FD0" in out
    assert "3.141590118408203125 (exactly)" in out


def test_default_format_is_float32(capsys):
    assert run(capsys, "3.14159")[1] == run(capsys, "3.14159", "-f", "float32")[1]


def test_bits_of_the_books_pi(capsys):
    status, out, _ = run(capsys, "--bits", "0x40490FDB", "--format", "float32")
    assert status == 0
    assert field(out, "mantissa") == "4788187"
    assert "3.1415927410125732421875" in out


@pytest.mark.parametrize(
    "pattern",
    [
        ["0 10000000 10010010000111111011011"],  # one quoted argument
        ["0", "10000000", "10010010000111111011011"],  # typed without quotes
        ["0b0100_0000_0100_1001_0000_1111_1101_1011"],
        ["0x4049_0fdb"],
    ],
)
def test_bit_pattern_spellings(capsys, pattern):
    status, out, _ = run(capsys, "--bits", *pattern)
    assert status == 0
    assert "0x40490FDB" in out


def test_rounding_mode_and_saturation(capsys):
    nearest = json_strict(run(capsys, "0.1", "--json")[1])
    down = json_strict(run(capsys, "0.1", "--rounding", "toward_zero", "--json")[1])
    assert (nearest["hex"], down["hex"]) == ("0x3DCCCCCD", "0x3DCCCCCC")
    overflowing = json_strict(run(capsys, "1000", "-f", "e4m3", "--json")[1])
    saturated = json_strict(run(capsys, "1000", "-f", "e4m3", "--saturate", "--json")[1])
    assert (overflowing["kind"], overflowing["value"]) == ("nan", "nan")
    assert saturated["value"] == 448.0


# -- negative values --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "value"),
    [
        (["-2.5", "-f", "float16"], -2.5),
        (["-f", "float16", "-2.5"], -2.5),
        (["-inf"], "-inf"),
        (["-1e-8", "-f", "half"], 0.0),  # underflows to -0
        (["-.5"], -0.5),
        (["-1/4", "-f", "bf16"], -0.25),
        (["-0x1.8p1"], -3.0),
        (["-7E+2", "--rounding", "down"], -700.0),
    ],
)
def test_negative_values_are_values_not_options(capsys, argv, value):
    status, out, err = run(capsys, *argv, "--json")
    assert (status, err) == (0, "")
    record = json_strict(out)
    assert record["sign"] == 1
    assert record["value"] == value


def test_negative_count_bounds(capsys):
    status, out, _ = run(capsys, "--count", "-1", "1", "-f", "e4m3")
    assert status == 0
    assert out.split()[0] == "112"  # 56 negatives, zero, 55 positives


def test_only_number_like_tokens_are_protected():
    assert protect_negative_numbers(["-f", "-1e-8", "--json", "-inf", "-x", "-"]) == [
        "-f",
        " -1e-8",
        "--json",
        " -inf",
        "-x",
        "-",
    ]


# -- colour -----------------------------------------------------------------------------------
class _Terminal:
    def isatty(self) -> bool:
        return True


class _Pipe:
    def isatty(self) -> bool:
        return False


def test_colour_choice(monkeypatch):
    assert use_color("auto", _Terminal())
    assert not use_color("auto", _Pipe())
    assert not use_color("auto", object())  # no isatty at all
    assert use_color("always", None)
    assert not use_color("never", _Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # empty: no effect (no-color.org)
    assert use_color("auto", _Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", _Terminal())
    assert use_color("always", _Terminal())  # the command line wins
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color("auto", _Terminal())


def test_terminal_gets_colour_unless_no_color(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert ANSI in run(capsys, "3.14159")[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert ANSI not in run(capsys, "3.14159")[1]


def test_color_option(capsys):
    assert ANSI not in run(capsys, "3.14159")[1]  # captured output is not a terminal
    assert ANSI in run(capsys, "3.14159", "--color", "always")[1]
    assert ANSI not in run(capsys, "3.14159", "--color", "never")[1]


# -- JSON -------------------------------------------------------------------------------------
def test_decode_json_fields(capsys):
    status, out, _ = run(capsys, "3.14159", "-f", "float32", "--json")
    record = json_strict(out)
    assert status == 0
    assert record["format"] == "float32"
    assert record["input"] == "3.14159"
    assert (record["sign"], record["exponent"], record["mantissa"]) == (0, 128, 4788176)
    assert record["bits"] == "01000000010010010000111111010000"
    assert record["hex"] == "0x40490FD0"
    assert record["kind"] == "normal"
    assert record["value"] == 3.141590118408203125
    assert record["exact"] == "3.141590118408203125"
    error = Fraction("3.141590118408203125") - Fraction("3.14159")
    assert record["abs_error"] == float(error)
    assert record["rel_error"] == pytest.approx(record["abs_error"] / 3.14159)
    assert 0 < record["ulp_error"] <= 0.5
    assert record["ulp"] == 2.0**-22
    assert record["next_up"] == 3.141590118408203125 + 2.0**-22
    assert record["next_down"] == 3.141590118408203125 - 2.0**-22


@pytest.mark.parametrize(
    ("argv", "value", "kind"),
    [
        (["inf"], "inf", "inf"),
        (["-inf"], "-inf", "inf"),
        (["nan"], "nan", "nan"),
        (["1e39"], "inf", "inf"),
        (["--bits", "0x7FC00000"], "nan", "nan"),
        (["-0"], 0.0, "zero"),
    ],
)
def test_json_is_valid_for_special_values(capsys, argv, value, kind):
    status, out, _ = run(capsys, *argv, "--json")
    record = json_strict(out)
    assert status == 0
    assert (record["value"], record["kind"]) == (value, kind)
    if kind != "zero":
        assert record["exact"] is None
    else:
        assert record["exact"] == "-0"


def test_bits_json_has_no_rounding_error(capsys):
    record = json_strict(run(capsys, "--bits", "0x40490FDB", "--json")[1])
    assert record["mantissa"] == 4788187
    assert record["rounding"] is None
    assert record["abs_error"] is None
    assert record["exact"] == "3.1415927410125732421875"


# -- comparing formats, listing them ---------------------------------------------------------
def test_compare_two_formats(capsys):
    status, out, err = run(capsys, "0.1", "--format", "float32", "--format", "bfloat16")
    assert (status, err) == (0, "")
    assert "0x3DCCCCCD" in out and "0x3DCD" in out
    assert "0.100000001490116119384765625" in out


def test_compare_json_records(capsys):
    status, out, _ = run(capsys, "-1e6", "-f", "float32,half", "--json")
    records = json_strict(out)
    assert status == 0
    assert [r["format"] for r in records] == ["float32", "float16"]
    assert records[0]["stored"] == -1e6
    assert (records[1]["stored"], records[1]["flag"]) == ("-inf", "overflow")


def test_compare_all_formats(capsys):
    records = json_strict(run(capsys, "nan", "-f", "all", "--json")[1])
    assert [r["format"] for r in records] == list(FORMATS)
    without_nan = {"float6_e3m2fn", "float6_e2m3fn", "float4_e2m1fn"}
    assert {r["format"] for r in records if r["flag"] == "no NaN"} == without_nan


def test_compare_respects_rounding(capsys):
    up = json_strict(run(capsys, "0.1", "-f", "half,bf16", "--rounding", "up", "--json")[1])
    down = json_strict(run(capsys, "0.1", "-f", "half,bf16", "--rounding", "down", "--json")[1])
    assert all(u["stored"] > 0.1 > d["stored"] for u, d in zip(up, down, strict=True))


def test_compare_cannot_saturate(capsys):
    status, _, err = run(capsys, "1e6", "-f", "half,e4m3", "--saturate")
    assert status == 2 and "one format" in err


def test_list_formats(capsys):
    status, out, _ = run(capsys, "--list-formats")
    assert status == 0
    headers = [line.split() for line in out.splitlines() if line.startswith("property")]
    assert [name for header in headers for name in header[1:]] == list(FORMATS)
    assert "65504.0" in out


def test_list_some_formats_as_json(capsys):
    records = json_strict(run(capsys, "--list-formats", "-f", "half,e4m3", "--json")[1])
    facts = {r["format"]: (r["max"], r["bits"]) for r in records}
    assert facts == {"float16": (65504.0, 16), "float8_e4m3fn": (448.0, 8)}


# -- counting ---------------------------------------------------------------------------------
def test_count_between_three_and_four(capsys):
    status, out, _ = run(capsys, "--count", "3", "4", "-f", "float32")
    assert status == 0
    assert out.split()[0] == "4194304"
    assert "2**23 = 8388608" in out


def test_count_across_formats(capsys):
    status, out, _ = run(capsys, "--count", "1", "2", "-f", "float16,bfloat16", "-f", "e4m3")
    assert status == 0
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[2:5]}
    assert rows == {"float16": "1024", "bfloat16": "128", "float8_e4m3fn": "8"}


def test_empty_range(capsys):
    assert run(capsys, "--count", "4", "3")[1] == (
        "0 values of float32 lie in [4, 3)\n"
        "the range is empty: LO = 4 is not below HI = 3 (LO <= v < HI)\n"
    )


def test_count_json(capsys):
    record = json_strict(run(capsys, "--count", "3", "4", "--json")[1])
    assert record["count"] == 4194304
    assert record["per_normal_binade"] == 2**23
    records = json_strict(run(capsys, "--count", "1", "2", "-f", "all", "--json")[1])
    full = [r for r in records if get_format(r["format"]).emax > 0]  # [1, 2) not the top binade
    assert [r["count"] for r in full] == [r["per_normal_binade"] for r in full]
    assert len(full) == len(records) - 1  # p3109_p7: its top binade [1, 2) ends in inf


# -- help, version ----------------------------------------------------------------------------
def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert (status, out) == (0, f"fpexplore {__version__}\n")


def test_help_documents_the_default_format(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert "default float32" in out
    assert "--bits" in out and "--count" in out and "--course" in out


# -- bad input --------------------------------------------------------------------------------
BAD_INPUT = {
    "not a number": (["abc"], "could not read 'abc' as a number"),
    "unknown format": (["1", "-f", "float7"], "unknown format 'float7'; did you mean float64"),
    "pattern too wide": (["--bits", "0x1FFFFFFFF"], "out of range for float32"),
    "pattern too short": (["--bits", "0101"], "needs exactly 32"),
    "not a pattern": (["--bits", "0xZZ"], "could not read '0xZZ' as a bit pattern"),
    "unknown rounding": (["1", "--rounding", "sideways"], "invalid choice: 'sideways'"),
    "stochastic rounding": (["1", "--rounding", "stochastic"], "invalid choice"),
    "missing value": ([], "missing VALUE"),
    "unknown option": (["1", "--colour-me"], "unrecognized arguments"),
    "count needs two": (["--count", "3"], "expected 2 arguments"),
    "count bound": (["--count", "3", "x"], "could not read 'x'"),
    "nan bound": (["--count", "nan", "1"], "lo must be a number"),
    "bits in two formats": (["--bits", "0x1", "-f", "half", "-f", "bf16"], "one format"),
    "two commands": (["--bits", "0x1", "--count", "1", "2"], "not allowed with"),
    "value with --count": (["5", "--count", "1", "2"], "takes no VALUE"),
    "rounding with --count": (["--count", "1", "2", "--rounding", "up"], "do not apply"),
    "output without plot": (["1", "-o", "x.png"], "go with --plot"),
    "bad color": (["1", "--color", "sometimes"], "invalid choice"),
    "nan in fp4": (["nan", "-f", "fp4"], "no NaN encoding"),
    "huge exponent": (["1e" + "9" * 101], "decimal exponent of more than 100 digits"),
}


@pytest.mark.parametrize("case", BAD_INPUT, ids=list(BAD_INPUT))
def test_bad_input_is_one_line_and_status_2(capsys, case):
    argv, expected = BAD_INPUT[case]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("fpexplore: error: ")
    assert expected in err
    assert "Traceback" not in err


def test_unknown_format_message_lists_the_known_ones(capsys):
    err = run(capsys, "1", "-f", "quad")[2]
    for name in ("float64", "float32", "bfloat16", "float16", "float8_e4m3fn", "eXmY"):
        assert name in err


# -- the installed command --------------------------------------------------------------------
def _command() -> list[str]:
    script = shutil.which("fpexplore", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "fpexplore"]


def test_console_script_runs():
    environment = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [*_command(), "-1e-8", "-f", "half"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "-0 (exactly)" in done.stdout
    assert ANSI not in done.stdout
    bad = subprocess.run(
        [*_command(), "pi"], capture_output=True, text=True, timeout=60, check=False
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert bad.stdout == ""


def test_python_dash_m():
    done = subprocess.run(
        [sys.executable, "-m", "fpexplore", "--bits", "0x3C00", "-f", "half", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json_strict(done.stdout)["value"] == 1.0


# -- figures ----------------------------------------------------------------------------------
PNG = b"\x89PNG\r\n\x1a\n"

PLOTS = {
    "bits": ["3.14159", "--plot", "bits"],
    "bits float64": ["0.1", "--plot", "bits", "-f", "float64"],
    "number_line": ["--plot", "number_line", "-f", "e4m3"],
    "number_line window": ["--plot", "number_line", "-f", "bf16", "--range", "3", "4"],
    "spacing": ["--plot", "spacing"],
    "relative_error": ["--plot", "relative_error", "-f", "half"],
    "absolute_error": ["--plot", "absolute_error", "-f", "e5m2"],
    "density": ["--plot", "density", "-f", "e4m3"],
    "format_map": ["--plot", "format_map", "-f", "all"],
    "error_histogram": ["--plot", "error_histogram", "-f", "half,e4m3", "--range", "-1", "1"],
    "softmax_demo": ["--plot", "softmax_demo"],
    "matmul_error": ["--plot", "matmul_error"],
}


@pytest.mark.parametrize("case", PLOTS, ids=list(PLOTS))
def test_plot_writes_only_the_file_asked_for(capsys, tmp_path, monkeypatch, case):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *PLOTS[case], "--output", "figure.png")
    assert (status, err) == (0, ""), err
    assert out == "wrote figure.png\n"
    assert [path.name for path in tmp_path.iterdir()] == ["figure.png"]
    assert (tmp_path / "figure.png").read_bytes().startswith(PNG)


def test_plot_never_overwrites_without_force(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "density.png"
    target.write_bytes(b"my homework")
    argv = ["--plot", "density", "-f", "e2m1", "-o", str(target)]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "--force" in err
    assert target.read_bytes() == b"my homework"
    assert run(capsys, *argv, "--force")[0] == 0
    assert target.read_bytes().startswith(PNG)


def test_plot_without_matplotlib(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    status, out, err = run(capsys, "--plot", "density", "-o", str(tmp_path / "d.png"))
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("fpexplore: error: plotting needs matplotlib")
    assert err.endswith('pip install -e ".[plot]"\n') and "from a clone" in err
    assert not (tmp_path / "d.png").exists()


BAD_PLOTS = {
    "no output": (["--plot", "density"], "needs --output"),
    "unknown suffix": (["--plot", "density", "-o", "d.jpg"], "ending in .png"),
    "missing folder": (["--plot", "density", "-o", "no/such/d.png"], "does not exist"),
    "bits without value": (["--plot", "bits", "-o", "b.png"], "needs a VALUE"),
    "value not used": (["1", "--plot", "density", "-o", "d.png"], "takes no VALUE"),
    "two formats": (["--plot", "density", "-f", "half,bf16", "-o", "d.png"], "one format"),
    "too many ticks": (["--plot", "number_line", "--range", "1", "2", "-o", "n.png"], "max_ticks"),
    "bad range": (["--plot", "relative_error", "--range", "4", "1", "-o", "r.png"], "LO < HI"),
    "range not a number": (["--plot", "spacing", "--range", "a", "1", "-o", "s.png"], "'a'"),
    "unknown plot": (["--plot", "pie", "-o", "p.png"], "invalid choice: 'pie'"),
    "rounding": (["--plot", "density", "--rounding", "up", "-o", "d.png"], "do not apply"),
}


@pytest.mark.parametrize("case", BAD_PLOTS, ids=list(BAD_PLOTS))
def test_bad_plot_requests(capsys, tmp_path, monkeypatch, case):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    argv, expected = BAD_PLOTS[case]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("fpexplore: error: ") and err.count("\n") == 1
    assert expected in err
    assert list(tmp_path.iterdir()) == []


def test_every_mixed_figure_is_reachable(capsys, tmp_path):
    from fpexplore.cli.plot import MIXED_PLOT_NAMES
    from fpexplore.plot import mixed

    drawn = {f"plot_{name}" for name in MIXED_PLOT_NAMES}
    assert drawn == set(mixed.__all__) - {"plot_policy_comparison"}  # that one needs training
    assert main(["--plot", "running_sums", "-o", str(tmp_path / "sums.png")]) == 0
    assert (tmp_path / "sums.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["--plot", "running_sums", "-f", "half", "-o", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
