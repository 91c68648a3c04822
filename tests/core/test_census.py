"""float_census: every code classified and counted, against numpy and count_between."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fpexplore import FORMATS, Format, get_format
from fpexplore.core.census import Census, float_census


@pytest.mark.parametrize("name", [n for n, f in FORMATS.items() if f.bits <= 16])
def test_whole_small_formats_agree_with_closed_form(name: str) -> None:
    fmt = get_format(name)
    census = float_census(fmt, progress=False)
    assert census.total == fmt.n_codes
    kinds = census.by_kind()
    assert kinds["inf"] == fmt.n_inf and kinds["nan"] == fmt.n_nan
    signs = 2 if fmt.is_signed else 1
    assert kinds["zero"] == (2 if fmt.has_negative_zero else int(fmt.has_zero))
    assert kinds["subnormal"] == signs * (2**fmt.mantissa_bits - 1) * fmt.has_subnormals
    rows = census.compare()
    assert len(rows) == signs * (fmt.max_exponent_field + 1)
    assert all(row.agrees for row in rows)
    assert census.agrees()


def test_float16_counts_match_numpy_reading_every_code() -> None:
    census = float_census("float16", progress=False, workers=2)
    codes = np.arange(2**16, dtype=np.uint16)
    with np.errstate(invalid="ignore"):
        values = codes.view(np.float16).astype(np.float64)
    kind = np.select(
        [np.isnan(values), np.isinf(values), values == 0, np.abs(values) < 2.0**-14],
        [4, 3, 0, 1],
        default=2,
    )
    expected = np.zeros((2, 32, 5), np.int64)
    np.add.at(expected, (codes >> 15, (codes >> 10) & 31, kind), 1)
    np.testing.assert_array_equal(census.counts, expected)


def test_float32_slices_agree_with_closed_form() -> None:
    low = float_census(
        "float32", progress=False, start=0, stop=1 << 24
    )  # +0, subnormals, [2**-126, 2**-125)
    assert low.by_kind() == {
        "zero": 1, "subnormal": 2**23 - 1, "normal": 2**23, "inf": 0, "nan": 0,
    }  # fmt: skip
    assert [(r.sign, r.exponent, r.census) for r in low.compare()] == [
        (0, 0, 2**23 - 1),
        (0, 1, 2**23),
    ]
    top = float_census("float32", progress=False, start=0xFF000000, stop=1 << 32)
    assert top.by_kind() == {"zero": 0, "subnormal": 0, "normal": 2**23, "inf": 1, "nan": 2**23 - 1}
    (row,) = top.compare()  # the top binade of negatives; field 255 holds no finite value
    assert (row.sign, row.exponent, row.census, row.closed_form) == (1, 254, 2**23, 2**23)
    assert low.agrees() and top.agrees()
    partial = float_census("float32", progress=False, start=5, stop=(3 << 23) + 7)
    assert [row.exponent for row in partial.compare()] == [1, 2]  # binade 0 and 3 only in part
    assert partial.total == (3 << 23) + 2


def test_a_wrong_count_is_caught() -> None:
    census = float_census("float8_e4m3fn", progress=False)
    counts = census.counts.copy()
    counts[0, 7, 2] -= 1  # one code of [1, 2) lost
    counts[0, 7, 0] += 1
    broken = dataclasses.replace(census, counts=counts)
    assert not broken.agrees()
    assert [(r.sign, r.exponent) for r in broken.compare() if not r.agrees] == [(0, 7)]


def test_custom_formats_and_fn_top_binade() -> None:
    for fmt in (Format.ieee_like(3, 4), Format("e4m3b3", 4, 3, 3, "fn"), get_format("e2m1")):
        assert float_census(fmt, progress=False).agrees(), fmt


def test_progress_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    float_census("bfloat16", progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "bfloat16 census: 100.0% of 65,536 codes" in captured.err
    float_census("bfloat16")  # not a terminal: quiet
    assert capsys.readouterr().err == ""


def test_refuses_wide_formats_and_bad_ranges() -> None:
    with pytest.raises(ValueError, match="too many to enumerate"):
        float_census("float64")
    with pytest.raises(ValueError, match="expected 0 <= start <= stop"):
        float_census("float16", start=10, stop=5)
    text = str(float_census("float4_e2m1fn", progress=False))
    assert "16 codes" in text and "8 of 8 binades agree" in text
    assert isinstance(float_census("e4m3", progress=False, start=0, stop=0), Census)
