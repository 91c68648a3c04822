"""The tabulated formats (fnuz, P3109, E8M0, no mantissa bits): every code against gfloat
and the oracle, every midpoint in every mode, the signs of zero, neighbours, stochastic
rounding, and a family of edge formats through every public function."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import FORMATS, Format, get_format
from fpexplore import codes as K
from fpexplore.core.census import float_census
from tests.oracle import finite_values, oracle_round

MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]
EDGE = {
    f.name: f
    for f in (
        Format("s8m0", 8, 0, 127, "fn"),  # signed, no mantissa bits: zero and powers of two
        Format("e3m0none", 3, 0, 2, "none"),
        Format("e1m1fn", 1, 1, 0, "fn"),
        Format("e1m2p3109", 1, 2, 1, "p3109"),
        Format("e2m1fnuz", 2, 1, 1, "fnuz"),
        Format("u5m0", 5, 0, 15, "fn", is_signed=False, has_subnormals=False),
        Format("u3m2", 3, 2, 3, "fn", is_signed=False, has_subnormals=False),
        Format("u4m1", 4, 1, 7, "fn", is_signed=False),
        Format("p3109_k16p8", 8, 7, 128, "p3109"),  # 16 bits: the widest tabulated
    )
}
NEW = [n for n, f in FORMATS.items() if f.tabulated]
TABULATED = {**{n: FORMATS[n] for n in NEW}, **EDGE}


def as_oracle(code: int, fmt: Format) -> Fraction | str:
    parts = fpx.from_bits(code, fmt)
    if parts.kind == "nan":
        return "nan"
    if parts.kind == "inf":
        return "-inf" if parts.sign else "inf"
    return parts.exact


# -- P3109 against gfloat ------------------------------------------------------------------
gfloat = pytest.importorskip("gfloat")
GFLOAT_MODES = {
    "nearest_even": gfloat.RoundMode.TiesToEven,
    "nearest_away": gfloat.RoundMode.TiesToAway,
    "toward_zero": gfloat.RoundMode.TowardZero,
    "up": gfloat.RoundMode.TowardPositive,
    "down": gfloat.RoundMode.TowardNegative,
}


def _gfloat_info(p: int):
    from gfloat.formats import format_info_p3109

    return format_info_p3109(8, p)


@pytest.mark.parametrize("p", range(1, 8))
def test_p3109_every_code_against_gfloat(p: int) -> None:
    fmt, info = get_format(f"p3109_p{p}"), _gfloat_info(p)
    codes = np.arange(256)
    ours = K.codes_to_values(codes, fmt)
    theirs = np.array([gfloat.decode_float(info, int(c)).fval for c in codes])
    np.testing.assert_array_equal(ours, theirs)  # NaN at 0x80 only, +-inf at 0x7F, 0xFF
    numbers = ~np.isnan(ours)  # the NaN's sign bit means nothing (ml_dtypes sets it)
    np.testing.assert_array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))
    assert (fmt.max, fmt.smallest_normal, fmt.eps) == (info.max, info.smallest_normal, info.eps)


@pytest.mark.parametrize("p", range(1, 8))
@pytest.mark.parametrize("mode", MODES)
def test_p3109_rounding_against_gfloat(p: int, mode: str) -> None:
    fmt, info = get_format(f"p3109_p{p}"), _gfloat_info(p)
    values = np.array([float(v) for v in finite_values(fmt)])
    up = fmt.max + 2.0 ** (fmt.emax - fmt.mantissa_bits)
    mids = np.concatenate([(values[1:] + values[:-1]) / 2, [(fmt.max + up) / 2, up, 2 * up]])
    x = np.concatenate([mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf), values])
    x = np.concatenate([x, -x, [np.inf, -np.inf]])
    ours = K.round_values(x, fmt, mode)
    theirs = gfloat.round_ndarray(info, x, GFLOAT_MODES[mode])
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))  # +0, never -0


# -- every midpoint in every mode against the oracle ------------------------------------
@pytest.mark.parametrize("name", TABULATED)
@pytest.mark.parametrize("mode", MODES)
def test_every_midpoint_against_oracle(name: str, mode: str) -> None:
    fmt = TABULATED[name]
    values = finite_values(fmt)
    step = Fraction(2) ** (fmt.emax - fmt.mantissa_bits)
    points = [*values, values[-1] + step, 2 * values[-1] + 3 * step]
    mids = [(a + b) / 2 for a, b in itertools.pairwise(points)]
    if len(mids) > 600:  # the 16-bit format: a seeded sample, both ends included
        keep = sorted({0, 1, len(mids) - 2, len(mids) - 1, *range(0, len(mids), 97)})
        values, mids = [values[i] for i in keep if i < len(values)], [mids[i] for i in keep]
    tiny = Fraction(1, 2**300)
    xs = [*values, *mids, *(m + tiny for m in mids), *(m - tiny for m in mids), values[0] / 3]
    xs += [-x for x in xs]
    for x in xs:  # exact inputs through decode
        got = as_oracle(fpx.decode(x, fmt, rounding=mode).code, fmt)
        assert got == oracle_round(x, fmt, mode), (name, mode, x)
    floats = np.array([float(x) for x in xs if float(x) == x])  # the float64 kernels
    codes = K.round_codes(floats, fmt, mode)
    for x, code in zip(floats.tolist(), codes.tolist(), strict=True):
        assert as_oracle(code, fmt) == oracle_round(Fraction(x), fmt, mode), (name, mode, x)


@pytest.mark.parametrize("name", TABULATED)
def test_specials_and_saturation_match_exact(name: str) -> None:
    fmt = TABULATED[name]
    x = np.array([np.inf, -np.inf, 1e300, -1e300, 0.0, -0.0, 5e-324, -5e-324])
    if fmt.has_nan:
        x = np.append(x, [np.nan, -np.nan])
    for mode in MODES:
        for overflow in (None, "saturate"):
            ours = K.round_codes(x, fmt, mode, overflow=overflow).tolist()
            expected = [fpx.decode(v, fmt, rounding=mode, overflow=overflow).code for v in x]
            assert ours == expected, (name, mode, overflow)


@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "float8_e5m2fnuz", "p3109_p3", "p3109_p1"])
def test_no_negative_zero(name: str) -> None:
    fmt = get_format(name)
    tiny = np.array([-0.0, -1e-30, -fmt.smallest_subnormal / 4])
    for mode in ("nearest_even", "nearest_away", "toward_zero", "up"):
        assert K.round_codes(tiny, fmt, mode).tolist() == [0, 0, 0], mode
        assert fpx.decode("-1e-30", fmt, rounding=mode).code == 0
    assert K.round_codes(tiny, fmt, "down").tolist() == [0, 0x81, 0x81]
    assert not np.signbit(fpx.round_to(tiny, fmt)).any()


def test_e8m0_out_of_range_inputs() -> None:
    # ml_dtypes: zero and negatives are NaN, tiny positives the smallest value 2**-127
    e8m0 = get_format("float8_e8m0fnu")
    x = np.array([0.0, -0.0, -1.0, 1e-300, 2.0**-127, 3.0, 2.0**128])
    np.testing.assert_array_equal(
        K.round_codes(x, e8m0), [0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x81, 0xFF]
    )
    assert K.round_codes(x, e8m0, "toward_zero").tolist()[3:] == [0xFF, 0x00, 0x80, 0xFE]
    assert K.round_codes(x, e8m0, "up").tolist()[3] == 0x00
    assert K.round_codes(x, e8m0, overflow="saturate").tolist()[-1] == 0xFE


@pytest.mark.parametrize("name", TABULATED)
def test_stochastic_rounding_stays_between_neighbours_and_is_unbiased(name: str) -> None:
    fmt = TABULATED[name]
    values = np.array([float(v) for v in finite_values(fmt)])
    lo, hi = values[-3], values[-2]
    x = lo + (hi - lo) * 0.3
    out = fpx.round_to(np.full(40_000, x), fmt, "stochastic", rng=5)
    assert set(np.unique(out)) <= {lo, hi}
    assert abs(out.mean() - x) < 4 * (hi - lo) * math.sqrt(0.21 / out.size)
    again = fpx.round_to(np.full(40_000, x), fmt, "stochastic", rng=5)
    np.testing.assert_array_equal(out, again)
    if fmt.is_signed:
        assert (fpx.round_to(np.full(100, -x), fmt, "stochastic", rng=1) <= -lo).all()


@pytest.mark.parametrize("name", TABULATED)
def test_neighbours_against_sorted_values(name: str) -> None:
    fmt = TABULATED[name]
    codes = np.arange(fmt.n_codes)
    values = K.codes_to_values(codes, fmt)
    ordered = np.unique(values[~np.isnan(values)])
    up, down = K.next_up_codes(codes, fmt), K.next_down_codes(codes, fmt)
    up_values, down_values = K.codes_to_values(up, fmt), K.codes_to_values(down, fmt)
    for v, u, d in zip(values.tolist(), up_values.tolist(), down_values.tolist(), strict=True):
        if v != v:
            assert u != u and d != d
            continue
        i = int(np.searchsorted(ordered, v))
        above = ordered[i + 1] if i + 1 < ordered.size else (v if v == np.inf else None)
        below = ordered[i - 1] if i > 0 else (v if v == -np.inf else None)
        assert u == above or (above is None and (u != u or (u == v and not fmt.has_nan)))
        assert d == below or (below is None and (d != d or (d == v and not fmt.has_nan)))


@pytest.mark.parametrize("name", TABULATED)
def test_every_public_function_handles_the_edge_formats(name: str) -> None:
    fmt = TABULATED[name]
    inputs = ["0.1", 1, -3, "1e-30", "1e30", 0]
    for x in inputs:
        for mode in MODES:
            parts = fpx.decode(x, fmt, rounding=mode)
            assert str(parts) and parts._repr_html_() and repr(parts)
            assert math.isnan(parts.abs_error) or parts.abs_error >= 0
    arr = np.array([0.1, 1.0, -3.0, 1e-30, 1e30, 0.0])
    for mode in [*MODES, "stochastic"]:
        rounded = fpx.round_to(arr, fmt, mode, rng=0)
        assert rounded.shape == arr.shape
    err = fpx.representation_error(arr, fmt)
    assert err.abs_error.shape == arr.shape
    fpx.ulp(arr, fmt), fpx.next_up(arr, fmt), fpx.next_down(arr, fmt)
    parts = fpx.decode_array(np.arange(fmt.n_codes), fmt)
    assert parts.value.shape == (fmt.n_codes,)
    total = fpx.count_between("-inf", "inf", fmt)
    assert total == fmt.n_finite + (1 if fmt.n_inf == 2 else 0)
    assert fpx.values_between("-inf", "inf", fmt, limit=None).size == total
    rows = fpx.binade_table(fmt)
    assert sum(r.count for r in rows) == fmt.n_positive
    assert float_census(fmt, progress=False).agrees()
    assert fmt._repr_html_() and str(fpx.compare("0.1", [fmt, "float16"]))
    assert str(fpx.format_table([fmt]))
    from fpexplore.core.rounding_explain import explain_rounding

    for x in ("0.3", "-2", "1e-40", "0"):
        ex = explain_rounding(x, fmt)
        assert str(ex) and ex.to_svg() and ex._repr_html_()
