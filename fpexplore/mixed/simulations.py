"""Small numpy simulations of what goes wrong in float16 and how mixed precision fixes it.

Every function rounds each intermediate result to the format under study, as the
hardware would (IEEE 754 round to nearest, ties to even; overflow to inf). float16,
float32 and float64 use numpy's own arithmetic; other formats (``"bfloat16"``, the FP8
formats) go through the core :func:`fpexplore.round_to`. Nothing here needs Keras.

Contents: softmax and crossentropy overflowing in float16 (claims 15 and 16 of the
course), long sums stalling, and float16 matrix products accumulated in float16 versus
float32 (what tensor cores do). Gradient underflow and loss scaling live in
:mod:`fpexplore.mixed.loss_scaling` and are re-exported here.

Longer than 300 lines because each simulation is a few lines of numpy plus the
result record the notebook prints; they share the per-format rounding helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fpexplore.mixed.loss_scaling import (
    LossScaleLog,
    LossScaleSweep,
    UnderflowStats,
    dynamic_loss_scaling,
    format_limits,
    gradient_underflow,
    loss_scale_roundtrip,
    loss_scale_sweep,
    numpy_dtype,
    round_values,
    sample_gradients,
)

__all__ = [
    "AccumulationDemo",
    "DotAccumulation",
    "LossScaleLog",
    "LossScaleSweep",
    "MatmulError",
    "SoftmaxDemo",
    "UnderflowStats",
    "accumulation_demo",
    "crossentropy",
    "dot_product_accumulation",
    "dynamic_loss_scaling",
    "format_limits",
    "gradient_underflow",
    "loss_scale_roundtrip",
    "loss_scale_sweep",
    "matmul_error",
    "matmul_float16",
    "round_values",
    "running_sum",
    "sample_gradients",
    "softmax",
    "softmax_overflow_demo",
    "stall_point",
]


def _sum_last_axis(values: np.ndarray, fmt: str) -> np.ndarray:
    """Sum along the last axis left to right, rounding every partial sum to ``fmt``."""
    total = values[..., :1]
    for k in range(1, values.shape[-1]):
        total = round_values(total + values[..., k : k + 1], fmt)
    return total


def softmax(
    logits: Sequence[float] | np.ndarray, fmt: str = "float16", *, stable: bool = True
) -> np.ndarray:
    """Softmax along the last axis with every intermediate result rounded to ``fmt``.

    ``stable=False`` is the textbook formula ``exp(z) / sum(exp(z))``: in float16,
    ``exp(z)`` overflows to inf as soon as ``z > log(65504) ≈ 11.09``, and inf/inf is
    NaN. ``stable=True`` subtracts the largest logit first (mathematically the same
    result), so every ``exp`` is at most 1.

    Returns float64 values that are representable in ``fmt``.

    Examples
    --------
    >>> softmax([12.0, 1.0, 0.0], "float16", stable=False)
    array([nan,  0.,  0.])
    >>> softmax([12.0, 1.0, 0.0], "float16").round(6)  # 0.999977 rounds to 1 in float16
    array([1.0e+00, 1.7e-05, 6.0e-06])
    """
    z = round_values(logits, fmt)
    if stable:
        z = round_values(z - z.max(axis=-1, keepdims=True), fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        exps = round_values(np.exp(z), fmt)
        return round_values(exps / _sum_last_axis(exps, fmt), fmt)


def crossentropy(
    logits: Sequence[float] | np.ndarray, label: int, fmt: str = "float16", *, stable: bool = True
) -> float:
    """Crossentropy ``-log(softmax(logits)[label])`` of one sample, computed in ``fmt``.

    ``stable=False`` takes the log of the naive softmax: NaN when ``exp`` overflowed, inf
    when the label's probability underflowed to 0. ``stable=True`` uses the log-sum-exp
    form ``log(sum(exp(z - max))) - (z[label] - max)``, which never exponentiates a
    positive number and never takes the log of a tiny probability.

    Examples
    --------
    >>> crossentropy([10.0, -10.0, 0.0], label=1, stable=False)  # p = 2e-9 -> 0 -> -log 0
    inf
    >>> crossentropy([10.0, -10.0, 0.0], label=1)
    20.0
    """
    z = round_values(logits, fmt)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if not stable:
            probs = softmax(z, fmt, stable=False)
            return float(round_values(-np.log(probs[label]), fmt))
        shifted = round_values(z - z.max(), fmt)
        log_total = round_values(
            np.log(_sum_last_axis(round_values(np.exp(shifted), fmt), fmt)), fmt
        )
        return float(round_values(log_total[0] - shifted[label], fmt))


@dataclass(frozen=True, eq=False)
class SoftmaxDemo:
    """Softmax and crossentropy of one sample, naive and stable in ``fmt``, in float32
    (what Keras does for a final layer built with ``dtype="float32"``) and exact (float64).
    """

    fmt: str
    logits: np.ndarray
    label: int
    exp_naive: np.ndarray
    probs_naive: np.ndarray
    probs_stable: np.ndarray
    probs_float32: np.ndarray
    probs_exact: np.ndarray
    loss_naive: float
    loss_stable: float
    loss_float32: float
    loss_exact: float


def softmax_overflow_demo(
    logits: Sequence[float] = (12.0, 1.0, 0.0), label: int = 0, fmt: str = "float16"
) -> SoftmaxDemo:
    """Compute one sample's softmax and crossentropy every way, for side-by-side display.

    Examples
    --------
    >>> demo = softmax_overflow_demo()
    >>> float(demo.exp_naive[0]), demo.loss_naive   # exp(12) = 162754.8 > 65504
    (inf, nan)
    >>> round(demo.loss_float32, 6), round(demo.loss_exact, 6)
    (2.3e-05, 2.3e-05)
    """
    z = round_values(logits, fmt)
    with np.errstate(over="ignore"):
        exp_naive = round_values(np.exp(z), fmt)
    return SoftmaxDemo(
        fmt=str(fmt),
        logits=z,
        label=int(label),
        exp_naive=exp_naive,
        probs_naive=softmax(z, fmt, stable=False),
        probs_stable=softmax(z, fmt),
        probs_float32=softmax(z, "float32"),
        probs_exact=softmax(z, "float64"),
        loss_naive=crossentropy(z, label, fmt, stable=False),
        loss_stable=crossentropy(z, label, fmt),
        loss_float32=crossentropy(z, label, "float32"),
        loss_exact=crossentropy(z, label, "float64"),
    )


def running_sum(terms: Sequence[float] | np.ndarray, fmt: str = "float16") -> np.ndarray:
    """Partial sums of ``terms`` added left to right in a ``fmt`` accumulator.

    Each term is first stored in ``fmt``, and each partial sum is rounded to ``fmt``.

    Examples
    --------
    >>> running_sum([1.0] * 2050, "float16")[-3:]  # 2048 + 1 rounds back to 2048
    array([2048., 2048., 2048.])
    """
    stored = round_values(terms, fmt)
    dtype = numpy_dtype(fmt)
    if dtype is not None:  # numpy's cumsum adds sequentially, rounding each step
        with np.errstate(over="ignore", invalid="ignore"):
            return np.cumsum(stored.astype(dtype), dtype=dtype).astype(np.float64)
    sums = np.empty_like(stored)
    total = np.zeros(1)
    for k, term in enumerate(stored):
        total = round_values(total + term, fmt)
        sums[k] = total[0]
    return sums


def stall_point(increment: float, fmt: str = "float16", max_terms: int = 1_000_000) -> float:
    """The value at which adding ``increment`` again no longer changes a ``fmt`` sum.

    NaN if the sum has not stalled after ``max_terms`` additions.

    Examples
    --------
    >>> stall_point(1.0, "float16")
    2048.0
    """
    step = round_values([increment], fmt)
    total = np.zeros(1)
    for _ in range(max_terms):
        new_total = round_values(total + step, fmt)
        if new_total[0] == total[0]:
            return float(total[0])
        total = new_total
    return float("nan")


@dataclass(frozen=True, eq=False)
class AccumulationDemo:
    """Partial sums of ``increment`` added ``n_terms`` times, per accumulator format."""

    increment: float
    n_terms: np.ndarray
    exact: np.ndarray
    sums: dict[str, np.ndarray]
    stall: dict[str, float]


def accumulation_demo(
    increment: float = 1.0,
    n_terms: int = 4096,
    formats: Sequence[str] = ("float16", "bfloat16", "float32"),
) -> AccumulationDemo:
    """Add ``increment`` to itself ``n_terms`` times in each format; find where each stalls.

    Examples
    --------
    >>> demo = accumulation_demo(1.0, 3000, formats=("float16", "float32"))
    >>> demo.stall, float(demo.sums["float32"][-1])
    ({'float16': 2048.0, 'float32': nan}, 3000.0)
    """
    terms = np.full(n_terms, float(increment))
    return AccumulationDemo(
        increment=float(increment),
        n_terms=np.arange(1, n_terms + 1),
        exact=float(increment) * np.arange(1, n_terms + 1),
        sums={str(f): running_sum(terms, f) for f in formats},
        stall={str(f): stall_point(increment, f, max_terms=n_terms) for f in formats},
    )


@dataclass(frozen=True, eq=False)
class DotAccumulation:
    """Relative error of a long dot product's partial sums, per accumulator.

    ``float16``: products rounded to float16 and summed in float16. ``float32``: exact
    products of the float16 inputs summed in float32, as tensor cores do.
    """

    n_terms: np.ndarray
    exact: np.ndarray
    rel_error: dict[str, np.ndarray]


def dot_product_accumulation(n_terms: int = 4096, seed: int = 0) -> DotAccumulation:
    """Dot product of two random float16 vectors (entries uniform in [0, 1)).

    Examples
    --------
    >>> acc = dot_product_accumulation(4096)
    >>> bool(acc.rel_error["float16"][-1] > 100 * acc.rel_error["float32"][-1])
    True
    """
    rng = np.random.default_rng(seed)
    a, b = (round_values(rng.random(n_terms), "float16") for _ in range(2))
    products = a * b  # exact in float64 (and in float32): 11 + 11 significand bits
    exact = np.cumsum(products)
    sums = {
        "float16": running_sum(products, "float16"),
        "float32": running_sum(products, "float32"),
    }
    return DotAccumulation(
        n_terms=np.arange(1, n_terms + 1),
        exact=exact,
        rel_error={name: np.abs(s - exact) / exact for name, s in sums.items()},
    )


def matmul_float16(a: np.ndarray, b: np.ndarray, accumulate: str = "float32") -> np.ndarray:
    """``a @ b`` on float16 inputs, accumulating in ``"float32"`` or ``"float16"``.

    The result is left in the accumulator format and returned as float64. Note that
    numpy's own ``float16 @ float16`` already accumulates in float32; the
    ``"float16"`` path adds one outer product at a time in float16 arithmetic.

    Examples
    --------
    >>> a = np.full((1, 4096), 0.1)
    >>> b = np.ones((4096, 1))
    >>> matmul_float16(a, b, "float32"), matmul_float16(a, b, "float16")
    (array([[409.5]]), array([[256.]]))
    """
    a16 = np.asarray(a, dtype=np.float64).astype(np.float16)
    b16 = np.asarray(b, dtype=np.float64).astype(np.float16)
    if accumulate == "float32":
        return (a16.astype(np.float32) @ b16.astype(np.float32)).astype(np.float64)
    if accumulate != "float16":
        raise ValueError(f"accumulate must be 'float32' or 'float16', got {accumulate!r}")
    c = np.zeros((a16.shape[0], b16.shape[1]), dtype=np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(a16.shape[1]):
            c = c + a16[:, k : k + 1] * b16[k : k + 1, :]
    return c.astype(np.float64)


@dataclass(frozen=True, eq=False)
class MatmulError:
    """Max and mean relative error of float16 matrix products against float64, per
    inner dimension ``k`` (one entry per size) and per accumulator."""

    inner_size: np.ndarray
    max_rel_error: dict[str, np.ndarray]
    mean_rel_error: dict[str, np.ndarray]


def matmul_error(
    inner_sizes: Sequence[int] = (16, 64, 256, 1024, 4096), size: int = 64, seed: int = 0
) -> MatmulError:
    """Error of ``(size x k) @ (k x size)`` float16 products for each ``k`` in ``inner_sizes``.

    Entries are uniform in [0, 1) and rounded to float16; the reference is the float64
    product of the same float16 inputs, so only the accumulation error is measured.
    Positive entries mean no cancellation, so every entry's relative error is meaningful.

    Examples
    --------
    >>> err = matmul_error((256,), size=16)
    >>> bool(err.max_rel_error["float32"][0] < 1e-6 < 1e-3 < err.max_rel_error["float16"][0])
    True
    """
    rng = np.random.default_rng(seed)
    accumulators = ("float16", "float32")
    max_err = {name: np.empty(len(inner_sizes)) for name in accumulators}
    mean_err = {name: np.empty(len(inner_sizes)) for name in accumulators}
    for i, k in enumerate(inner_sizes):
        a = round_values(rng.random((size, k)), "float16")
        b = round_values(rng.random((k, size)), "float16")
        reference = a @ b
        for name in accumulators:
            rel = np.abs(matmul_float16(a, b, name) - reference) / reference
            max_err[name][i], mean_err[name][i] = rel.max(), rel.mean()
    return MatmulError(np.asarray(inner_sizes), max_err, mean_err)
