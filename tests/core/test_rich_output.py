"""Objects with many rows print a short summary and show as an HTML table: the
binade table, a census, representation errors and decoded arrays."""

from __future__ import annotations

import pickle

import numpy as np

from fpexplore import (
    Binade,
    BinadeTable,
    binade_table,
    decode_array,
    float_census,
    get_format,
    representation_error,
)


def _is_short(text: str, lines: int = 14) -> bool:
    return len(text.splitlines()) <= lines and all(len(line) <= 100 for line in text.splitlines())


def test_binade_table_prints_a_summary_and_stays_a_list() -> None:
    table = binade_table("float64")
    text = str(table)
    assert _is_short(text) and len(text) < 1200  # the list's repr ran to 600,000 characters
    assert repr(table) == text
    assert text.splitlines()[0] == "float64: 2,098 binades of positive values, 2**-1074 to 2**1024"
    assert "..." in text and "subnormal" in text and "normal" in text.splitlines()[-2]
    assert isinstance(table, list) and isinstance(table[0], Binade) and len(table) == 2098
    assert table.format == get_format("float64")
    small = binade_table("float4_e2m1fn")
    assert [(b.exponent, b.count) for b in small] == [(-1, 1), (0, 2), (1, 2), (2, 2)]
    assert small == list(small) and "..." not in str(small)  # few rows: all shown


def test_binade_table_pickles_and_renders_html() -> None:
    table = binade_table("bfloat16")
    again = pickle.loads(pickle.dumps(table))
    assert isinstance(again, BinadeTable) and again == table and again.format == table.format
    html = table._repr_html_()
    assert html.count("<tr>") == 1 + 7 and "<caption" in html and "bfloat16" in html


def test_census_summary() -> None:
    census = float_census("float8_e4m3fn", progress=False)
    text = str(census)
    assert _is_short(text) and repr(census) == text
    first, *_, agree = text.splitlines()
    assert first.startswith("float8_e4m3fn census of codes [0x0, 0x100): 256 codes in ")
    assert agree == "32 of 32 binades agree with count_between"  # 16 fields a sign
    assert "zero 2, subnormal 14, normal 238, inf 0, nan 2" in text
    assert census._repr_html_().count("<tr>") == 1 + 7


def test_representation_error_summary() -> None:
    x = np.linspace(-3.0, 3.0, 1_000_000).reshape(1000, 1000)
    err = representation_error(x, "float16")
    text = str(err)
    assert _is_short(text) and repr(err) == text
    lines = text.splitlines()
    assert (
        lines[0]
        == "representation error of 1,000,000 values (shape (1000, 1000)) stored in float16"
    )
    assert lines[3].split()[:2] == ["(0,", "0)"] and lines[-3].split()[:2] == ["(999,", "999)"]
    assert lines[-2].startswith("max: abs_error ") and "ulp_error 0.5" in lines[-2]
    assert "<table" in err._repr_html_()


def test_array_parts_summary_decodes_only_the_rows_shown() -> None:
    codes = np.arange(2**16, dtype=np.uint16)
    parts = decode_array(codes, "float16")
    text = str(parts)
    assert "value" not in vars(parts)  # the 65,536 values were not computed
    assert _is_short(text) and repr(parts) == text
    lines = text.splitlines()
    assert lines[0] == (
        "65,536 float16 values, decoded: zero 2, subnormal 2,046, normal 61,440, inf 2, nan 2,046"
    )
    assert lines[3].split() == ["0", "0x0000", "0", "0", "0", "zero", "0.0"]
    assert lines[-1].split() == ["65535", "0xFFFF", "1", "31", "1023", "nan", "nan"]
    html = parts._repr_html_()
    assert html.count("<tr>") == 1 + 7 and "0xFFFF" in html
