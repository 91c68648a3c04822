"""Gradient underflow in float16 and loss scaling, static and dynamic (numpy only).

Why it is needed: float16 has a narrow range. Its smallest subnormal is 2**-24
(about 5.96e-8), so a gradient smaller than half of that, 2**-25, rounds to zero in
round-to-nearest (IEEE 754-2019, section 4.3.1). Loss scaling multiplies the loss by a
large factor S before the backward pass, which multiplies every gradient by S (chain
rule), moving small gradients into float16's range; the float32 gradients are divided
by S again before the optimizer uses them. Keras does this automatically under the
``"mixed_float16"`` policy with ``keras.optimizers.LossScaleOptimizer`` (initial scale
2**15, ``dynamic_growth_steps=2000``); see the Keras mixed-precision guide.

bfloat16 has float32's exponent range, so the ``"mixed_bfloat16"`` policy needs no
loss scaling.

Longer than 300 lines because the static sweep, its usable window and the dynamic
scaler are one story (one job: loss scaling) told with result records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from fpexplore import FormatLike, get_format, round_to

__all__ = [
    "LossScaleLog",
    "LossScaleSweep",
    "UnderflowStats",
    "dynamic_loss_scaling",
    "format_limits",
    "gradient_underflow",
    "loss_scale_roundtrip",
    "loss_scale_sweep",
    "round_values",
    "sample_gradients",
]

_NUMPY_FORMATS = {
    "float16": np.float16,
    "half": np.float16,
    "float32": np.float32,
    "single": np.float32,
    "float64": np.float64,
    "double": np.float64,
}


def numpy_dtype(fmt: object) -> type | None:
    """The numpy scalar type for float16/32/64 given by name or dtype, else None."""
    if isinstance(fmt, str):
        return _NUMPY_FORMATS.get(fmt.lower())
    try:
        dtype = np.dtype(fmt)  # type: ignore[call-overload]
    except TypeError:
        return None
    return dtype.type if dtype.type in (np.float16, np.float32, np.float64) else None


def round_values(values: ArrayLike, fmt: FormatLike) -> np.ndarray:
    """Round float64 ``values`` to ``fmt`` (nearest-even, overflow to inf); float64 out.

    float16/32/64 use numpy's own correctly rounded casts; any other format (bfloat16,
    FP8, ...) goes through the core :func:`fpexplore.round_to`.
    """
    values = np.asarray(values, dtype=np.float64)
    dtype = numpy_dtype(fmt)
    if dtype is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(dtype).astype(np.float64)
    return np.asarray(round_to(values, fmt), dtype=np.float64)


def format_limits(fmt: FormatLike) -> dict[str, float]:
    """``max``, ``smallest_normal``, ``smallest_subnormal`` and ``eps`` of ``fmt``."""
    dtype = numpy_dtype(fmt)
    info: object
    if dtype is not None:
        info = np.finfo(dtype)
    else:
        info = get_format(fmt)
    names = ("max", "smallest_normal", "smallest_subnormal", "eps")
    return {name: float(getattr(info, name)) for name in names}


def sample_gradients(
    n: int = 100_000, *, median: float = 1e-6, decades: float = 1.5, seed: int = 0
) -> np.ndarray:
    """Draw ``n`` gradient values with log-normal magnitudes and random signs.

    ``log10(|g|)`` is normal with mean ``log10(median)`` and standard deviation
    ``decades``. Activation gradients of real networks spread over many decades like
    this, with a large share below float16's range (Micikevicius et al., "Mixed
    Precision Training", ICLR 2018, figure 3).

    Examples
    --------
    >>> g = sample_gradients(1000, seed=1)
    >>> g.shape, g.dtype, bool(np.all(g != 0))
    ((1000,), dtype('float64'), True)
    """
    rng = np.random.default_rng(seed)
    exponents = rng.normal(np.log10(median), decades, size=n)
    signs = rng.choice(np.array([-1.0, 1.0]), size=n)
    return signs * 10.0**exponents


def loss_scale_roundtrip(
    gradients: np.ndarray | Sequence[float], scale: float = 2.0**15, fmt: str = "float16"
) -> np.ndarray:
    """Scale gradients, store them in ``fmt``, then unscale them in float32.

    This is what one backward pass under loss scaling does to each gradient value:
    ``float32(round_fmt(g * scale)) / scale``. With ``scale=1`` it shows plain
    underflow.

    Examples
    --------
    >>> loss_scale_roundtrip([1e-8], scale=1.0)  # below 2**-25: rounds to zero
    array([0.], dtype=float32)
    >>> loss_scale_roundtrip([1e-8], scale=2.0**15)
    array([9.997166e-09], dtype=float32)
    """
    stored = round_values(np.asarray(gradients, dtype=np.float64) * scale, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        return stored.astype(np.float32) / np.float32(scale)


@dataclass(frozen=True)
class UnderflowStats:
    """What happens to a set of gradients stored in ``fmt`` after scaling by ``scale``.

    Fractions are of all input values. ``fraction_zero``: became exactly 0;
    ``fraction_subnormal``: became subnormal (kept, but with fewer significant bits);
    ``fraction_overflow``: became inf; ``median_rel_error``: median relative error of the
    finite, nonzero recovered gradients.
    """

    fmt: str
    scale: float
    fraction_zero: float
    fraction_subnormal: float
    fraction_overflow: float
    median_rel_error: float


def gradient_underflow(
    gradients: np.ndarray, scale: float = 1.0, fmt: str = "float16"
) -> UnderflowStats:
    """Count the gradients lost to underflow (and overflow) in ``fmt`` at a loss scale.

    Examples
    --------
    >>> g = sample_gradients(100_000, seed=0)
    >>> round(gradient_underflow(g).fraction_zero, 3)
    0.154
    >>> gradient_underflow(g, scale=2.0**15).fraction_zero  # 1 in 100,000 left
    1e-05
    """
    g = np.asarray(gradients, dtype=np.float64)
    stored = round_values(g * scale, fmt)
    smallest_normal = format_limits(fmt)["smallest_normal"]
    recovered = loss_scale_roundtrip(g, scale, fmt).astype(np.float64)
    kept = np.isfinite(recovered) & (recovered != 0) & (g != 0)
    rel_error = np.abs(recovered[kept] - g[kept]) / np.abs(g[kept])
    return UnderflowStats(
        fmt=str(fmt),
        scale=float(scale),
        fraction_zero=float(np.mean((stored == 0) & (g != 0))),
        fraction_subnormal=float(np.mean((stored != 0) & (np.abs(stored) < smallest_normal))),
        fraction_overflow=float(np.mean(~np.isfinite(stored))),
        median_rel_error=float(np.median(rel_error)) if rel_error.size else float("nan"),
    )


@dataclass(frozen=True, eq=False)
class LossScaleSweep:
    """Fractions of gradients zeroed, subnormal and overflowed, one entry per scale."""

    fmt: str
    scale: np.ndarray
    fraction_zero: np.ndarray
    fraction_subnormal: np.ndarray
    fraction_overflow: np.ndarray

    def window(self, tolerance: float = 1e-3) -> tuple[float, float] | None:
        """The smallest and largest scale that overflow nothing and zero at most ``tolerance``.

        Any overflow makes Keras skip the step, so none is allowed; underflow only loses
        the gradients it zeroes, so a small ``tolerance`` (a fraction) is. None when no
        scale qualifies.

        Examples
        --------
        >>> sweep = loss_scale_sweep(sample_gradients(10_000), scales=2.0 ** np.arange(0, 41))
        >>> [float(np.log2(s)) for s in sweep.window()]
        [11.0, 18.0]
        """
        if not 0 <= tolerance < 1:
            raise ValueError(f"tolerance must be a fraction in [0, 1), got {tolerance!r}")
        usable = self.scale[(self.fraction_overflow == 0) & (self.fraction_zero <= tolerance)]
        return (float(usable.min()), float(usable.max())) if usable.size else None


def loss_scale_sweep(
    gradients: np.ndarray, scales: Sequence[float] | np.ndarray | None = None, fmt: str = "float16"
) -> LossScaleSweep:
    """Run :func:`gradient_underflow` for each scale (default ``2**0 .. 2**40``).

    Too small a scale loses gradients to zero; too large a scale overflows to inf.

    Examples
    --------
    >>> sweep = loss_scale_sweep(sample_gradients(10_000), scales=[1.0, 2.0**15, 2.0**40])
    >>> sweep.fraction_zero.round(3).tolist(), sweep.fraction_overflow.round(3).tolist()
    ([0.152, 0.0, 0.0], [0.0, 0.0, 0.797])
    """
    if scales is None:
        scales = 2.0 ** np.arange(0, 41)
    stats = [gradient_underflow(gradients, s, fmt) for s in scales]
    return LossScaleSweep(
        fmt=str(fmt),
        scale=np.asarray(scales, dtype=np.float64),
        fraction_zero=np.array([s.fraction_zero for s in stats]),
        fraction_subnormal=np.array([s.fraction_subnormal for s in stats]),
        fraction_overflow=np.array([s.fraction_overflow for s in stats]),
    )


@dataclass(frozen=True, eq=False)
class LossScaleLog:
    """Per-step record of a dynamic loss-scaling run; every field has one entry per step.

    ``scale``: the loss scale used in the step; ``max_scaled_gradient``: the largest
    scaled gradient as stored in ``fmt`` (inf on overflow); ``applied``: False when the
    step was skipped; ``good_steps``: consecutive good steps counted after the step;
    ``next_scale``: the scale the next step uses.
    """

    fmt: str
    growth_steps: int
    step: np.ndarray
    max_abs_gradient: np.ndarray
    scale: np.ndarray
    max_scaled_gradient: np.ndarray
    applied: np.ndarray
    good_steps: np.ndarray
    next_scale: np.ndarray

    def explain(self) -> list[str]:
        """One sentence per step saying what the loss scaler did and why."""
        lines = []
        for i in range(self.step.size):
            head = (
                f"step {self.step[i]}: scale 2**{np.log2(self.scale[i]):g}, "
                f"max |g| = {self.max_abs_gradient[i]:.3g}, scaled = "
                f"{self.max_scaled_gradient[i]:.6g} in {self.fmt}"
            )
            if not self.applied[i]:
                tail = f"not finite: skip the update, halve the scale to {self.next_scale[i]:g}"
            elif self.next_scale[i] > self.scale[i]:
                tail = (
                    f"finite, {self.growth_steps} good steps in a row: apply, "
                    f"double the scale to {self.next_scale[i]:g}"
                )
            else:
                tail = f"finite: apply the update ({self.good_steps[i]} good in a row)"
            lines.append(f"{head} -> {tail}")
        return lines


def dynamic_loss_scaling(
    max_abs_gradients: Sequence[float] | np.ndarray,
    *,
    initial_scale: float = 2.0**15,
    growth_steps: int = 2000,
    fmt: str = "float16",
) -> LossScaleLog:
    """Simulate Keras's dynamic loss scaling over a sequence of training steps.

    Step ``i`` has unscaled gradients whose largest magnitude is
    ``max_abs_gradients[i]`` (NaN or inf stands for a step whose gradients are not
    finite whatever the scale). The rule, as in ``keras.optimizers.LossScaleOptimizer``:
    if the scaled gradients are not finite in ``fmt``, skip the update, halve the scale
    and reset the counter; otherwise apply the update (gradients divided by the scale in
    float32), and after ``growth_steps`` consecutive good steps double the scale and
    reset the counter.

    Examples
    --------
    >>> log = dynamic_loss_scaling([1.0, 4.0, 1.0, 1.0], growth_steps=2)
    >>> log.scale.tolist(), log.applied.tolist()
    ([32768.0, 32768.0, 16384.0, 16384.0], [True, False, True, True])
    >>> float(log.next_scale[-1])  # two good steps in a row: doubled again
    32768.0
    """
    if growth_steps < 1:
        raise ValueError(f"growth_steps must be at least 1, got {growth_steps}")
    maxima = np.asarray(max_abs_gradients, dtype=np.float64)
    n = maxima.size
    scale_used, scaled_max = np.empty(n), np.empty(n)
    applied, good = np.empty(n, dtype=bool), np.empty(n, dtype=np.int64)
    next_scale = np.empty(n)
    scale, counter = float(initial_scale), 0
    for i in range(n):
        scale_used[i] = scale
        with np.errstate(invalid="ignore", over="ignore"):
            scaled_max[i] = round_values(np.array([maxima[i] * scale]), fmt)[0]
        applied[i] = bool(np.isfinite(scaled_max[i]))
        if not applied[i]:
            scale, counter = scale / 2, 0
        elif counter + 1 == growth_steps:
            scale, counter = scale * 2, 0
        else:
            counter += 1
        good[i], next_scale[i] = counter, scale
    return LossScaleLog(
        fmt=str(fmt),
        growth_steps=int(growth_steps),
        step=np.arange(n),
        max_abs_gradient=maxima,
        scale=scale_used,
        max_scaled_gradient=scaled_max,
        applied=applied,
        good_steps=good,
        next_scale=next_scale,
    )
