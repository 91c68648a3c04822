"""sum() and dot() against exact step-by-step oracles (each addition rounded by
Fractions and decode), numpy's own float16/float32 sums, and exact sums."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.arith.exact_sums import exact_sum


def _round(x: Fraction, fmt: str) -> Fraction:
    return Fraction(fpx.decode(x, fmt).value)


def _sequential(values, acc):
    s = Fraction(0)
    for v in values:
        s = _round(s + Fraction(v), acc)
    return float(s)


def _pairwise(values, acc):
    level = [Fraction(v) for v in values]
    while len(level) > 1:
        half = len(level) // 2
        pairs = zip(level[:half], level[half : 2 * half], strict=True)
        level = [_round(a + b, acc) for a, b in pairs] + level[2 * half :]
    return float(level[0]) if level else 0.0


def _kahan(values, acc):
    s = c = Fraction(0)
    for v in values:
        y = _round(Fraction(v) - c, acc)
        t = _round(s + y, acc)
        c = _round(_round(t - s, acc) - y, acc)
        s = t
    return float(s)


ORACLES = {"sequential": _sequential, "pairwise": _pairwise, "kahan": _kahan}


@pytest.mark.parametrize("order", ["sequential", "pairwise", "kahan"])
@pytest.mark.parametrize(
    ("fmt", "acc"),
    [("float16", None), ("bfloat16", None), ("float8_e4m3fn", "float16"),
     ("float16", "float32"), ("e5m2", None), ("float32", "bfloat16"), ("e5m30", None)],
)  # fmt: skip
def test_orders_against_step_by_step_oracle(order: str, fmt: str, acc: str | None) -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal(101) * 3 + 1
    if fmt == "float8_e4m3fn":
        x = np.clip(x, -400, 400)
    r = fpx.sum(x, fmt, accumulate=acc, order=order)
    stored = [_round(Fraction(v), fmt) for v in x]
    terms = [_round(v, acc or fmt) for v in stored]
    assert r.value == ORACLES[order](terms, acc or fmt)
    assert r.exact == builtins_sum(Fraction(v) for v in x)
    assert r.stored_exact == builtins_sum(stored)


def builtins_sum(it):
    total = Fraction(0)
    for v in it:
        total += v
    return total


def test_ones_in_float16_stall_sequentially_not_pairwise() -> None:
    seq = fpx.sum(np.ones(4096), "float16")
    assert seq.value == 2048 and seq.absorbed_at == 2048 and seq.absorbed_sum == 2048
    assert seq.rel_error == 0.5 and seq.exact == 4096
    assert fpx.sum(np.ones(4096), "float16", order="pairwise").value == 4096
    assert float(np.ones(4096, np.float16).sum()) == 4096  # numpy sums pairwise
    assert fpx.sum(np.ones(4096), "float16", accumulate="float32").value == 4096
    assert fpx.sum(np.ones(4096), "float16", order="kahan").value == 4096
    assert "stalled" in str(seq) and "2048" in str(seq)
    assert "fpx-accumulation" in seq._repr_html_()


def test_float32_pairwise_is_exact_to_the_step() -> None:
    rng = np.random.default_rng(0)
    x = rng.random(1 << 12).astype(np.float32)
    r = fpx.sum(x, "float32", order="pairwise")
    level = x.copy()
    while level.size > 1:
        level = level[: level.size // 2] + level[level.size // 2 :]
    assert r.value == float(level[0])
    odd = rng.random(1001).astype(np.float32)
    level = odd.copy()
    while level.size > 1:
        half = level.size // 2
        level = np.append(level[:half] + level[half : 2 * half], level[2 * half :])
    assert fpx.sum(odd.astype(np.float64), "float32", order="pairwise").value == float(level[0])


def test_exact_sum_and_dot() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000) * np.exp2(rng.integers(-1070, 1000, 1000))
    x[:3] = [5e-324, -5e-324, 2.0**-1060]
    assert exact_sum(x) == builtins_sum(Fraction(v) for v in x)
    assert float(exact_sum(x)) == math.fsum(x)
    a, b = rng.standard_normal(200), rng.standard_normal(200)
    r = fpx.dot(a, b, "float64", order="pairwise")
    assert r.exact == builtins_sum(Fraction(p) * Fraction(q) for p, q in zip(a, b, strict=True))
    assert r.rel_error < 1e-13
    halves = np.full(4096, 0.5)
    assert fpx.dot(halves, halves, "float16").value == 512  # 0.25s stall at 512
    assert fpx.dot(halves, halves, "float16", accumulate="float32").value == 1024


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown order 'random'"):
        fpx.sum([1.0], "float16", order="random")
    with pytest.raises(ValueError, match="expected equal sizes"):
        fpx.dot([1.0, 2.0], [1.0], "float16")
    with pytest.raises(TypeError, match="expected an array of real numbers"):
        fpx.sum(["a"], "float16")
    assert fpx.sum([], "float16").value == 0.0


def test_fused_levels_give_the_level_by_level_sum() -> None:
    from fpexplore.arith import pairwise

    rng = np.random.default_rng(3)
    for n, fmt in ((pairwise._CHUNK * 70 + 13, "float32"), (pairwise._CHUNK * 64 + 1, "float16"),
                   (pairwise._CHUNK * 65 + 7, "bfloat16")):  # fmt: skip
        x = fpx.round_to(rng.random(n) * (0.01 if fmt == "float16" else 10), fmt)
        acc = fpx.get_format(fmt)
        native = fmt != "bfloat16"
        add = pairwise.pairwise_adder(acc, native)
        with np.errstate(over="ignore"):  # float16 overflows on the way: both ways alike
            assert pairwise.pairwise_sum(x, acc) == pairwise._levels(x.astype(np.float32), add)
        if not native:  # the float32 shortcut against float64 sums rounded by the kernel
            slow = pairwise._levels(x, lambda a, b, acc=acc: fpx.round_to(a + b, acc))
            assert pairwise.pairwise_sum(x, acc) == slow


@pytest.mark.parametrize("order", ["sequential", "pairwise", "kahan"])
@pytest.mark.parametrize("fmt", ["float64", "float32", "float16", "bfloat16", "float8_e5m2"])
def test_a_signalling_nan_sums_to_nan_without_a_warning(order: str, fmt: str) -> None:
    """A signalling NaN (E5M2's 0x7D, float32's 0x7F800001) sums and dots to NaN in
    every order; narrowing it for the pairwise levels warned ('invalid value
    encountered in cast', an error under filterwarnings)."""
    import ml_dtypes

    for x in (np.array([0x7D, 0x3C], np.uint8).view(ml_dtypes.float8_e5m2),
              np.array([0x7F800001, 0x3F800000], np.uint32).view(np.float32)):  # fmt: skip
        assert np.isnan(fpx.sum(x, fmt, order=order).value)
        assert np.isnan(fpx.dot(x, np.ones(2), fmt, order=order).value)
