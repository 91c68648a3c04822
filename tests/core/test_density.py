"""count_between / values_between / binade_table against brute-force enumeration."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from fpexplore import binade_table, count_between, get_format, values_between
from fpexplore.codes import codes_to_values

ENUMERABLE = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn",
              "float6_e3m2fn", "float4_e2m1fn", "e3m4"]  # fmt: skip


@cache
def every_value(name: str) -> np.ndarray:
    """All distinct non-NaN values of a small format (zero once), sorted."""
    fmt = get_format(name)
    values = codes_to_values(np.arange(fmt.n_codes, dtype=np.uint32), fmt)
    values = values[~np.isnan(values)]
    return np.unique(values)  # -0 and +0 collapse


def brute_count(lo: float, hi: float, name: str) -> int:
    v = every_value(name)
    return int(((v >= lo) & (v < hi)).sum())


@pytest.mark.parametrize("name", ENUMERABLE)
def test_count_between_equals_brute_force(name: str) -> None:
    rng = np.random.default_rng(len(name))
    v = every_value(name)
    finite = v[np.isfinite(v)]
    bounds = np.concatenate([finite[rng.integers(0, finite.size, 60)],
                             rng.uniform(-1, 1, 30) * finite.max() * 1.1,
                             [0.0, -0.0, np.inf, -np.inf, finite.max() * 2]])  # fmt: skip
    for lo in bounds[::3]:
        for hi in bounds:
            assert count_between(lo, hi, name) == brute_count(lo, hi, name), (lo, hi)


def test_claim_7_equal_counts_per_binade() -> None:
    for name in ("float16", "float32", "float64", "bfloat16"):
        fmt = get_format(name)
        per_binade = 2**fmt.mantissa_bits
        assert count_between(1, 2, name) == per_binade
        for n in (fmt.emin, -3, 5, fmt.emax):
            assert count_between(Fraction(2) ** n, Fraction(2) ** (n + 1), name) == per_binade


def test_claim_5_values_between_3_and_4() -> None:
    assert count_between(3, 4, "float32") == 2**22
    assert count_between(3, 4, "float16") == 2**9
    assert count_between(3, 4, "float64") == 2**51


def test_where_claim_7_stops_holding() -> None:
    f16 = get_format("float16")
    assert count_between(2.0**-24, 2.0**-23, f16) == 1  # lowest subnormal binade
    assert count_between(2.0**-15, 2.0**-14, f16) == 2**9  # top subnormal binade: half
    assert count_between(256, 512, "e4m3") == 7  # top binade: S.1111.111 is NaN
    table = binade_table("float16")
    assert [b.count for b in table if b.kind == "normal"] == [1024] * 30
    assert [b.count for b in table if b.kind == "subnormal"] == [2**j for j in range(10)]
    assert all(b.spacing * b.count == b.hi - b.lo for b in table)


def test_exact_bounds_and_zero_once() -> None:
    assert count_between("-0", "0", "float16") == 0
    assert count_between(-0.0, 1e-30, "float16") == 1  # zero, once
    assert count_between("0.1", "0.2", "float16") == brute_count(0.1, 0.2, "float16")
    assert count_between("-inf", "inf", "float16") == 1 + 2 * 31743 + 1
    assert count_between(5, 3, "float32") == 0
    assert count_between("-inf", "inf", "float64") == 2**64 - 2**53


def test_values_between() -> None:
    assert values_between(1, 2, "e4m3").tolist() == [1 + k / 8 for k in range(8)]
    assert values_between(-1, 0.5, "e2m1").tolist() == [-1.0, -0.5, 0.0]
    np.testing.assert_array_equal(values_between(-np.inf, np.inf, "e5m2"),
                                  every_value("e5m2")[:-1])  # fmt: skip
    with pytest.raises(ValueError, match="limit"):
        values_between(1, 2, "float32")
    assert values_between(1, 1.001, "float32").size == count_between(1, 1.001, "float32")


def test_bad_bounds() -> None:
    with pytest.raises(ValueError, match="lo"):
        count_between("nan", 1, "float16")
    with pytest.raises(ValueError, match="could not read"):
        count_between("one", 2, "float16")
    with pytest.raises(TypeError):
        count_between(None, 2, "float16")


def test_values_between_in_float64_windows() -> None:
    values = values_between(8, 8 + 2**-44, "float64")
    assert values.tolist() == [8 + k * 2**-49 for k in range(32)]
    assert values_between(-(2**-1070), 2**-1072, "float64").size == 16 + 1 + 3
    top = values_between(1.7976931348623157e308, "inf", "float64")
    assert top.tolist() == [1.7976931348623157e308]
    assert values_between("inf", "inf", "float64").size == 0
    assert values_between(-np.inf, -1.7976931348623157e308, "float64").tolist() == [-np.inf]


def test_values_between_without_limit() -> None:
    assert values_between(1, 2, "float16", limit=None).size == 1024
