"""Short summaries: the first and last rows of a long table with a row of ``...``
between, as text and as HTML, built from the objects' own data."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

from fpexplore import (
    binade_table,
    decode,
    decode_array,
    float_census,
    get_format,
    representation_error,
)
from fpexplore.render.summary import (
    EDGE,
    arrays_table,
    binades_table,
    census_table,
    errors_table,
    shown_rows,
)
from fpexplore.render.table import Table


class _Cells(HTMLParser):
    """The text of every body cell, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "tr":
            self.rows.append([])
        self._in_cell = tag == "td"

    def handle_endtag(self, tag: str) -> None:
        self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.rows[-1].append(data)


def _html_rows(html: str) -> list[list[str]]:
    parser = _Cells()
    parser.feed(html)
    return [row for row in parser.rows if row]


@pytest.mark.parametrize("n", [0, 1, 2 * EDGE, 2 * EDGE + 1, 2 * EDGE + 2, 10**9])
def test_shown_rows(n: int) -> None:
    rows = shown_rows(n)
    if n <= 2 * EDGE + 1:
        assert rows == list(range(n))
    else:
        assert rows == [*range(EDGE), None, *range(n - EDGE, n)]


def test_ellipsis_rows_keep_numbers_right_aligned() -> None:
    t = Table(
        ["x", "name"], [[1.5, "a"], [..., ...], [1000, "b"]], formatters={"x": "{:.1f}".format}
    )
    lines = str(t).splitlines()
    assert lines[2:] == ["   1.5  a", "   ...  ...", "1000.0  b"]
    assert t.to_records()[1] == {"x": "...", "name": "..."}
    assert _html_rows(t._repr_html_())[1] == ["...", "..."]
    assert "text-align: right" in t._repr_html_()


def test_binades_first_and_last_rows() -> None:
    fmt = get_format("float32")
    rows = binade_table(fmt)
    t = binades_table(rows)
    assert len(t.rows) == 2 * EDGE + 1
    assert t.rows[0] == [-149, 2.0**-149, 2.0**-148, 1, 2.0**-149, "subnormal"]
    assert t.rows[EDGE] == [...] * 6
    assert t.rows[-1] == [127, 2.0**127, 2.0**128, 2**23, 2.0**104, "normal"]
    assert t.title == "float32: 277 binades of positive values, 2**-149 to 2**128"
    assert t.notes == [f"{fmt.max_code:,} positive finite values: 23 subnormal binades, 254 normal"]
    html_rows = _html_rows(t._repr_html_())
    assert (
        html_rows[0][0] == "-149" and html_rows[EDGE] == ["..."] * 6 and html_rows[-1][0] == "127"
    )


def test_census_rows_are_the_comparison() -> None:
    census = float_census("bfloat16", progress=False)
    compared = census.compare()
    t = census_table(census)
    first, last = compared[0], compared[-1]
    assert t.rows[0] == [0, 0, float(first.lo), float(first.hi), 127, 127, True]
    assert t.rows[-1][:2] == [1, 254] and t.rows[-1][4:] == [last.census, last.closed_form, True]
    assert t.notes == [
        "zero 2, subnormal 254, normal 65,024, inf 2, nan 254",
        f"{len(compared)} of {len(compared)} binades agree with count_between",
    ]


def test_errors_rows_and_totals() -> None:
    x = np.linspace(0.1, 100.0, 1001)
    err = representation_error(x, "float8_e4m3fn")
    t = errors_table(err)
    assert t.rows[0] == [0, 0.1, float(err.rounded[0]), *(float(getattr(err, n)[0]) for n in (
        "abs_error", "rel_error", "ulp_error"))]  # fmt: skip
    assert t.rows[-1][0] == 1000 and t.rows[-1][1] == 100.0
    s = err.summary()
    assert t.notes[0].startswith(f"max: abs_error {s['max_abs_error']:.3g}, ")
    assert t.title == "representation error of 1,001 values stored in float8_e4m3fn"


def test_arrays_rows_match_decode() -> None:
    x = np.array([[0.0, -2.5, 1e-6], [np.inf, np.nan, 65504.0]])
    parts = decode_array(x, "float16")
    t = arrays_table(parts)
    kinds = "zero 1, subnormal 1, normal 2, inf 1, nan 1"
    assert t.title == f"6 float16 values (shape (2, 3)), decoded: {kinds}"
    for row, value in zip(t.rows, x.ravel(), strict=True):
        p = decode(value, "float16")
        assert row[1:6] == [p.hex, p.sign, p.exponent, p.mantissa, p.kind.value]
        assert row[6] == p.value or (np.isnan(row[6]) and np.isnan(p.value))
    assert [row[0] for row in t.rows] == [
        "(0, 0)",
        "(0, 1)",
        "(0, 2)",
        "(1, 0)",
        "(1, 1)",
        "(1, 2)",
    ]


def test_scalar_and_empty_inputs() -> None:
    assert "(shape ())" in errors_table(representation_error(0.1, "float16")).title
    empty = arrays_table(decode_array(np.array([], dtype=np.float64), "float16"))
    assert empty.rows == [] and empty.title.endswith("decoded: none")
