"""The facts the course's prose relies on, checked against independent oracles (exact
fractions, numpy, ml_dtypes, the error function): if one of them changed, a sentence of
a notebook would become wrong.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
F16 = fpx.get_format("float16")
E4M3 = fpx.get_format("float8_e4m3fn")


def _markdown(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


# -- 04b: 0.1 + 0.2, integers, digits ----------------------------------------------


def test_the_exact_sum_of_0_1_and_0_2_is_a_tie_broken_upward():
    lower = Fraction(0.3)
    upper = Fraction(np.nextafter(0.3, 1.0))
    exact = Fraction(0.1) + Fraction(0.2)
    assert exact == (lower + upper) / 2  # exactly halfway: a tie
    assert Fraction(0.1 + 0.2) == upper  # ties to even picks the upper neighbour...
    bits = np.array([0.3, 0.1 + 0.2]).view(np.uint64)
    assert (bits % 2).tolist() == [1, 0]  # ...whose last mantissa bit is 0


def test_max_safe_integer_is_2_to_the_53_minus_1():
    safe = 2**53 - 1
    assert float(safe) == safe and float(safe + 1) == safe + 1  # n and n + 1 exact
    assert float(safe + 2) == float(safe + 1)  # 2**53 + 1 rounds to 2**53
    assert all(float(n) == n for n in range(safe - 5, safe + 2))


@pytest.mark.parametrize(("fmt", "digits"), [("float16", 5), ("float32", 9), ("float64", 17)])
def test_digits_that_name_every_value(fmt, digits):
    p = fpx.get_format(fmt).mantissa_bits + 1
    assert 1 + math.ceil(p * math.log10(2)) == digits  # IEEE 754-2019 5.12.2
    dtype, uint = np.dtype(fmt), np.dtype(f"uint{fpx.get_format(fmt).bits}")
    top = {"float16": 0x7C00, "float32": 0x7F80_0000, "float64": 0x7FF0 << 48}[fmt]
    codes = np.random.default_rng(1).integers(1, top, 3000, dtype=uint)
    values = codes.view(dtype).astype(float)
    back = [fpx.decode(f"{v:.{digits}g}", fmt).value for v in values]
    assert back == values.tolist()
    short = [fpx.decode(f"{v:.{digits - 1}g}", fmt).value for v in values]
    assert short != values.tolist()  # one digit fewer fails for some
    assert float(f"{0.1 + 0.2:.16g}") != 0.1 + 0.2  # 16 digits of the sum read back as 0.3


# -- 04b: sums and accumulators -------------------------------------------------------


def test_four_values_isolate_the_accumulator():
    x = np.array([0, 1, 2**-11, 2**-11], np.float16)
    assert float(x.sum()) == 1 + 2**-10  # numpy: float32 partial sums, one rounding at the end
    assert fpx.sum(x, "float16").value == 1.0  # a float16 running sum never leaves 1
    assert fpx.sum(x, "float16", accumulate="float32").value == 1 + 2**-10
    assert float(np.float16(1 + 2**-11)) == 1.0  # the tie rounds to even, back to 1
    running = np.float16(0)
    for v in x:  # numpy's own float16 additions, one at a time
        running = np.float16(running + v)
    assert float(running) == 1.0


def test_random_sums_leave_no_lucky_float16_result():
    x = np.random.default_rng(0).random(10_000)
    for order in ("pairwise", "kahan"):
        s = fpx.sum(x, "float16", order=order)
        own = float(abs(s.value - s.stored_exact) / s.stored_exact)
        assert 1e-5 < own <= 2 * F16.eps / 2  # no luck: the result's own rounding shows
    assert fpx.sum(x, "float16").value == 2048.0  # the running sum stalls


def test_sterbenz_on_every_float16_pair_in_half_to_two():
    v = fpx.values_between(0.5, 2, "float16")
    x, y = np.meshgrid(v, v)
    within = (y / 2 <= x) & (x <= 2 * y)
    difference = x - y  # exact in float64
    assert np.all(difference[within].astype(np.float16).astype(np.float64) == difference[within])


# -- 04b: flags, numpy, special values -------------------------------------------------


def test_tininess_after_rounding_raises_no_underflow_where_before_would():
    a, b = 2**-7 * (1 - 2**-6), 2**-7 * (1 + 2**-6)
    r = fpx.mul(a, b, "float16")
    assert r.exact == Fraction(2**-14) * (1 - Fraction(1, 2**12))
    assert r.exact < F16.smallest_normal  # tiny before rounding (ARM's default)...
    assert r.value == F16.smallest_normal  # ...not after (x86, fpexplore)
    assert r.flags == {"inexact"}


def test_numpy_ignores_underflow_by_default():
    assert np.geterr()["under"] == "ignore"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of any kind
        assert np.float16(1e-4) * np.float16(1e-4) == 0.0
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        np.float16(1e-4) ** 2


def test_signed_zero_and_nan_as_the_notebook_shows():
    assert math.copysign(1, fpx.mul("-1e-4", "1e-4", "float16").value) == -1
    assert fpx.div(1, "-0", "float16").value == -math.inf
    assert math.copysign(1, fpx.sqrt("-0", "float16").value) == -1
    assert math.copysign(1, fpx.add("-0", 0, "float16").value) == 1
    nan = float("nan")
    assert max(1.0, nan) == 1.0 and math.isnan(max(nan, 1.0))
    assert np.fmax(1.0, nan) == 1.0 and math.isnan(np.maximum(1.0, nan))
    assert nan**0 == 1.0
    assert fpx.add(nan, 1, "float16").flags == frozenset()


# -- 04 and 07: E4M3 overflow, one story ---------------------------------------------


def test_e4m3_converts_without_saturation_unless_asked():
    assert math.isnan(fpx.decode("70000", E4M3).value)  # non-saturating: NaN
    assert math.isnan(float(np.float32(70000).astype(ml_dtypes.float8_e4m3fn)))  # as ml_dtypes
    assert fpx.decode("70000", E4M3, overflow="saturate").value == 448  # saturating
    assert fpx.decode("70000", "float8_e5m2").value == math.inf
    assert math.isnan(fpx.mul(448, 2, E4M3).value)
    assert fpx.mul(448, 2, E4M3, overflow="saturate").value == 448
    scaled = fpx.scale_per_tensor(np.array([1.0, 2.0]), E4M3)
    assert np.isfinite(scaled.values).all()  # scaling saturates


def test_e4m3_rounds_up_to_464_to_448_and_the_report_clips_above():
    assert fpx.decode(464, E4M3).value == 448  # a tie, to the even 448
    assert math.isnan(fpx.decode(465, E4M3).value)
    assert E4M3.max + float(fpx.ulp(E4M3.max, E4M3)) / 2 == 464
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 256))
    blocks = np.abs(x).reshape(-1, 32)
    amax = blocks.max(axis=1)
    scale = np.exp2(np.floor(np.log2(amax)) - E4M3.emax)
    (row,) = fpx.tensor_report(x, ["mxfp8_e4m3"]).to_records()
    assert row["clipped"] == int(np.sum(blocks / scale[:, None] > 464)) and row["overflow"] == 0
    assert row["clipped"] < int(np.sum(blocks / scale[:, None] > 448))  # some round anyway


def test_e4m3_weights_lie_mostly_below_its_smallest_normal():
    sd = 0.02
    share = math.erf(E4M3.smallest_normal / (sd * math.sqrt(2)))  # P(|w| < 2**-6)
    assert 0.55 < share < 0.58
    w = np.random.default_rng(0).normal(0, sd, 100_000)
    assert abs(np.mean(np.abs(w) < E4M3.smallest_normal) - share) < 0.01
    err = fpx.representation_error(w, E4M3)
    assert np.mean(err.rel_error > E4M3.eps / 2) > 0.2  # the eps/2 bound fails often
    for name in ("float16", "bfloat16", "float8_e5m2"):
        fmt = fpx.get_format(name)
        assert np.mean(fpx.representation_error(w, name).rel_error > fmt.eps / 2) < 0.01


# -- 02, 03, 05 ----------------------------------------------------------------------


def test_float64_counts_more_than_two_thousand_million_million_in_3_to_4():
    count = fpx.count_between(3, 4, "float64")
    assert count == 2**51 and 2e15 < count < 3e15


def test_the_second_decade_reaches_float16s_smallest_normal():
    assert 1e-5 < F16.smallest_normal < 1e-4  # subnormal below it, normal above it


def test_rewriting_cancelling_formulas():
    for x in (1e-2, 1e-3, 1e-4):
        x16 = np.float16(x)
        exact = math.log1p(float(x16))
        assert abs(float(np.log1p(x16)) - exact) / exact <= F16.eps / 2
    assert float(np.log(np.float16(1) + np.float16(1e-4))) == 0.0  # 100% error
    b = np.float32(1e4)
    root = np.sqrt(b * b - 4)
    assert float(-b + root) == 0.0  # the naive small root: every digit lost
    with localcontext() as ctx:
        ctx.prec = 50
        exact = (-Decimal(10_000) + (Decimal(10_000) ** 2 - 4).sqrt()) / 2
    rewritten = np.float32(1) / (-(b + root) / 2)
    assert abs(Decimal(float(rewritten)) - exact) / abs(exact) <= Decimal(2.0**-24)


# -- the course's text -----------------------------------------------------------------

_COURSE = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))


def test_one_keras_guide_url():
    urls = {
        url
        for path in _COURSE
        for url in re.findall(r"https?://[^\s>)]*mixed_precision[^\s>)]*", _markdown(path))
        if "guide" in url
    }
    assert urls == {"https://www.tensorflow.org/guide/mixed_precision"}


@pytest.mark.parametrize("path", _COURSE, ids=lambda p: p.name)
def test_no_escaped_underscore_in_text_mode_and_no_octave(path):
    text = _markdown(path)
    assert not re.search(r"\\text\{[^}]*\\_", text)  # MathJax 3 shows the backslash
    assert "octave" not in text.lower()  # the course says binade


# -- 01: the format table's rows -------------------------------------------------------


def test_fn_formats_have_one_nan_pattern_per_sign():
    """01's nan_encoding row: in an 'fn' format NaN is every exponent and mantissa bit 1,
    once for each sign (E4M3: 0x7F and 0xFF, as ml_dtypes reads them), once in all
    without a sign (E8M0: 0xFF)."""
    for name, dtype, expected in (
        ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, [0x7F, 0xFF]),
        ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, [0xFF]),
    ):
        assert fpx.get_format(name).nan_encoding == "fn"
        codes = np.arange(256, dtype=np.uint8)
        ours = [int(c) for c in codes if math.isnan(fpx.from_bits(int(c), name).value)]
        theirs = np.flatnonzero(np.isnan(codes.view(dtype).astype(np.float32))).tolist()
        assert ours == theirs == expected
