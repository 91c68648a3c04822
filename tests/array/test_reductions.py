"""FormatArray's sums, means, products and @ against fpx.sum, fpx.dot and exact oracles."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

FORMATS = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float32"]


def _data(fmt: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape)
    return np.asarray(fpx.round_to(x, fmt))


def _round(value: float, fmt: str) -> float:
    return float(fpx.round_to(value, fmt))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("order", ["sequential", "pairwise", "kahan"])
@pytest.mark.parametrize("accumulate", [None, "float32"])
def test_sum_equals_fpx_sum(fmt: str, order: str, accumulate: str | None) -> None:
    v = _data(fmt, (37, 5))
    x = fpx.FormatArray(v, fmt, accumulate=accumulate, order=order)
    total = x.sum()
    want = fpx.sum(v, fmt, accumulate=accumulate, order=order).value
    assert float(total) == _round(want, fmt)
    columns = np.sum(x, axis=0)
    for j in range(5):
        want = fpx.sum(v[:, j], fmt, accumulate=accumulate, order=order).value
        assert float(columns[j]) == _round(want, fmt)
    assert total.explain().value == fpx.sum(v, fmt, accumulate=accumulate, order=order).value


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("accumulate", [None, "float32"])
def test_matmul_dot_einsum_equal_fpx_dot(fmt: str, accumulate: str | None) -> None:
    a, b = _data(fmt, (4, 9), 1), _data(fmt, (9, 3), 2)
    x = fpx.FormatArray(a, fmt, accumulate=accumulate)
    y = fpx.FormatArray(b, fmt, accumulate=accumulate)
    c = x @ y
    for i in range(4):
        for j in range(3):
            want = fpx.dot(a[i], b[:, j], fmt, accumulate=accumulate).value
            assert float(c[i, j]) == _round(want, fmt)
    for other in (np.dot(x, y), np.matmul(x, y), np.einsum("ik,kj->ij", x, y)):
        np.testing.assert_array_equal(np.asarray(other), np.asarray(c))
    np.testing.assert_array_equal(np.asarray(np.tensordot(x, y, 1)), np.asarray(c))
    assert c.explain((1, 2)).value == fpx.dot(a[1], b[:, 2], fmt, accumulate=accumulate).value


@pytest.mark.parametrize("order", ["pairwise", "kahan"])
def test_matmul_orders(order: str) -> None:
    a, b = _data("bfloat16", (3, 33), 3), _data("bfloat16", (33, 2), 4)
    c = fpx.FormatArray(a, "bfloat16", order=order) @ fpx.FormatArray(b, "bfloat16")
    for i in range(3):
        for j in range(2):
            assert float(c[i, j]) == fpx.dot(a[i], b[:, j], "bfloat16", order=order).value


def test_vector_products() -> None:
    a, b = _data("float16", (50,), 5), _data("float16", (50,), 6)
    x, y = fpx.FormatArray(a, "float16"), fpx.FormatArray(b, "float16")
    want = fpx.dot(a, b, "float16").value
    assert float(x @ y) == float(np.dot(x, y)) == float(np.inner(x, y)) == want


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float8_e4m3fn", "float6_e2m3fn"])
@pytest.mark.parametrize("accumulate", [None, "float32"])
def test_mean_is_the_sum_over_the_count_in_the_format(fmt: str, accumulate: str | None) -> None:
    v = _data(fmt, (7, 11))
    x = fpx.FormatArray(v, fmt, accumulate=accumulate)
    means = x.mean(axis=1)
    for i in range(7):
        s = fpx.sum(v[i], fmt, accumulate=accumulate).value
        assert float(means[i]) == fpx.div(s, 11, fmt).value
    assert float(np.mean(x)) == fpx.div(fpx.sum(v, fmt, accumulate=accumulate).value, 77, fmt).value
    assert means.explain(0).op == "div"


def test_cumsum_and_prod_are_sequential() -> None:
    v = _data("bfloat16", (20,))
    x = fpx.FormatArray(v, "bfloat16")
    c = np.asarray(np.cumsum(x))
    for k in range(20):
        assert c[k] == fpx.sum(v[: k + 1], "bfloat16").value
    p = float(v[0])
    for t in v[1:6]:
        p = fpx.mul(p, float(t), "bfloat16").value
    assert float(x[:6].prod()) == p


def test_unchanged_numpy_functions_equal_the_scalar_operations() -> None:
    v = _data("float16", (16,), 7) * 4
    x = fpx.FormatArray(v, "float16")

    def softmax(z: np.ndarray) -> np.ndarray:
        e = np.exp(z - z.max())
        return e / e.sum()

    s = np.asarray(softmax(x))
    m = v.max()
    e = [
        float(fpx.round_to(np.exp(fpx.sub(float(t), float(m), "float16").value), "float16"))
        for t in v
    ]
    total = fpx.sum(np.array(e), "float16").value
    assert s.tolist() == [fpx.div(t, total, "float16").value for t in e]
    mean = float(np.mean(x))
    assert mean == fpx.div(fpx.sum(v, "float16").value, 16, "float16").value
    deviations = [fpx.sub(float(t), mean, "float16").value for t in v]
    squares = np.array([fpx.mul(d, d, "float16").value for d in deviations])
    s2 = fpx.sum(squares, "float16").value
    assert float(np.var(x)) == fpx.div(s2, 16, "float16").value


def test_flags_are_counted_as_the_scalar_operations_count_them() -> None:
    v = np.array([60000.0, 60000.0, 1.0, -60000.0], np.float64)
    x = fpx.FormatArray(v, "float16")
    total = x.sum()
    counts = dict.fromkeys(fpx.FLAGS, 0)
    s = v[0]
    for t in v[1:]:
        r = fpx.add(float(s), float(t), "float16")
        for name in r.flags:
            counts[name] += 1
        s = r.value
    assert float(total) == s and total.flag_counts == counts
    with fpx.flag_counter() as flags:
        x.sum()
        x * 2
    assert flags["overflow"] == counts["overflow"] + 3  # 60000 x 2 three times


def test_flags_cost_nothing_until_read() -> None:
    x = fpx.FormatArray(np.ones(8), "float16")
    y = x @ fpx.FormatArray(np.ones((8, 2)), "float16")
    assert y._record is not None and y._record._cache is None
    assert y.flags == frozenset() and y._record._cache is not None


def test_stochastic_sum_replays_its_generator_for_the_flags() -> None:
    v = np.full(300, 0.001)
    x = fpx.FormatArray(v, "bfloat16", "stochastic", rng=3)
    first = float(x.sum())
    again = float(fpx.FormatArray(v, "bfloat16", "stochastic", rng=3).sum())
    assert first == again
    assert "inexact" in x.sum().flags
