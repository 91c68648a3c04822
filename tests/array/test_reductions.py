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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 8, 9, 127, 128, 129, 1000, 8193])
def test_numpy_order_is_numpys_own_sum(dtype: type, n: int) -> None:
    """order="numpy" adds as np.sum does (eight running sums per block of at most 128,
    blocks by halves): bit for bit numpy's float32 and float64 sums, of a 1-D array
    and along the last axis, and fpx.sum(order="numpy") equal to it."""
    rng = np.random.default_rng(n)
    v = (rng.standard_normal((3, n)) * rng.choice([1e-3, 1.0, 1e3], (3, n))).astype(dtype)
    fmt = np.dtype(dtype).name
    x = fpx.FormatArray(v, fmt, order="numpy")
    assert np.array_equal(np.asarray(x.sum(axis=-1)), v.sum(axis=-1).astype(np.float64))
    assert float(fpx.FormatArray(v[0], fmt, order="numpy").sum()) == float(np.sum(v[0]))
    assert fpx.sum(v[0], fmt, order="numpy").value == float(np.sum(v[0]))


def test_numpy_order_of_float16_accumulates_in_float32_as_numpy_does() -> None:
    v = np.random.default_rng(3).standard_normal(5000).astype(np.float16)
    x = fpx.FormatArray(v, "float16", accumulate="float32", order="numpy")
    assert float(x.sum()) == float(np.sum(v))
    assert np.signbit(float(fpx.FormatArray([-0.0, -0.0], "float16", order="numpy").sum())) == (
        np.signbit(np.sum(np.array([-0.0, -0.0], np.float16)))
    )  # numpy starts from its identity, +0


@pytest.mark.parametrize("order", ["pairwise", "numpy", "kahan", "sequential"])
def test_flags_of_every_order(order: str) -> None:
    """Each addition's flags counted once, whatever the order: 1000 tenths in float16."""
    x = fpx.FormatArray(np.full((1000, 2), 0.1), "float16", order=order)
    s = x.sum(axis=0)
    counts = s.flag_counts
    assert 0 < counts["inexact"] <= 2 * (3 * 999 + 2 if order == "kahan" else 999 + 1)
    assert s.flags == {"inexact"}
    assert s.element_flags(1) == {"inexact"}


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float8_e4m3fn"])
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_and_std_with_ddof(fmt: str, ddof: int) -> None:
    """The sum of squared deviations over n - ddof, every operation rounded."""
    v = _data(fmt, (6, 4), seed=ddof)
    x = fpx.FormatArray(v, fmt)
    mean = _round(fpx.sum(v[:, 1], fmt).value, fmt)
    mean = fpx.div(mean, 6, fmt).value
    squares = [fpx.mul(d, d, fmt).value for d in (fpx.sub(t, mean, fmt).value for t in v[:, 1])]
    want = fpx.div(_round(fpx.sum(squares, fmt).value, fmt), 6 - ddof, fmt).value
    assert float(np.var(x, axis=0, ddof=ddof)[1]) == want
    assert float(x.var(0, ddof=ddof)[1]) == want  # positional axis, the method
    assert float(np.std(x, 0, None, None, ddof)[1]) == fpx.sqrt(want, fmt).value
    assert float(np.var(x, axis=0, correction=ddof)[1]) == want
    assert np.var(x, axis=1, ddof=ddof, keepdims=True).shape == (6, 1)


def test_var_bad_arguments() -> None:
    x = fpx.FormatArray([1.0, 2.0, 4.0], "float16")
    with pytest.raises(TypeError, match="ddof must be a real number, got '1'"):
        x.var(ddof="1")
    with pytest.raises(TypeError, match="not dtype="):
        np.var(x, dtype=np.float64)
    assert x.var(ddof=3).flags == {"division_by_zero"}  # numpy's divisor: max(n - ddof, 0)


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float8_e4m3fn", "float32", "float64"])
def test_einsum_of_three_operands_rounds_each_product_left_to_right(fmt: str) -> None:
    a, b, c = _data(fmt, (3, 4), 1), _data(fmt, (4, 5), 2), _data(fmt, (5, 2), 3)
    got = np.einsum("ij,jk,kl->il", *(fpx.FormatArray(v, fmt) for v in (a, b, c)))
    assert got.shape == (3, 2)
    for i, m in [(0, 0), (2, 1)]:
        terms = [_round(_round(a[i, j] * b[j, k], fmt) * c[k, m], fmt)
                 for j in range(4) for k in range(5)]  # fmt: skip
        s = terms[0]
        for t in terms[1:]:
            s = fpx.add(s, t, fmt).value
        assert float(got[i, m]) == s


def test_einsum_with_ellipsis_and_implicit_output() -> None:
    x = fpx.FormatArray(_data("bfloat16", (2, 3, 4)), "bfloat16")
    w = fpx.FormatArray(_data("bfloat16", (4, 5), 1), "bfloat16")
    assert np.array_equal(np.asarray(np.einsum("...k,kn->...n", x, w)), np.asarray(x @ w))
    assert np.array_equal(np.asarray(np.einsum("...k,kn", x, w)), np.asarray(x @ w))
    square = fpx.FormatArray(_data("float16", (2, 3, 3)), "float16")
    assert np.array_equal(np.asarray(np.einsum("...ii->...i", square)),
                          np.diagonal(np.asarray(square), axis1=1, axis2=2))  # fmt: skip
    u = fpx.FormatArray(_data("float16", (2, 1, 4)), "float16")
    v = fpx.FormatArray(_data("float16", (3, 4), 1), "float16")
    got = np.einsum("...i,...i->...", u, v)  # broadcast 2x1 against 3
    assert got.shape == (2, 3)
    want = fpx.dot(np.asarray(u)[1, 0], np.asarray(v)[2], "float16").value
    assert float(got[1, 2]) == _round(want, "float16")
    with pytest.raises(ValueError, match="names 2 operands, 1 were given"):
        np.einsum("ij,jk", x[0])
