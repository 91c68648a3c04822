"""Every line of an operation's explanation is an equation a reader can check:
:func:`tests.explain_check.check_explanation` parses what ``str(Operation)``
prints and recomputes it with Fractions. The cases of issue 21 first, then random
operands of every format, sign, rounding mode and overflow policy (zeros,
infinities, NaNs, subnormals, saturation, E8M0's neg, float64's long results)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K
from tests.explain_check import ExplanationError, check_explanation

MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic"]
OPS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "sqrt": 1, "remainder": 2,
       "neg": 1, "abs": 1}  # fmt: skip


def _explain(op: str, args: tuple, fmt: str, mode: str = "nearest_even", overflow=None):
    kwargs = {"overflow": overflow} | ({} if op in ("neg", "abs") else {"rng": 0})
    result = getattr(fpx, op)(*args, fmt, mode, **kwargs)
    text = str(result)
    check_explanation(text, op, fpx.get_format(fmt), mode, overflow)
    return " ".join(text.split())  # wrapped lines joined


@pytest.mark.parametrize(
    ("op", "args", "fmt"),
    [
        ("add", (-1, -2), "float16"),  # printed (-0.1 + 1.0) x 2^1 = -1.1 x 2^1
        ("add", (-1, 2), "float16"),  # printed (-0.1 - 1.0) x 2^1 = +0.1 x 2^1
        ("sub", (5, 3), "float16"),  # the shifted b printed as -0.11 x 2^2
        ("sub", (-5, -3), "bfloat16"),
        ("add", (0, 5), "float16"),  # "an infinite operand"
        ("sub", (5, 0), "float16"),
        ("fma", (0, 2, 3), "float16"),
        ("fma", (2, 3, 0), "float16"),
        ("mul", ("1e-50", "1e-50"), "float64"),  # the | cut inside the abbreviation
        ("div", (1, 3), "float64"),
        ("add", (0.1, 1e-300), "float64"),
    ],
)
def test_issue_examples_add_up(op: str, args: tuple, fmt: str) -> None:
    text = _explain(op, args, fmt)
    assert "infinite" not in text


def test_zero_operands_are_not_infinite() -> None:
    for op, args in [("add", (0, 5)), ("sub", (5, 0)), ("fma", (0, 2, 3)), ("fma", (2, 3, 0)),
                     ("mul", (0, 5)), ("div", ("-0", 5))]:  # fmt: skip
        assert "an infinite operand" not in _explain(op, args, "float16"), (op, args)
    assert "an infinite operand: the exact result is -inf" in _explain("add", ("-inf", 5), "half")


@pytest.mark.parametrize("fmt", ["float16", "float8_e5m2", "float8_e4m3fn", "p3109_p3"])
def test_saturation_is_explained_as_saturation(fmt: str) -> None:
    text = _explain("mul", (300, 300), fmt, overflow="saturate")
    largest = fpx.get_format(fmt).max
    assert f'overflow="saturate" gives the largest, {largest!r}' in text
    assert " gives inf" not in text and " gives nan" not in text
    text = _explain("mul", (300, 300), fmt, "toward_zero")
    assert f"the largest finite value is the nearest toward zero: {largest!r}" in text


def test_neg_in_e8m0_is_invalid() -> None:
    text = _explain("neg", (1,), "float8_e8m0fnu")
    assert "no sign: -a has no value: NaN (invalid operation)" in text
    assert "only the sign bit changes" not in text
    for fmt in ("float8_e4m3fnuz", "float8_e5m2fnuz", "p3109_p3"):
        assert "has no -0" in _explain("neg", (0,), fmt)
        assert "has no sign" in _explain("neg", ("nan",), fmt)


def test_float64_cut_outside_the_abbreviation() -> None:
    text = _explain("mul", ("1e-50", "1e-50"), "float64")
    kept, dropped = text.split("|")
    kept = kept.split("point: +")[1]
    assert len(kept) == 54 and kept.endswith("0010100101111")  # the 52 bits in full
    assert dropped.startswith("1111011001...(")


def test_the_checker_catches_a_false_line() -> None:
    text = str(fpx.add(-1, -2, "float16"))
    broken = text.replace("(-0.10000000000 - 1.0000000000)", "(-0.10000000000 + 1.0000000000)")
    with pytest.raises(ExplanationError):
        check_explanation(broken, "add", fpx.get_format("float16"), "nearest_even")
    broken = text.replace("= -3", "= -2")
    with pytest.raises(ExplanationError):
        check_explanation(broken, "add", fpx.get_format("float16"), "nearest_even")


def _random_operands(fmt: fpx.Format, rng: np.random.Generator, n: int) -> list[object]:
    """Values of the format (every code of a small one; wide ones by random bits,
    near 1 and near each other), decimal strings, specials and signed zeros."""
    if fmt.bits <= 16:
        codes = rng.integers(0, 1 << fmt.bits, n)
        values = K.codes_to_values(codes.astype(K.code_dtype(fmt)), fmt).tolist()
    else:
        raw = rng.integers(0, 1 << 63, n, dtype=np.int64).astype(np.uint64)
        values = raw.view(np.float64).tolist()
        values = [float(fpx.round_to(v, fmt)) for v in values]
        near = rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))
        values[::2] = [float(fpx.round_to(v, fmt)) for v in near[::2]]
    extra = ["0.1", "-3", "0", "-0", "inf", "-inf", "nan", "1e-7", "448", "1e30", "-2.5"]
    return [*values, *extra]


@pytest.mark.parametrize("name", list(fpx.FORMATS))
def test_random_explanations_recompute(name: str) -> None:
    """Random operations of every kind, mode and overflow policy: each printed
    line is recomputed from the printed operands (about 160 per format)."""
    fmt = fpx.get_format(name)
    rng = np.random.default_rng(sum(map(ord, name)))
    pool = _random_operands(fmt, rng, 64)
    checked = 0
    for i in range(160):
        op = list(OPS)[i % len(OPS)]
        mode = MODES[(i // len(OPS)) % len(MODES)]
        overflow = "saturate" if i % 7 == 3 else None
        args = tuple(pool[j] for j in rng.integers(0, len(pool), OPS[op]))
        if op in ("add", "sub") and i % 5 == 0 and isinstance(args[0], float):
            args = (args[0], -args[0] if op == "add" else args[0])  # an exact zero
        try:
            _explain(op, args, name, mode, overflow)
        except ValueError as error:  # FP6/FP4: an invalid operation has no NaN
            assert not fmt.has_nan and "NaN" in str(error), (op, args, error)
            continue
        except ExplanationError as error:
            raise AssertionError(f"{op}{args} in {name}, {mode}, {overflow}: {error}") from None
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("fmt", ["float64", "float32"])
def test_long_results_of_wide_formats(fmt: str) -> None:
    rng = np.random.default_rng(21)
    for _ in range(40):
        a, b = (float(v) for v in rng.standard_normal(2) * np.exp2(rng.integers(-300, 300, 2)))
        for op in ("mul", "div", "add", "fma", "sqrt"):
            args = {"fma": (a, b, -a * b), "sqrt": (abs(a),)}.get(op, (a, b))
            if not all(math.isfinite(x) for x in args):
                continue
            for mode in ("nearest_even", "up"):
                _explain(op, args, fmt, mode)
