"""gemm's accumulator models against an independent scalar Fraction model of the
tensor core (Khattak and Mikaitis' block FMA), and DeepSeek-V3's error figure."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fpexplore import ACCUMULATORS, Accumulator, accumulation_error, gemm


def _log2_floor(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > x else e


def _align(t: Fraction, alignment: str) -> int:
    floor = t.numerator // t.denominator
    if alignment == "truncate" or t - floor < Fraction(1, 2):
        return floor
    if t - floor > Fraction(1, 2):
        return floor + 1
    return floor + floor % 2


def _round_out(v: Fraction, m: int, final: str) -> float:
    if v == 0:
        return 0.0
    mag = abs(v)
    quantum = Fraction(2) ** (max(_log2_floor(mag), -126) - m)
    t = mag / quantum
    n = t.numerator // t.denominator
    if final == "nearest_even" and (t - n > Fraction(1, 2) or (t - n == Fraction(1, 2) and n % 2)):
        n += 1
    r = n * quantum
    if r >= 2**128:
        return float("inf") if v > 0 else float("-inf")
    return float(r) if v > 0 else -float(r)


def model_dot(a: list[float], b: list[float], acc: Accumulator) -> float:
    """One output element, term by term, in Fractions."""
    assert acc.bits is not None
    c = Fraction(0)
    total = np.float32(0.0)
    for i, start in enumerate(range(0, len(a), acc.group)):
        terms = []
        for x, y in zip(a[start : start + acc.group], b[start : start + acc.group], strict=True):
            if x != 0 and y != 0:
                ex = max(_log2_floor(abs(Fraction(x))), -126)
                ey = max(_log2_floor(abs(Fraction(y))), -126)
                terms.append((Fraction(x) * Fraction(y), ex + ey))
        if c != 0:
            terms.append((c, max(_log2_floor(abs(c)), -126)))
        top = max([e for _, e in terms] + [-133]) - acc.bits
        q = Fraction(2) ** top
        s = sum((1 if t > 0 else -1) * _align(abs(t) / q, acc.alignment) for t, _ in terms)
        c = Fraction(_round_out(s * q, acc.output_bits, acc.final))
        if acc.promote_every and (i + 1) % (acc.promote_every // acc.group) == 0:
            total = np.float32(total + np.float32(float(c)))
            c = Fraction(0)
    if acc.promote_every:
        return float(np.float32(total + np.float32(float(c))))
    return float(c)


MODELS = [
    ACCUMULATORS["h100_fp8"],
    ACCUMULATORS["h100_fp8_promoted"],
    Accumulator(group=8, bits=20, alignment="nearest", final="nearest_even", promote_every=16),
    Accumulator(group=4, bits=3),
    Accumulator(group=1, bits=27, final="nearest_even"),
]


@pytest.mark.parametrize("acc", MODELS, ids=lambda a: f"{a.name}-{a.group}-{a.bits}")
def test_against_the_scalar_model(acc: Accumulator) -> None:
    rng = np.random.default_rng(acc.group)
    a = (rng.standard_normal((3, 150)) * np.exp(3 * rng.standard_normal((3, 150)))).astype(
        np.float32
    )
    b = rng.standard_normal((150, 4)).astype(np.float32)
    a[0, :40] = 0.0
    b[:, 3] = np.float32(1e-40)  # subnormal inputs: exponent -126
    got = gemm(a, b, accumulate=acc)
    for i in range(3):
        for j in range(4):
            want = model_dot(a[i].tolist(), b[:, j].tolist(), acc)
            assert got[i, j] == want and np.signbit(got[i, j]) == np.signbit(want), (i, j)


def test_float32_is_numpys_matmul() -> None:
    a = np.random.default_rng(0).standard_normal((4, 9)).astype(np.float32)
    np.testing.assert_array_equal(gemm(a, a.T), a @ a.T)


def test_deepseek_figure() -> None:
    r = accumulation_error(ks=(256, 1024, 4096, 16384), rows=8, cols=8)
    plain, promoted = r.errors["h100_fp8"], r.errors["h100_fp8_promoted"]
    assert 0.01 < plain[1] < 0.04  # K = 1024: 2%
    assert 0.02 < plain[2] < 0.12  # K = 4096: percent-level (7.7%), growing with K
    assert plain == tuple(sorted(plain))
    assert max(promoted) < 0.005 and all(p < q / 2 for p, q in zip(promoted, plain, strict=True))
    assert {"accumulator", "k", "rel_error", "max_rel_error"} <= set(r.to_records()[0])


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="group must be an int from 1 to 4096, got 0"):
        Accumulator(group=0)
    with pytest.raises(ValueError, match="bits must be an int from 0 to 23, got 24"):
        Accumulator(group=32, bits=24)
    with pytest.raises(ValueError, match="alignment must be one of"):
        Accumulator(alignment="round")
    with pytest.raises(ValueError, match="final must be one of"):
        Accumulator(final="up")
    with pytest.raises(ValueError, match="promote_every must be a multiple of group \\(32\\)"):
        Accumulator(group=32, promote_every=100)
    with pytest.raises(ValueError, match="accumulate must be an Accumulator or one of"):
        gemm(np.ones((2, 2)), np.ones((2, 2)), accumulate="h200")
    with pytest.raises(ValueError, match="do not multiply"):
        gemm(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="must be a matrix"):
        gemm(np.ones(3), np.ones((3, 2)))
    with pytest.raises(ValueError, match="distribution must be one of"):
        accumulation_error(distribution="cauchy")
