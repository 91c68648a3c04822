"""DeepSeek-V3's figure of accumulation error against K, computed with a model.

DeepSeek-V3 (arXiv 2412.19437, section 3.3.2) found Hopper's FP8 GEMMs keep about
14 bits while accumulating ("a maximum relative error of nearly 2%" for two random
matrices at K = 4096) and fixed it by promoting partial sums to float32 every 128
products. :func:`accumulation_error` repeats the experiment on
:func:`~fpexplore.arith.gemm.gemm`'s models: random matrices of inner dimension K,
the relative error of each accumulator's product against the exact one (float64
products of float32 inputs, summed in float64: its rounding, at most
``K 2**-53 sum |a| |b|``, is far below the errors measured).

The report does not say which random matrices it drew or how it took the error
(asked in deepseek-ai/DeepSeek-V3 issue #659; the answer pointed to a later paper),
and the model brackets its figure rather than hitting it: at K = 4096, 7.7% for
inputs of one sign (the default) and 0.18% for zero-mean normal inputs (see
:func:`accumulation_error`).

>>> r = accumulation_error(ks=(256, 4096), rows=4, cols=4)
>>> r.k
(256, 4096)
>>> r.errors["h100_fp8"][1] > 5 * r.errors["h100_fp8_promoted"][1]
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .gemm import ACCUMULATORS, Accumulator
from .gemm import gemm as _gemm

__all__ = ["AccumulationError", "accumulation_error"]

DISTRIBUTIONS = ("uniform", "normal")


@dataclass(frozen=True)
class AccumulationError:
    """Relative errors by accumulator name and K: ``errors[name][i]`` is
    ``sum |C - C_exact| / sum |C_exact|`` over the output at ``k[i]``, ``max_errors``
    the largest elementwise ``|C - C_exact| / |C_exact|``; ``distribution`` names the
    inputs."""

    k: tuple[int, ...]
    errors: dict[str, tuple[float, ...]] = field(default_factory=dict)
    max_errors: dict[str, tuple[float, ...]] = field(default_factory=dict)
    distribution: str = "uniform"

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (accumulator, K): ``accumulator``, ``k``, ``rel_error``,
        ``max_rel_error``."""
        return [
            {"accumulator": name, "k": k, "rel_error": e, "max_rel_error": x}
            for name in self.errors
            for k, e, x in zip(self.k, self.errors[name], self.max_errors[name], strict=True)
        ]


def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _to_int(value: numbers.Real) -> int | None:
    """A real number as an int when it is whole (ints, numpy ints, floats such as
    256.0), else None."""
    if isinstance(value, numbers.Integral):
        return int(value)
    f = float(value)
    return int(f) if math.isfinite(f) and f.is_integer() else None


def _whole(value: Any, name: str, low: int) -> int:
    """``value`` as an int >= ``low``: ints, numpy ints and floats of whole value."""
    what = f"{name} must be a whole number >= {low}, got {value!r}"
    if not _real(value):
        raise TypeError(what)
    number = _to_int(value)
    if number is None or number < low:
        raise ValueError(what)
    return number


def _ks(ks: Any) -> tuple[int, ...]:
    what = "ks must be whole numbers >= 1 (each K, the products summed per output)"
    if isinstance(ks, np.ndarray):
        if ks.ndim > 1:
            raise TypeError(f"{what}, one K or a 1-d sequence of them; got shape {ks.shape}")
        ks = ks.reshape(-1).tolist()
    if _real(ks):
        ks = (ks,)
    if isinstance(ks, str | bytes) or not isinstance(ks, Iterable):
        raise TypeError(f"{what}, one K or a sequence of them; got {ks!r}")
    values = tuple(ks)
    if not values:
        raise ValueError("ks must name at least one K, got none")
    out = []
    for k in values:
        if not _real(k):
            raise TypeError(f"{what}; got {k!r} in ks")
        number = _to_int(k)
        if number is None:
            raise ValueError(f"{what}; got {k!r} in ks, not a whole number")
        if number < 1:
            raise ValueError(f"{what}; got {k!r} in ks")
        out.append(number)
    return tuple(out)


def _accumulators(accumulators: Any) -> tuple[list[str], list[Accumulator]]:
    if isinstance(accumulators, str | Accumulator):
        accumulators = (accumulators,)
    if not isinstance(accumulators, Iterable):
        raise TypeError(
            f"accumulators must be names of ACCUMULATORS or Accumulators, got {accumulators!r}"
        )
    specs = []
    for a in accumulators:
        if isinstance(a, Accumulator):
            specs.append(a)
        elif isinstance(a, str):
            if a.lower() not in ACCUMULATORS:
                raise ValueError(
                    f"accumulators: unknown name {a!r}; the names are "
                    f"{', '.join(ACCUMULATORS)} (or pass an Accumulator)"
                )
            specs.append(ACCUMULATORS[a.lower()])
        else:
            raise TypeError(
                f"accumulators must be names of ACCUMULATORS or Accumulators, got {a!r}"
            )
    if not specs:
        raise ValueError("accumulators must name at least one accumulator, got none")
    names = [s.name if s.name != "custom" else f"custom{i}" for i, s in enumerate(specs)]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(
                f"accumulators name {name!r} more than once: each result is keyed by "
                "its accumulator's name, so give each Accumulator its own name="
            )
        seen.add(name)
    return names, specs


def accumulation_error(
    ks: Any = (256, 512, 1024, 2048, 4096, 8192, 16384),
    accumulators: Any = ("h100_fp8", "h100_fp8_promoted"),
    *,
    rows: int = 16,
    cols: int = 16,
    seed: int = 0,
    distribution: str = "uniform",
) -> AccumulationError:
    """The relative error of ``gemm(a, b, accumulate=...)`` against the exact
    product for random ``rows x K`` and ``K x cols`` float32 matrices, for each K.

    What it reports. For each accumulator and K, ``errors``: the error of the whole
    output relative to its size, ``sum |C - C_exact| / sum |C_exact|`` (the figure the
    docs and notebook 09 quote); and ``max_errors``: the largest ``|C - C_exact| /
    |C_exact|`` over the ``rows x cols`` outputs, DeepSeek-V3's "maximum relative
    error". For inputs of one sign the two agree (8.1% against 7.7% at K = 4096); for
    zero-mean inputs the maximum is set by whichever output lands nearest zero, so it
    grows with the number of outputs and varies from seed to seed (65% at K = 4096
    with the defaults): read ``errors`` there.

    With the defaults (uniform inputs, 16 x 16 outputs, seed 0) ``h100_fp8`` loses
    2.0% at K = 1024, 7.7% at K = 4096 and 26% at K = 16384, ``h100_fp8_promoted``
    0.21% at every K; normal inputs give 0.10%, 0.18% and 0.38% unpromoted and about
    0.04% promoted. DeepSeek-V3's "nearly 2%" at K = 4096 lies between the two: the report
    names neither its inputs nor its statistic, and with this model one-sign inputs
    reach 2% at K = 1024. Inputs rounded to E4M3 first change little (6.6% and 0.12%
    at K = 4096).

    Why inputs of one sign lose more (measured here, see the tests): the accumulator
    truncates each product toward zero below the largest exponent of its group and
    the running sum. With products of one sign every cut lowers the sum, so every
    output's error has the sign opposite to C and the errors add up; the running sum
    grows as K and with it the size of each cut, so the relative error grows as K
    (x4 per x4 of K). With zero-mean products the cuts go both ways and partly
    cancel, and the running sum grows only as sqrt(K): although ``|C|`` is itself
    small by cancellation (about sqrt(K), against ``sum |a||b|`` about K), the
    relative error grows about as sqrt(K) and is 40x smaller at K = 4096.

    Parameters
    ----------
    ks : int, or an iterable of ints (whole numbers >= 1)
        The inner dimensions K. Floats of whole value (``256.0``, as
        ``np.logspace(8, 14, 7, base=2)`` gives) are taken as ints; ``300.7`` raises
        ``ValueError`` and a bool ``TypeError``. Each K draws new matrices.
    accumulators : str, Accumulator, or an iterable of them
        Names of :data:`ACCUMULATORS` or :class:`Accumulator` models. Each result
        is keyed by the accumulator's name (``custom0``, ``custom1``, ... by position
        for unnamed ones): two with one name raise ``ValueError``.
    rows, cols : whole numbers >= 1
        The output's shape.
    seed : int >= 0
        For :func:`numpy.random.default_rng`; for each K ``a`` is drawn, then ``b``.
    distribution : str
        ``"uniform"`` (the default: entries in [0, 1), as MATLAB's ``rand`` and
        torch's ``rand``: a GEMM of activations and weights of one sign) or
        ``"normal"`` (standard normal, as ``randn``: zero mean, the truncations
        partly cancel).

    Returns
    -------
    AccumulationError
    """
    if not isinstance(distribution, str) or distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    ks = _ks(ks)
    names, specs = _accumulators(accumulators)
    rows, cols = _whole(rows, "rows", 1), _whole(cols, "cols", 1)
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int >= 0, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    draw = rng.random if distribution == "uniform" else rng.standard_normal
    errors: dict[str, list[float]] = {n: [] for n in names}
    largest: dict[str, list[float]] = {n: [] for n in names}
    for k in ks:
        a = draw((rows, k)).astype(np.float32)
        b = draw((k, cols)).astype(np.float32)
        exact = a.astype(np.float64) @ b.astype(np.float64)
        size = np.abs(exact)
        for name, spec in zip(names, specs, strict=True):
            diff = np.abs(_gemm(a, b, accumulate=spec).astype(np.float64) - exact)
            errors[name].append(float(diff.sum() / size.sum()))
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = np.where(diff == 0, 0.0, diff / size)  # an exact 0 counts as 0
            largest[name].append(float(np.max(rel)))
    return AccumulationError(
        ks, {n: tuple(v) for n, v in errors.items()}, {n: tuple(v) for n, v in largest.items()},
        distribution,
    )  # fmt: skip
