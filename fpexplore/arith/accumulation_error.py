"""DeepSeek-V3's figure of accumulation error against K, computed with a model.

DeepSeek-V3 (arXiv 2412.19437, section 3.3.2) found Hopper's FP8 GEMMs keep about
14 bits while accumulating, a relative error near 2% at K = 4096, and fixed it by
promoting partial sums to float32 every 128 products. :func:`accumulation_error`
repeats the experiment on :func:`~fpexplore.arith.gemm.gemm`'s models: random
matrices of inner dimension K, the relative error of each accumulator's product
against the exact one (float64 products of float32 inputs, summed exactly enough:
``math.fsum`` order is not needed, float64 of a few thousand products of 48 bits
is within ``2**-40`` of it).

>>> r = accumulation_error(ks=(256, 4096), rows=4, cols=4)
>>> r.k
(256, 4096)
>>> r.errors["h100_fp8"][1] > 5 * r.errors["h100_fp8_promoted"][1]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .gemm import gemm as _gemm
from .gemm import get_accumulator

__all__ = ["AccumulationError", "accumulation_error"]

DISTRIBUTIONS = ("uniform", "normal")


@dataclass(frozen=True)
class AccumulationError:
    """Relative errors by accumulator name and K: ``errors[name][i]`` is
    ``sum |C - C_exact| / sum |C_exact|`` at ``k[i]``, ``max_errors`` the largest
    elementwise relative error."""

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

    Parameters
    ----------
    ks : iterable of positive ints
    accumulators : iterable of names of :data:`ACCUMULATORS` or :class:`Accumulator`
    rows, cols : int
        The output's shape (each K draws new matrices).
    seed : int
    distribution : str
        ``"uniform"`` (entries in [0, 1), as MATLAB's ``rand``: the sums grow with
        K, as a GEMM of activations and weights of one sign) or ``"normal"``
        (zero mean: the truncations partly cancel).

    Returns
    -------
    AccumulationError
    """
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    ks = tuple(int(k) for k in ks)
    if not ks or any(k < 1 for k in ks):
        raise ValueError(f"ks must be positive ints, got {ks!r}")
    specs = [get_accumulator(a) for a in accumulators]
    names = [s.name if s.name != "custom" else f"custom{i}" for i, s in enumerate(specs)]
    rng = np.random.default_rng(seed)
    errors: dict[str, list[float]] = {n: [] for n in names}
    largest: dict[str, list[float]] = {n: [] for n in names}
    for k in ks:
        draw = rng.random if distribution == "uniform" else rng.standard_normal
        a = draw((rows, k)).astype(np.float32)
        b = draw((k, cols)).astype(np.float32)
        exact = a.astype(np.float64) @ b.astype(np.float64)
        for name, spec in zip(names, specs, strict=True):
            diff = np.abs(_gemm(a, b, accumulate=spec).astype(np.float64) - exact)
            errors[name].append(float(diff.sum() / np.abs(exact).sum()))
            with np.errstate(divide="ignore", invalid="ignore"):
                largest[name].append(float(np.max(diff / np.abs(exact))))
    return AccumulationError(
        ks, {n: tuple(v) for n, v in errors.items()}, {n: tuple(v) for n, v in largest.items()},
        distribution,
    )  # fmt: skip
