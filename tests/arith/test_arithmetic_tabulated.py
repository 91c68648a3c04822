"""Arithmetic in the tabulated formats (fnuz, P3109, unsigned E8M0) against an
exact oracle: every pair of codes for + - x /, every rounding mode, vectorized
and scalar paths; sqrt and fma on samples; the flags of hand-picked cases."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from functools import cache, lru_cache

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from fpexplore.cli.main import main
from fpexplore.exact import exact_op

TABULATED = [
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e4m3b11fnuz",
    *[f"p3109_p{p}" for p in range(1, 8)],
    "float8_e8m0fnu",
]
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]
BINARY = ["add", "sub", "mul", "div"]
EXACT = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
}
FLOAT = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@cache
def _decoded(name: str) -> tuple[list[Fraction | None], np.ndarray]:
    """Each code's exact value (None for inf and NaN) and its float64 value."""
    fmt = fpx.get_format(name)
    parts = [fpx.from_bits(code, fmt) for code in range(fmt.n_codes)]
    return [p.exact for p in parts], np.array([p.value for p in parts], np.float64)


@cache
def _round(value: Fraction | float, name: str, mode: str) -> int:
    """The oracle's single rounding: decode's, of an exact value (a value of the
    format is its own code in every mode)."""
    fmt = fpx.get_format(name)
    if not fmt.is_signed and value <= 0:  # no zero, no negatives in E8M0: its NaN
        return int(fmt.nan_code)
    code = _codes_of_values(name).get(value) if isinstance(value, Fraction) else None
    return code if code is not None else fpx.decode(value, name, rounding=mode).code


@cache
def _codes_of_values(name: str) -> dict[Fraction, int]:
    exact, _ = _decoded(name)
    return {x: code for code, x in reversed(list(enumerate(exact))) if x is not None}


@lru_cache(maxsize=64)
def _exact_results(op: str, name: str) -> tuple[list[Fraction | float], np.ndarray]:
    """The distinct exact results of ``op`` on every pair of codes (a float for an
    inf or NaN operand and x/0, where float64 is exact) and each pair's index."""
    exact, values = _decoded(name)
    distinct: dict[Fraction | float, int] = {}
    index = np.empty((len(exact), len(exact)), np.int64)
    for i, x in enumerate(exact):
        for j, y in enumerate(exact):
            if x is None or y is None or (op == "div" and y == 0):
                with np.errstate(all="ignore"):
                    r: Fraction | float = float(FLOAT[op](values[i], values[j]))
                if r == 0:
                    r = Fraction(0)
                elif r != r:
                    r = math.nan  # one NaN object: a dictionary key equal to itself
            else:
                r = EXACT[op](x, y)
            index[i, j] = distinct.setdefault(r, len(distinct))
    return list(distinct), index


def _oracle(op: str, name: str, mode: str) -> np.ndarray:
    """The code of ``op`` on every pair of codes, computed exactly and rounded once."""
    distinct, index = _exact_results(op, name)
    return np.array([_round(r, name, mode) for r in distinct], np.int64)[index]


def _vector_codes(op: str, name: str, mode: str) -> np.ndarray:
    fmt = fpx.get_format(name)
    _, values = _decoded(name)
    result = getattr(fpx, op)(values[:, None], values[None, :], fmt, rounding=mode)
    return K.round_codes(result, fmt).astype(np.int64)


@pytest.mark.slow
@pytest.mark.parametrize("name", TABULATED)
@pytest.mark.parametrize("op", BINARY)
def test_every_pair_vectorized(op: str, name: str) -> None:
    for mode in MODES:
        expected = _oracle(op, name, mode)
        got = _vector_codes(op, name, mode)
        bad = np.argwhere(got != expected)
        assert bad.size == 0, (mode, [(hex(i), hex(j)) for i, j in bad[:5]])


@pytest.mark.slow
@pytest.mark.parametrize("name", TABULATED)
@pytest.mark.parametrize("op", BINARY)
def test_every_pair_scalar(op: str, name: str) -> None:
    """The exact scalar path on every pair to nearest even; on a sample of pairs in
    the other modes (every pair in every mode is the vectorized test's job)."""
    rng = np.random.default_rng(12)
    for mode in MODES:
        expected = _oracle(op, name, mode)
        n = expected.shape[0]
        if mode == "nearest_even":
            pairs = [(i, j) for i in range(n) for j in range(n)]
        else:
            pairs = [tuple(p) for p in rng.integers(0, n, (600, 2))]
        for i, j in pairs:
            code = exact_op(op, (int(i), int(j)), name, mode).code
            assert code == expected[i, j], (mode, hex(i), hex(j))


def _exact_sqrt(x: Fraction) -> Fraction:
    """sqrt(x) if x is a square; else a value strictly between the root and any
    number of 200 bits after the point, which rounds as the root does."""
    k = 200
    n = (x.numerator * x.denominator) << (2 * k)
    root = math.isqrt(n)
    if root * root == n:
        return Fraction(root, x.denominator << k)
    return Fraction(2 * root + 1, x.denominator << (k + 1))


@pytest.mark.parametrize("name", TABULATED)
def test_sqrt_every_code_and_fma_samples(name: str) -> None:
    fmt = fpx.get_format(name)
    exact, values = _decoded(name)
    rng = np.random.default_rng(5)
    for mode in MODES:
        vector = K.round_codes(fpx.sqrt(values, fmt, rounding=mode), fmt)
        for code, x in enumerate(exact):
            if x is None or x < 0:
                with np.errstate(invalid="ignore"):
                    want = _round(float(np.sqrt(values[code])), name, mode)
            else:
                want = _round(_exact_sqrt(x), name, mode)
            assert exact_op("sqrt", (code,), fmt, mode).code == want, (mode, hex(code))
            assert int(vector[code]) == want, (mode, hex(code))
        triples = rng.integers(0, fmt.n_codes, (300, 3))
        scalar = [exact_op("fma", tuple(int(t) for t in row), fmt, mode).code for row in triples]
        for (i, j, k), got in zip(triples, scalar, strict=True):
            a, b, c = exact[i], exact[j], exact[k]
            if a is not None and b is not None and c is not None:
                assert got == _round(a * b + c, name, mode), (mode, hex(i), hex(j), hex(k))
        x, y, z = (values[triples[:, n]] for n in range(3))
        assert K.round_codes(fpx.fma(x, y, z, fmt, rounding=mode), fmt).tolist() == scalar


def test_sqrt_exact_squares() -> None:
    assert fpx.sqrt(4, "p3109_p3").value == 2.0
    assert fpx.sqrt(0, "float8_e4m3fnuz").parts.code == 0
    assert fpx.sqrt(16, "float8_e8m0fnu").value == 4.0


@pytest.mark.parametrize(
    ("op", "args", "name", "value", "flags"),
    [
        ("div", (1, 0), "p3109_p3", math.inf, {"division_by_zero"}),
        ("div", (-1, 0), "p3109_p3", -math.inf, {"division_by_zero"}),
        ("div", (1, 0), "float8_e4m3fnuz", math.nan, {"division_by_zero"}),
        ("div", (0, 0), "float8_e4m3fnuz", math.nan, {"invalid"}),
        ("sub", ("inf", "inf"), "p3109_p4", math.nan, {"invalid"}),
        ("mul", (0, "inf"), "p3109_p4", math.nan, {"invalid"}),
        ("sqrt", (-4,), "float8_e5m2fnuz", math.nan, {"invalid"}),
        ("sub", (1, 1), "float8_e4m3fnuz", 0.0, set()),
        ("sub", (1, 1), "float8_e8m0fnu", math.nan, {"invalid"}),
        ("sub", (1, 2), "float8_e8m0fnu", math.nan, {"invalid"}),
        ("neg", (2,), "float8_e8m0fnu", math.nan, {"invalid"}),
        ("mul", (200, 200), "float8_e4m3fnuz", math.nan, {"overflow", "inexact"}),
        ("mul", (200, 200), "p3109_p4", math.inf, {"overflow", "inexact"}),
        ("mul", (2.0**-60, 2.0**-60), "float8_e8m0fnu", 2.0**-120, set()),
        ("add", ("0.1", "0.2"), "float8_e4m3fnuz", 0.3125, {"inexact"}),
        ("mul", (2.0**-7, 2.0**-4), "float8_e4m3fnuz", 0.0, {"underflow", "inexact"}),
        ("add", ("nan", 1), "p3109_p3", math.nan, set()),
    ],
)
def test_flags(op: str, args: tuple, name: str, value: float, flags: set[str]) -> None:
    r = getattr(fpx, op)(*args, name)
    assert (math.isnan(r.value) and math.isnan(value)) or r.value == value
    assert set(r.flags) == flags
    if not math.isnan(value) and value == 0:
        assert r.parts.code == 0  # no -0 in these formats
    str(r)
    r._repr_html_()


def test_no_negative_zero_and_saturation() -> None:
    assert fpx.mul(-1, 0, "p3109_p3").parts.code == 0
    assert fpx.mul("-0.001", "0.001", "float8_e4m3fnuz").parts.code == 0
    r = fpx.mul(200, 200, "float8_e4m3fnuz", overflow="saturate")
    assert r.value == 240.0 and {"overflow", "inexact"} <= r.flags
    assert fpx.neg(0, "float8_e4m3fnuz").parts.code == 0
    assert fpx.abs(-3, "p3109_p3").value == 3.0
    assert math.isnan(fpx.abs("nan", "float8_e4m3fnuz").value)
    assert fpx.remainder(5, 3, "p3109_p4").value == -1.0


def test_stochastic_scalar_and_array() -> None:
    for name, small in (("float8_e4m3fnuz", 0.0625), ("p3109_p3", 0.125), ("float8_e8m0fnu", 2.0)):
        x = 1.0 if name != "float8_e8m0fnu" else 4.0
        low = fpx.add(x, small, name, rounding="toward_zero").value
        high = fpx.add(x, small, name, rounding="up").value
        assert low < high
        scalar = {
            fpx.add(x, small, name, rounding="stochastic", rng=seed).value for seed in range(40)
        }
        assert scalar <= {low, high}
        out = fpx.add(np.full(400, x), small, name, rounding="stochastic", rng=1)
        assert set(out.tolist()) == {low, high}


@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "p3109_p1", "p3109_p3", "float8_e8m0fnu"])
def test_sequential_sum_is_a_chain_of_adds(name: str) -> None:
    values = np.random.default_rng(1).uniform(0.01, 3, 200)
    xs = [fpx.decode(float(v), name).value for v in values]
    chain = xs[0]
    for x in xs[1:]:
        chain = fpx.add(chain, x, name).value
    assert float(fpx.sum(np.array(xs), name)) == chain
    assert float(fpx.sum(values, "float32", accumulate=name)) == float(
        fpx.sum(np.array([fpx.decode(float(v), "float32").value for v in values]), name)
    )


def test_sum_and_dot() -> None:
    assert float(fpx.sum(np.full(8, 0.25), "p3109_p4")) == 2.0
    assert float(fpx.sum(np.full(64, 0.25), "p3109_p4")) == 4.0  # 4 + 0.25 ties to 4
    d = fpx.dot([1, 2, 3], [1, 1, 1], "float8_e4m3fnuz")
    assert float(d) == 6.0


def test_cli_all_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["0.1 + 0.2", "-f", "all", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    names = {r["format"] for r in records} if isinstance(records, list) else set(records)
    assert set(TABULATED) <= names
    assert main(["0.1 + 0.2", "-f", "all"]) == 0
    out = capsys.readouterr().out
    assert "not supported" not in out
    for name in TABULATED:
        assert name in out


@pytest.mark.parametrize(
    "fmt",
    [
        fpx.Format("u4m3", 4, 3, 7, "fn", is_signed=False, has_subnormals=False),
        fpx.Format("s8m0", 8, 0, 127, "fn"),  # signed, no mantissa bits: has -0
        fpx.Format("s5m2fnuz", 5, 2, 16, "fnuz"),
    ],
)
def test_custom_tabulated_formats_vector_matches_scalar(fmt: fpx.Format) -> None:
    rng = np.random.default_rng(3)
    values = K.codes_to_values(np.arange(fmt.n_codes), fmt)
    for op, arity in (("add", 2), ("sub", 2), ("mul", 2), ("div", 2), ("sqrt", 1), ("fma", 3)):
        rows = rng.integers(0, fmt.n_codes, (300, arity))
        for mode in MODES:
            operands = (values[rows[:, n]] for n in range(arity))
            vector = getattr(fpx, op)(*operands, fmt, rounding=mode)
            codes = [exact_op(op, tuple(int(t) for t in row), fmt, mode).code for row in rows]
            scalar = K.codes_to_values(np.array(codes), fmt)
            same = (vector.view(np.uint64) == scalar.view(np.uint64)) | (
                np.isnan(vector) & np.isnan(scalar)
            )
            assert same.all(), (op, mode, rows[~same][:3])
    zero = fpx.sub(1, 1, fmt, rounding="down").value  # -0 under rounding down, where it exists
    if not fmt.has_zero:
        assert math.isnan(zero)
    else:
        assert zero == 0 and math.copysign(1, zero) == (-1 if fmt.has_negative_zero else 1)
