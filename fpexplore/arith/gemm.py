"""Matrix products with a model of a tensor core's accumulator (:func:`gemm`).

A tensor core does not add products one at a time in float32. Khattak and
Mikaitis ("Accurate Models of NVIDIA Tensor Cores", ACM TACO; the parameterised
models of ``north-numerical-computing/MATLAB-tensor-core``, ``Generic_BFMA_TC.m``)
model each step as a block fused multiply-add: a *group* of ``n`` exact products
and the running sum ``c`` are aligned to the largest exponent among them (the
product exponents being ``ea + eb``, the input exponents clamped at -126), each
term is cut to ``bits`` fraction bits below that exponent (the aligned significands
*truncated*; the model's ``23 + neab`` bits), the terms are added exactly, and the
sum is rounded (toward zero, on Hopper and Blackwell) to ``min(bits, 23)``
fraction bits in float32's exponent range: the new ``c``. On H100 FP8 GEMMs
``n = 32`` and ``neab = -10``: 13 fraction bits, about 14 bits of accumulator,
as DeepSeek-V3 (arXiv 2412.19437, section 3.3.2) measured on H800 (a relative
error near 2% at K = 4096). Their fix *promotes*: every ``N_C = 128`` products the
partial sum is added into a float32 accumulator on the CUDA cores (IEEE round to
nearest) and the tensor core starts again from 0.

:class:`Accumulator` holds the parameters, :data:`ACCUMULATORS` the presets, and
:func:`gemm` computes ``a @ b`` with one: the float32 inputs' products are exact
in float64, the alignment and the sums are integers, so every step is exact
before its one rounding; :func:`fpexplore.jax.gemm` computes the same with 32-bit
integers inside ``jit``, bit for bit.

>>> a = np.full((1, 64), 1.0, np.float32)
>>> b = np.full((64, 1), 2.0**-12, np.float32)
>>> b[0, 0] = 1024.0
>>> float(gemm(a, b, accumulate="h100_fp8")[0, 0])  # the small products fall below 2**-3
1024.0
>>> float(gemm(a, b)[0, 0])
1024.015380859375
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ACCUMULATORS", "Accumulator", "gemm", "get_accumulator"]

ALIGNMENTS = ("truncate", "nearest")
FINAL_ROUNDINGS = ("toward_zero", "nearest_even")
MIN_EXPONENT = -133  # the model's min_exp_limit: the alignment exponent is at least this
INPUT_EMIN = -126  # float32 inputs: a subnormal's exponent counts as -126


def _int_in(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an int from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an int from {low} to {high}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Accumulator:
    """A tensor core's accumulation, as Khattak and Mikaitis model it.

    Parameters
    ----------
    group : int
        Products per block fused multiply-add (the model's ``fma``): 1 to 4096.
    bits : int or None
        Fraction bits kept below the group's largest exponent (``23 + neab``):
        0 to 27, and at most what the exact 32-bit sum allows, ``(4 group + 2)
        2**bits < 2**31`` (23 for groups of 32). None: no model, the platform's float32
        matmul (:data:`ACCUMULATORS` ``"float32"``).
    alignment : str
        ``"truncate"`` (the hardware) or ``"nearest"`` (ties to even): how each
        aligned term loses its bits below the cut.
    final : str
        ``"toward_zero"`` (Hopper, Blackwell) or ``"nearest_even"``: the rounding of
        each group's sum to ``min(bits, 23)`` fraction bits.
    promote_every : int or None
        ``N_C``: every this many products the partial sum is added into a float32
        accumulator (round to nearest) and restarts from 0; a multiple of
        ``group``. None: never (the whole sum stays in the tensor core).
    name : str
        A label.

    >>> Accumulator(group=32, bits=13, promote_every=128).promote_every
    128
    """

    group: int = 32
    bits: int | None = 13
    alignment: str = "truncate"
    final: str = "toward_zero"
    promote_every: int | None = None
    name: str = "custom"

    def __post_init__(self) -> None:
        group = _int_in(self.group, "group", 1, 4096)
        if self.bits is not None:
            most = max(b for b in range(28) if (4 * group + 2) << b < 2**31)
            _int_in(self.bits, "bits", 0, most)
        if self.alignment not in ALIGNMENTS:
            raise ValueError(f"alignment must be one of {ALIGNMENTS}, got {self.alignment!r}")
        if self.final not in FINAL_ROUNDINGS:
            raise ValueError(f"final must be one of {FINAL_ROUNDINGS}, got {self.final!r}")
        if self.promote_every is not None:
            every = _int_in(self.promote_every, "promote_every", group, 2**31 - 1)
            if every % group:
                raise ValueError(
                    f"promote_every must be a multiple of group ({group}), got {every}"
                )

    @property
    def output_bits(self) -> int:
        """Fraction bits of each group's rounded sum: ``min(bits, 23)``."""
        return 23 if self.bits is None else min(self.bits, 23)


ACCUMULATORS: dict[str, Accumulator] = {
    a.name: a
    for a in (
        Accumulator(bits=None, name="float32"),
        # Khattak and Mikaitis, models/H100TC.m, FP8 inputs: fma = 32, neab = -10, rz
        Accumulator(group=32, bits=13, final="toward_zero", name="h100_fp8"),
        # DeepSeek-V3 section 3.3.2: promotion to float32 every N_C = 128 elements
        Accumulator(
            group=32, bits=13, final="toward_zero", promote_every=128, name="h100_fp8_promoted"
        ),
    )
}
"""The accumulators by name: ``float32`` (the platform's float32 matmul),
``h100_fp8`` (Khattak and Mikaitis' H100 model for FP8 inputs: groups of 32, 13
fraction bits, truncated alignment, sums rounded toward zero) and
``h100_fp8_promoted`` (the same, promoted to float32 every 128 products as
DeepSeek-V3 does)."""


def get_accumulator(accumulate: Any) -> Accumulator:
    """An :class:`Accumulator` from a name of :data:`ACCUMULATORS` (or itself)."""
    if isinstance(accumulate, Accumulator):
        return accumulate
    if isinstance(accumulate, str) and accumulate.lower() in ACCUMULATORS:
        return ACCUMULATORS[accumulate.lower()]
    raise ValueError(
        f"accumulate must be an Accumulator or one of {', '.join(ACCUMULATORS)}, got {accumulate!r}"
    )


def check_operands(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two 2-d float32 arrays whose inner dimensions agree."""
    arrays = []
    for name, x in (("a", a), ("b", b)):
        arr = np.asarray(x)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be a matrix (2-d), got shape {arr.shape}")
        arrays.append(arr.astype(np.float32))
    if arrays[0].shape[1] != arrays[1].shape[0]:
        raise ValueError(f"a {arrays[0].shape} and b {arrays[1].shape} do not multiply: "
                         f"a's columns must equal b's rows")  # fmt: skip
    return arrays[0], arrays[1]


def _exponents(x: np.ndarray) -> np.ndarray:
    """floor(log2 |x|) clamped at float32's -126 (int64; a very low number for 0)."""
    e = np.frexp(x.astype(np.float64))[1].astype(np.int64) - 1
    return np.where(x == 0, -(2**20), np.maximum(e, INPUT_EMIN))


def _align(t: np.ndarray, alignment: str) -> np.ndarray:
    return np.asarray(np.floor(t) if alignment == "truncate" else np.rint(t))


def _round_sum(x: np.ndarray, acc: Accumulator) -> np.ndarray:
    """Exact float64 sums rounded to ``output_bits`` fraction bits in float32's
    exponent range by ``acc.final``: float32 (inf beyond its range)."""
    m = acc.output_bits
    magnitude = np.abs(x)
    e = np.frexp(np.where(magnitude == 0, 1.0, magnitude))[1].astype(np.int64) - 1
    shift = np.maximum(e, -126) - m  # the quantum's exponent
    t = np.ldexp(magnitude, -shift)
    n = np.trunc(t) if acc.final == "toward_zero" else np.rint(t)
    with np.errstate(over="ignore"):
        return np.asarray(np.copysign(np.ldexp(n, shift), x) + 0.0).astype(np.float32)


def gemm(a: Any, b: Any, *, accumulate: str | Accumulator = "float32") -> np.ndarray:
    """``a @ b`` for two float32 matrices, summed by an accumulator model.

    Parameters
    ----------
    a, b : array_like, 2-d (converted to float32: round them into a format such as
        E4M3 first to model that format's GEMM)
    accumulate : str or Accumulator
        A name of :data:`ACCUMULATORS` or an :class:`Accumulator` (see the module
        notes). ``"float32"`` is numpy's float32 matmul.

    Returns
    -------
    numpy float32 array of shape ``(a.shape[0], b.shape[1])``; deterministic, and
    for a model equal bit for bit to :func:`fpexplore.jax.gemm` (which, on XLA's
    CPU, flushes a promoted partial sum below float32's normal range to zero).

    Examples
    --------
    >>> a = np.ones((2, 256), np.float32)
    >>> gemm(a, np.ones((256, 3), np.float32), accumulate="h100_fp8_promoted").tolist()
    [[256.0, 256.0, 256.0], [256.0, 256.0, 256.0]]
    """
    acc = get_accumulator(accumulate)
    a32, b32 = check_operands(a, b)
    if acc.bits is None:
        return np.asarray(a32 @ b32, np.float32)
    m, k = a32.shape
    n = b32.shape[1]
    g = acc.group
    groups = -(-k // g)
    pad = groups * g - k
    a64 = np.pad(a32, [(0, 0), (0, pad)]).astype(np.float64)
    b64 = np.pad(b32, [(0, pad), (0, 0)]).astype(np.float64)
    ea, eb = _exponents(a64), _exponents(b64)
    c = np.zeros((m, n), np.float32)
    total = np.zeros((m, n), np.float32)
    every = (acc.promote_every or 0) // g
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(groups):
            ks = slice(i * g, (i + 1) * g)
            p = a64[:, ks, None] * b64[None, ks, :]  # exact: 24 + 24 bits
            x = ea[:, ks, None] + eb[None, ks, :]
            c64 = c.astype(np.float64)
            ec = np.where(c == 0, -(2**20), np.maximum(np.frexp(c64)[1] - 1, INPUT_EMIN))
            top = np.maximum(np.maximum(x.max(axis=1), ec), MIN_EXPONENT) - acc.bits
            terms = _align(np.ldexp(np.abs(p), -top[:, None, :]), acc.alignment)
            total_terms = (np.copysign(terms, p).sum(axis=1)
                           + np.copysign(_align(np.ldexp(np.abs(c64), -top), acc.alignment),
                                         c64))  # fmt: skip
            c = _round_sum(np.ldexp(total_terms, top), acc)
            if every and (i + 1) % every == 0:
                total = total + c
                c = np.zeros_like(c)
        return total + c if every else c
