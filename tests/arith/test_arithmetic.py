"""Arithmetic in a format against exact oracles: every pair of operands of every
format of 8 bits or fewer, in every rounding mode; numpy's and ml_dtypes' own
operations; the IEEE 754 special cases and flags."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from fpexplore.exact import exact_op
from tests.arith_oracle import oracle_op, table_round

SMALL = ["float8_e5m2", "float8_e4m3fn", "e3m4", "float6_e3m2fn", "float6_e2m3fn", "float4_e2m1fn"]
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]
BINARY = ["add", "sub", "mul", "div"]


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bit-for-bit equality of float64 arrays, any NaN equal to any NaN."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return (a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))


def _all_values(name: str) -> np.ndarray:
    fmt = fpx.get_format(name)
    values = K.codes_to_values(np.arange(fmt.n_codes), fmt)
    return values[np.isfinite(values)] if not fmt.has_nan else values


def _pairs(name: str) -> tuple[np.ndarray, np.ndarray]:
    v = _all_values(name)
    return np.repeat(v, v.size), np.tile(v, v.size)


def _table_oracle(op: str, a: np.ndarray, b: np.ndarray, fmt, mode: str) -> np.ndarray:
    """The oracle for whole tables of finite operands (specials handled apart)."""
    with np.errstate(all="ignore"):
        if op == "div":
            out = table_round(a, fmt, mode, den=b)
            zero_den = b == 0
            out[zero_den] = np.where(a[zero_den] == 0, np.nan, np.copysign(np.inf, a / b)[zero_den])
            zero = (a == 0) & ~zero_den
            out[zero] = np.copysign(0.0, a[zero] * b[zero])
            if fmt.nan_encoding == "fn":  # x/0 is infinite: no infinity, so NaN
                out[np.isinf(out)] = np.nan
            elif fmt.nan_encoding == "none":  # ...or the largest value
                out[np.isinf(out)] = np.copysign(fmt.max, out[np.isinf(out)])
            return out
        exact = {"add": a + b, "sub": a - b, "mul": a * b}[op]  # exact in float64 here
        out = table_round(exact, fmt, mode)
    if op == "mul":
        zero = exact == 0
        out[zero] = exact[zero]
    else:
        y = b if op == "add" else -b
        zero = exact == 0
        both_minus = np.signbit(a) & np.signbit(y) & (a == 0) & (y == 0)
        both_plus = ~np.signbit(a) & ~np.signbit(y) & (a == 0) & (y == 0)
        minus = both_minus | (~both_plus & (mode == "down"))
        out[zero] = np.where(minus[zero], -0.0, 0.0)
    return out


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", BINARY)
def test_every_pair_of_small_formats(name: str, op: str) -> None:
    fmt = fpx.get_format(name)
    a, b = _pairs(name)
    finite = np.isfinite(a) & np.isfinite(b)
    a, b = a[finite], b[finite]
    if not fmt.has_nan:  # FP6/FP4: 0/0 has no NaN to go to (tested apart)
        keep = ~((a == 0) & (b == 0)) if op == "div" else np.ones(a.shape, bool)
        a, b = a[keep], b[keep]
    for mode in MODES:
        got = getattr(fpx, op)(a, b, fmt, mode)
        expected = _table_oracle(op, a, b, fmt, mode)
        bad = ~_same(got, expected)
        assert not bad.any(), (mode, a[bad][:5], b[bad][:5], got[bad][:5], expected[bad][:5])


@pytest.mark.parametrize("name", SMALL)
def test_scalar_path_matches_arrays(name: str) -> None:
    """The exact scalar path (exact_op) agrees with the vectorized one on a sample."""
    fmt = fpx.get_format(name)
    rng = np.random.default_rng(12)
    codes = np.arange(fmt.n_codes)
    for op in [*BINARY, "fma"]:
        n = 3 if op == "fma" else 2
        sample = rng.choice(codes, (150, n))
        values = [K.codes_to_values(sample[:, i], fmt) for i in range(n)]
        for mode in MODES:
            try:
                got = getattr(fpx, op)(*values, fmt, mode)
            except ValueError:
                assert not fmt.has_nan
                continue
            for row, g in zip(sample, got, strict=True):
                code = exact_op(op, tuple(int(c) for c in row), fmt, mode).code
                ref = K.codes_to_values(np.array([code]), fmt)
                assert _same(g, ref[0]), (op, mode, row)


@pytest.mark.parametrize("name", ["float8_e5m2", "float8_e4m3fn", "float6_e2m3fn", "e3m4"])
def test_sqrt_and_fma_against_fractions(name: str) -> None:
    fmt = fpx.get_format(name)
    v = _all_values(name)
    v = v[np.isfinite(v)]
    rng = np.random.default_rng(5)
    triples = rng.choice(v, (400, 3))
    for mode in MODES:
        roots = fpx.sqrt(np.abs(v), fmt, mode)
        expected = [oracle_op("sqrt", (x,), fmt, mode) for x in np.abs(v)]
        assert _same(roots, expected).all(), mode
        got = fpx.fma(triples[:, 0], triples[:, 1], triples[:, 2], fmt, mode)
        expected = [oracle_op("fma", tuple(t), fmt, mode) for t in triples]
        assert _same(got, expected).all(), mode


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "sqrt"])
def test_float16_float32_float64_against_numpy(op: str) -> None:
    rng = np.random.default_rng(1)
    for dtype in (np.float16, np.float32, np.float64):
        scale = 8 if dtype == np.float16 else 60
        a = rng.standard_normal(20000) * np.exp2(rng.integers(-scale, scale, 20000))
        b = rng.standard_normal(20000) * np.exp2(rng.integers(-scale, scale, 20000))
        a, b = a.astype(dtype), b.astype(dtype)
        with np.errstate(all="ignore"):
            if op == "sqrt":
                expected, got = np.sqrt(np.abs(a)), fpx.sqrt(np.abs(a), dtype)
            else:
                ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply}.get(op, np.divide)
                expected, got = ufunc(a, b), getattr(fpx, op)(a, b, dtype)
        assert _same(got, expected.astype(np.float64)).all(), dtype


def test_bfloat16_and_fp8_against_ml_dtypes() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(2)
    for name in ("bfloat16", "float8_e5m2", "float8_e4m3fn"):
        dtype = getattr(ml_dtypes, name)
        a = (rng.standard_normal(20000) * 4).astype(dtype)
        b = (rng.standard_normal(20000) * 4).astype(dtype)
        for op, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply)):
            # ml_dtypes computes in float32 and rounds once: correct by the 2p + 2 rule
            expected = ufunc(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
            got = getattr(fpx, op)(a, b, name)
            assert _same(got, expected.astype(np.float64)).all(), (name, op)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_sixteen_bit_random_pairs_all_modes(name: str) -> None:
    fmt = fpx.get_format(name)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, fmt.n_codes, (300, 3))
    values = [K.codes_to_values(codes[:, i], fmt) for i in range(3)]
    finite = np.isfinite(values[0]) & np.isfinite(values[1]) & np.isfinite(values[2])
    values = [v[finite] for v in values]
    for mode in MODES:
        for op in (*BINARY, "fma"):
            args = values if op == "fma" else values[:2]
            got = getattr(fpx, op)(*args, fmt, mode)
            expected = [oracle_op(op, tuple(t), fmt, mode) for t in zip(*args, strict=True)]
            assert _same(got, expected).all(), (op, mode)
            scalar = [getattr(fpx, op)(*(float(v) for v in t), fmt, mode).value
                      for t in list(zip(*args, strict=True))[:40]]  # fmt: skip
            assert _same(got[:40], scalar).all(), (op, mode)


def test_hard_cases_float16() -> None:
    # exact ties: 2049 is halfway between 2048 and 2050
    assert fpx.add(2048, 1, "float16").value == 2048
    assert fpx.add(2048, 1, "float16", "nearest_away").value == 2050
    assert fpx.add(2050, 1, "float16").value == 2052  # tie to even upward
    # the overflow threshold: max + half an ULP overflows under nearest_even
    assert fpx.add(65504, 16, "float16").value == math.inf
    assert fpx.add(65504, 15.9, "float16").value == 65504
    assert fpx.add(65504, 16, "float16", "toward_zero").value == 65504
    assert fpx.add(65504, 16, "float16", "down").value == 65504
    assert fpx.add(-65504, -16, "float16", "up").value == -65504
    assert fpx.add(65504, 2**-14, "float16", "up").value == math.inf
    assert fpx.add(65504, 16, "float16", overflow="saturate").value == 65504
    # subnormal results and underflow after rounding
    assert fpx.mul(2**-12, 2**-12, "float16").value == 2**-24  # the smallest subnormal
    tie = fpx.mul(2**-12, 2**-13, "float16")  # half of it: a tie, to even (zero)
    assert tie.value == 0 and tie.flags == {"underflow", "inexact"}
    r = fpx.mul("0.000061", "0.5", "float16")
    assert "underflow" in r.flags and "inexact" in r.flags
    exact_sub = fpx.sub(2**-14, 2**-15, "float16")  # a subnormal result, exact: no flag
    assert exact_sub.value == 2**-15 and exact_sub.flags == frozenset()
    # exact cancellation and the sign of zero
    for mode in MODES:
        zero = fpx.sub(1.5, 1.5, "float16", mode)
        assert zero.value == 0 and math.copysign(1, zero.value) == (-1 if mode == "down" else 1)
    assert math.copysign(1, fpx.add("-0", "-0", "float16").value) == -1
    assert math.copysign(1, fpx.add("-0", "0", "float16").value) == 1
    assert math.copysign(1, fpx.add("-0", "0", "float16", "down").value) == -1
    assert math.copysign(1, fpx.sqrt("-0", "float16").value) == -1
    assert math.copysign(1, fpx.mul(-1, 0, "float16").value) == -1
    # inf and NaN operands
    assert fpx.sub("inf", "inf", "float16").flags == {"invalid"}
    assert math.isnan(fpx.mul(0, "inf", "float16").value)
    assert fpx.add("inf", 1, "float16").value == math.inf
    assert fpx.div(1, "inf", "float16").value == 0
    assert fpx.div(-1, 0, "float16").value == -math.inf
    assert fpx.add("nan", 1, "float16").flags == frozenset()
    assert fpx.add("snan", 1, "float16").flags == {"invalid"}
    assert fpx.sqrt(-1, "float16").flags == {"invalid"}
    assert fpx.sqrt("inf", "float16").value == math.inf


def test_finite_only_formats() -> None:
    r = fpx.mul(448, 2, "float8_e4m3fn")
    assert math.isnan(r.value) and r.flags == {"overflow", "inexact"}
    assert fpx.mul(448, 2, "float8_e4m3fn", overflow="saturate").value == 448
    assert math.isnan(fpx.div(1, 0, "e4m3").value)
    assert fpx.mul(6, 6, "float4_e2m1fn").value == 6  # saturates
    assert fpx.div(1, 0, "float4_e2m1fn").value == 6
    with pytest.raises(ValueError, match="has no NaN"):
        fpx.div(0, 0, "float4_e2m1fn")
    with pytest.raises(ValueError, match="has no NaN"):
        fpx.sqrt(-1, "float6_e3m2fn")
    with pytest.raises(ValueError, match="has no NaN"):
        fpx.div(np.zeros(3), 0, "float6_e2m3fn")


def test_operation_object() -> None:
    r = fpx.add("0.1", "0.2", "bfloat16")
    assert r.value == 0.30078125
    assert r.exact == Fraction(615, 2048)
    assert r.operands[0].value == 0.10009765625 and r.operands[0].input == "0.1"
    assert r.parts.hex == "0x3E9A" and float(r) == 0.30078125
    assert r.abs_error == float(Fraction(0.30078125) - Fraction(615, 2048))
    assert "0.1 + 0.2" in repr(r)
    s = fpx.sqrt(2, "float32")
    assert s.approximate and s.value == float(np.sqrt(np.float32(2)))
    assert fpx.sqrt(4, "float32").approximate is False
    assert fpx.neg(1, "float16").value == -1 and fpx.abs(-3, "float16").value == 3


def test_fma_rounds_once() -> None:
    a = 1 + 2**-10
    assert fpx.fma(a, a, -(1 + 2**-9), "float16").value == 2**-20
    assert fpx.add(fpx.mul(a, a, "float16").value, -(1 + 2**-9), "float16").value == 0
    # float64 fma: the exact path
    x = 1 + 2**-30
    assert fpx.fma(x, x, -1, "float64").value == 2**-29 + 2**-60
    assert fpx.fma(np.array([x]), x, -1, "float64")[0] == 2**-29 + 2**-60


def test_float64_exact_path_all_modes() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(40), rng.standard_normal(40)
    for mode in MODES:
        for op in BINARY:
            got = getattr(fpx, op)(a, b, "float64", mode)
            expected = [oracle_like(op, x, y, mode) for x, y in zip(a, b, strict=True)]
            assert _same(got, expected).all(), (op, mode)
    assert fpx.add(1, 2**-60, "float64", "up").value == 1 + 2**-52
    assert fpx.add(1e308, 1e308, "float64", overflow="saturate").value == np.finfo(float).max
    for fmt in ("float64", "float16", "float8_e4m3fn", "float4_e2m1fn"):
        for x, y in ((1e308, 10.0), (1.0, 0.0), (-3.0, 0.0), (6.0, 0.5)):
            arr = fpx.div(np.array([x]), y, fmt, overflow="saturate")
            assert _same(arr, [fpx.div(x, y, fmt, overflow="saturate").value]).all(), (fmt, x, y)


def oracle_like(op: str, x: float, y: float, mode: str) -> float:
    return fpx.decode(
        getattr(Fraction(x), f"__{'truediv' if op == 'div' else op}__")(Fraction(y)),
        "float64",
        rounding=mode,
    ).value


def test_stochastic_rounding_is_seeded_and_unbiased() -> None:
    a = np.full(20000, 1.0)
    b = np.full(20000, 2**-12)  # a quarter of float16's ULP at 1
    r1 = fpx.add(a, b, "float16", "stochastic", rng=7)
    r2 = fpx.add(a, b, "float16", "stochastic", rng=7)
    assert _same(r1, r2).all()
    assert set(np.unique(r1)) == {1.0, 1 + 2**-10}
    assert abs((r1 == 1 + 2**-10).mean() - 0.25) < 0.02
    scalar = fpx.add(1, 2**-12, "float16", "stochastic", rng=3).value
    assert scalar in (1.0, 1 + 2**-10)


def test_arrays_broadcast_and_bad_input() -> None:
    out = fpx.mul(np.arange(3.0)[:, None], np.arange(4.0), "bfloat16")
    assert out.shape == (3, 4) and out[2, 3] == 6
    with pytest.raises(ValueError, match="do not broadcast"):
        fpx.add(np.ones(3), np.ones(4), "float16")
    with pytest.raises(ValueError, match="unknown rounding mode 'sideways'"):
        fpx.add(1, 2, "float16", "sideways")
    with pytest.raises(TypeError, match="expected a real number"):
        fpx.add(1, None, "float16")
    with pytest.raises(ValueError, match="could not read 'abc'"):
        fpx.add(1, "abc", "float16")
    with pytest.raises(ValueError, match="unknown operation 'pow'"):
        exact_op("pow", (1, 2), "float16")
    with pytest.raises(ValueError, match="unknown format"):
        fpx.add(1, 2, "float17")
    with pytest.raises(TypeError, match="expected an array of real numbers"):
        fpx.add(np.array([True]), 1.0, "float16")


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float8_e4m3fn", "float6_e2m3fn", "e3m4"])
def test_scalar_fields_match_the_kernel(name: str) -> None:
    fmt = fpx.get_format(name)
    codes = np.arange(fmt.n_codes)
    sign, exponent, mantissa, kind = K.split_codes(codes.astype(K.code_dtype(fmt)), fmt)
    step = max(1, fmt.n_codes // 4096)
    for c in codes[::step]:
        p = fpx.from_bits(int(c), fmt)
        assert (p.sign, p.exponent, p.mantissa) == (sign[c], exponent[c], mantissa[c])
        assert list(fpx.Kind).index(p.kind) == kind[c]


def test_float32_shortcut_for_float16_and_bfloat16_arrays() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for name, dtype in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        fmt = fpx.get_format(name)
        codes = np.random.default_rng(8).integers(0, 1 << 16, (2, 50000)).astype(np.uint16)
        a, b = (c.view(dtype) for c in codes)
        for op in ("add", "sub"):
            fast = getattr(fpx, op)(a, b, name)
            with np.errstate(invalid="ignore"):  # ml_dtypes warns when widening a NaN
                wide = (a.astype(np.float64), b.astype(np.float64))
            slow = K.arith_values(op, wide, fmt)
            assert _same(fast, slow).all(), (name, op)


@pytest.mark.parametrize("name", ["float64", "float32", "float16", "float8_e4m3fn", "e3m4"])
def test_special_operands_arrays_match_scalars(name: str) -> None:
    fmt = fpx.get_format(name)
    specials = [0.0, -0.0, 1.0, -1.5, fmt.max, -fmt.max, fmt.smallest_subnormal, math.inf,
                -math.inf, math.nan]  # fmt: skip
    specials = [v for v in specials if fmt.has_infinity or not math.isinf(v)]
    pairs = [(x, y) for x in specials for y in specials]
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    for mode in MODES:
        for op in BINARY:
            with np.errstate(all="ignore"):
                got = getattr(fpx, op)(a, b, fmt, mode)
            scalar = [getattr(fpx, op)(x, y, fmt, mode).value for x, y in pairs]
            assert _same(got, scalar).all(), (op, mode, a[~_same(got, scalar)][:3])
        roots = fpx.sqrt(np.array(specials), fmt, mode)
        assert _same(roots, [fpx.sqrt(x, fmt, mode).value for x in specials]).all()


@pytest.mark.parametrize("name", ["float4_e2m1fn", "float6_e2m3fn"])
def test_every_pair_scalar_path_of_the_smallest_formats(name: str) -> None:
    """FP4 and FP6: the exact scalar path on every pair, every operation and mode."""
    fmt = fpx.get_format(name)
    codes = np.arange(fmt.n_codes)
    a_codes, b_codes = np.repeat(codes, codes.size), np.tile(codes, codes.size)
    a, b = K.codes_to_values(a_codes, fmt), K.codes_to_values(b_codes, fmt)
    for op in BINARY:
        keep = ~((a == 0) & (b == 0)) if op == "div" else np.ones(a.shape, bool)
        for mode in MODES:
            got = getattr(fpx, op)(a[keep], b[keep], fmt, mode)
            pairs = zip(a_codes[keep].tolist(), b_codes[keep].tolist(), strict=True)
            scalar = [exact_op(op, (x, y), fmt, mode).code for x, y in pairs]
            expected = K.codes_to_values(np.array(scalar), fmt)
            assert _same(got, expected).all(), (op, mode)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float6_e3m2fn"])
def test_remainder_every_pair_is_exact(name: str) -> None:
    fmt = fpx.get_format(name)
    v = _all_values(name)
    v = v[np.isfinite(v)]
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    keep = b != 0
    a, b = a[keep], b[keep]
    for mode in ("nearest_even", "up"):  # exact: the mode never matters
        got = fpx.remainder(a, b, fmt, mode)
        expected = []
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            r = Fraction(x) - round(Fraction(x) / Fraction(y)) * Fraction(y)
            expected.append(math.copysign(0.0, x) if r == 0 else float(r))
        assert _same(got, expected).all(), mode


def test_remainder_special_cases() -> None:
    assert fpx.remainder(7, 2, "float16").value == -1  # 3.5 rounds to the even 4
    assert fpx.remainder(5, 2, "float16").value == 1  # 2.5 rounds to the even 2
    assert math.copysign(1, fpx.remainder("-0", 3, "float16").value) == -1
    assert math.copysign(1, fpx.remainder(-4, 2, "float16").value) == -1
    assert fpx.remainder(2, "inf", "float16").value == 2
    assert fpx.remainder("inf", 2, "float16").flags == {"invalid"}
    assert fpx.remainder(1, 0, "float16").flags == {"invalid"}
    assert fpx.remainder(1e300, 3, "float64").flags == frozenset()
