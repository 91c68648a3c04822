"""Table rendering, format facts and compare()'s flags."""

import json
import re
from html.parser import HTMLParser

import pytest

import fpexplore
from fpexplore import FORMATS, compare, format_table
from fpexplore.render.comparison import (
    COMPARE_FORMATS,
    Table,
    format_facts,
    format_html,
    format_text,
)


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr":
            self.rows.append(self._row)

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _html_cells(html):
    parser = _Cells()
    parser.feed(html)
    return parser.rows


def _text_cells(table):
    lines = str(table).splitlines()
    start = 2 if table.title else 1  # title, header
    rule = lines[start]
    spans = [m.span() for m in re.finditer(r"-+", rule)]
    body = lines[start + 1 : start + 1 + len(table.rows)]
    return [[line[a:b].strip() if j < len(spans) - 1 else line[a:].strip()
             for j, (a, b) in enumerate(spans)] for line in body]  # fmt: skip


@pytest.mark.parametrize(
    "table",
    [format_table(), compare("0.1"), compare(1e6), compare("-inf"), compare(float("nan"))],
    ids=["formats", "0.1", "1e6", "-inf", "nan"],
)
def test_text_and_html_show_the_same_cells(table):
    html_rows = _html_cells(table._repr_html_())
    assert html_rows[0] == table.columns
    assert html_rows[1:] == table.cell_strings()
    assert _text_cells(table) == table.cell_strings()


@pytest.mark.parametrize("table", [format_table(), compare("0.1"), compare(1e6), compare("nan")])
def test_records_are_strict_json(table):
    records = table.to_records()
    assert len(records) == len(table.rows)
    text = json.dumps(records, allow_nan=False)
    assert json.loads(text) == records


def test_records_keep_raw_values():
    record = compare(1e6, ["float16"]).to_records()[0]
    assert record["stored"] == "inf" and record["abs_error"] == "inf"
    assert compare("0.1", ["float64"]).to_records()[0]["exact"] == (
        "0.1000000000000000055511151231257827021181583404541015625"
    )


def test_compare_flags_overflow_and_underflow_in_float16():
    assert compare(1e6, ["float16"]).to_records()[0]["flag"] == "overflow"
    assert compare(1e-10, ["float16"]).to_records()[0]["flag"] == "underflow"


def test_overflow_flag_follows_ieee():
    flags = {r["format"]: r["flag"] for r in compare(1e6).to_records()}
    assert flags == {
        "float64": "", "float32": "", "float16": "overflow", "bfloat16": "inexact",
        "tf32": "inexact",
        "float8_e4m3fn": "overflow", "float8_e5m2": "overflow", "float4_e2m1fn": "overflow",
    }  # fmt: skip
    # just above max but within half a spacing: rounds to max, no overflow
    assert compare(65505, ["float16"]).to_records()[0]["flag"] == "inexact"
    assert compare(65520, ["float16"]).to_records()[0]["flag"] == "overflow"  # the tie -> inf
    # toward zero saturates at max, and it is still an overflow
    row = compare(1e6, ["float16"], rounding="toward_zero").to_records()[0]
    assert (row["stored"], row["flag"]) == (65504.0, "overflow")


def test_underflow_flag_is_about_lost_bits():
    row = lambda x: compare(x, ["float16"]).to_records()[0]  # noqa: E731
    assert row(2.0**-24)["flag"] == ""  # an exact subnormal
    assert row("1e-6")["flag"] == "underflow"  # an inexact subnormal
    assert row("1e-6")["kind"] == "subnormal"
    assert row(0)["flag"] == "" and row(1.0)["flag"] == ""
    # tininess after rounding: just below the smallest normal, rounded up to it
    assert row("6.103e-5")["kind"] == "normal" and row("6.103e-5")["flag"] == "inexact"
    assert row("6.1e-5")["kind"] == "subnormal" and row("6.1e-5")["flag"] == "underflow"


def test_inexact_flag_marks_every_other_rounded_value():
    flags = {r["format"]: r["flag"] for r in compare("0.1").to_records()}
    assert set(flags.values()) == {"inexact", "underflow"}  # inexact in every binary format
    flags = {r["format"]: r["flag"] for r in compare(0.5).to_records()}
    assert set(flags.values()) == {""}  # and 0.5 exact in all of them


def test_infinite_and_nan_inputs():
    flags = {r["format"]: (r["stored"], r["flag"]) for r in compare("-inf").to_records()}
    assert flags["float16"] == ("-inf", "")
    assert flags["float4_e2m1fn"] == (-6.0, "saturated")
    assert flags["float8_e4m3fn"] == ("nan", "inf -> NaN")
    nan_rows = compare(float("nan")).to_records()
    assert nan_rows[-1] == {**dict.fromkeys(nan_rows[-1]), "format": "float4_e2m1fn",
                            "flag": "no NaN"}  # fmt: skip


def test_compare_defaults_and_values():
    table = compare("0.1")
    assert [r["format"] for r in table.to_records()] == list(COMPARE_FORMATS)
    f32 = table.to_records()[1]
    assert f32["bits"] == "0x3DCCCCCD"
    assert f32["stored"] == 0.10000000149011612
    assert f32["ulp_error"] == pytest.approx(0.2)
    assert "0.10000000000000000555111512312…" in str(table)  # cut, with an ellipsis


def test_format_table_matches_the_format_objects():
    table = format_table()
    assert table.columns == ["property", *FORMATS]
    records = {r["property"]: r for r in table.to_records()}
    for name, fmt in FORMATS.items():
        for prop in ("bits", "bias", "eps", "max", "smallest_normal", "smallest_subnormal"):
            assert records[prop][name] == getattr(fmt, prop), (name, prop)
        assert records["n_finite"][name] == fmt.n_finite
        assert records["has_infinity"][name] is fmt.has_infinity
    assert records["max"]["float16"] == 65504.0
    assert records["max"]["float8_e4m3fn"] == 448.0


def test_format_table_matches_numpy_finfo():
    np = pytest.importorskip("numpy")
    records = {r["property"]: r for r in format_table(["float16", "float32"]).to_records()}
    for name in ("float16", "float32"):
        info = np.finfo(name)
        for prop in ("eps", "max", "smallest_normal", "smallest_subnormal", "precision"):
            assert records[prop][name] == getattr(info, prop), (name, prop)
        assert records["maxexp"][name] == info.maxexp
        assert records["minexp"][name] == info.minexp


def test_transpose():
    t = format_table(["float16", "bfloat16"]).transpose("format")
    assert t.columns[0] == "format" and t.columns[1:4] == ["bits", "exponent_bits", "mantissa_bits"]
    assert [r["format"] for r in t.to_records()] == ["float16", "bfloat16"]


def test_format_text_and_html():
    text = format_text("e4m3")
    assert text.splitlines()[0] == "float8_e4m3fn: 1 sign bit, 4 exponent bits, 3 mantissa bits"
    assert len(text.splitlines()) == 3 + len(format_facts("e4m3"))
    html = format_html("float16")
    assert "65504.0" in html and "exponent: 5" in html and "<script" not in html
    assert fpexplore.get_format("float16")._repr_html_() == html


def test_table_escapes_and_validates():
    t = Table(["a<b"], [["<script>x</script>"]], title="<i>t</i>", notes=["&"])
    html = t._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;i&gt;t&lt;/i&gt;" in html and "&amp;" in html
    with pytest.raises(ValueError, match="has 1 cells; expected 2"):
        Table(["a", "b"], [[1]])


def test_top_level_exports():
    assert "compare" in fpexplore.__all__ and "format_table" in fpexplore.__all__
    assert fpexplore.compare is compare


def test_repr_is_the_text_table():
    from fpexplore import format_table

    table = format_table(["float16", "bfloat16"])
    assert repr(table) == str(table)
    assert "\n" in repr(table)
