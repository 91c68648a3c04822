"""Products of FormatArrays: ``@``/``matmul``, ``dot``, ``inner`` (``einsum`` and
``tensordot``: :mod:`.einsum`).

Every product of two values of the format is exact, then rounded once into the
accumulator's format (``accumulate``), and the products are added in the array's
``order``, each addition rounded (:mod:`.accumulate`); the sum is rounded once
into the array's format. The products are summed in the order of the summed
index (``k`` of ``C[i, j] = sum_k A[i, k] B[k, j]``; for ``einsum``, the summed
indices in C order of their first appearance), so each element equals
``fpx.dot(A[i, :], B[:, j], fmt, accumulate=acc, order=order)`` (rounded into
``fmt``). Sequential ``matmul`` computes one product per summed index for every
output at once (no tensor of all products); the other orders build the product
tensor first.

>>> import numpy as np
>>> from fpexplore.array.core import FormatArray
>>> a = FormatArray(np.full((1, 4096), 0.5), "float16")
>>> wide = FormatArray(a, "float16", accumulate="float32")
>>> float((a @ a.T)[0, 0]), float((wide @ wide.T)[0, 0])
(512.0, 1024.0)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ... import codes as K
from ..._kernels.arith import round_float32_nearest_even
from ...arith.pairwise import float32_like
from ...exact import FLAGS
from ...formats import Format, get_format
from .accumulate import accumulate_axis, adder
from .flags import conversion_mask, count_mask
from .records import Record
from .reduce import into

__all__ = ["matmul", "merge_counts", "round_products"]


def round_products(raw: np.ndarray, a: Any, b: Any, fmt: Format, acc: Format, rounding: str,
                   overflow: Any, rng: Any, flags: bool) -> tuple[np.ndarray, Any]:  # fmt: skip
    """Exact products (``raw``, float64) rounded once into ``acc``; and their mask."""
    if not K.float64_path("mul", fmt):  # float64 and wider: each product exactly
        from ...arith.accumulate import rounded_products

        a64, b64 = np.broadcast_arrays(K.as_float64(a), K.as_float64(b))
        stored = rounded_products(a64.reshape(-1), b64.reshape(-1), fmt, acc).reshape(raw.shape)
        return stored, np.zeros(raw.shape, np.uint8) if flags else None
    stored = K.round_values(raw, acc, rounding, overflow=overflow, rng=rng)
    mask = np.asarray(conversion_mask(raw, stored, acc, rounding), np.uint8) if flags else None
    return stored, mask


def _float32_products(fmt: Format, acc: Format) -> bool:
    """Products of ``fmt``'s values exact in float32 and rounded from there into ``acc``
    (a float32, float16, bfloat16 or tf32 accumulator) once: 2p <= 24, float32's range."""
    fits = not fmt.tabulated and fmt.emax <= 127 and fmt.emin - fmt.mantissa_bits >= -149
    native = acc.name in ("float16", "float32") and acc == get_format(acc.name)
    return fits and 2 * (fmt.mantissa_bits + 1) <= 24 and (native or float32_like(acc))


def _product32(a: np.ndarray, b: np.ndarray, a64: Any, b64: Any, acc: Format) -> np.ndarray:
    p = a * b  # exact, except below float32's normal range
    with np.errstate(all="ignore"):
        if acc.name == "float16":
            p = p.astype(np.float16).astype(np.float32)
        elif acc.name != "float32":
            tiny = (np.abs(p) < 2.0**-126) & (a != 0) & (b != 0)
            p = round_float32_nearest_even(p, acc.mantissa_bits)
            if tiny.any():
                raw = np.broadcast_to(a64 * b64, p.shape)[tiny]
                p[tiny] = K.round_values(raw, acc).astype(np.float32)
    return p


def matmul(like: Any, a: np.ndarray, b: np.ndarray) -> Any:
    """``a @ b`` for float64 arrays of ``like``'s format (numpy's shape rules)."""
    fmt, acc, order = like.format, like.accumulate, like.order
    rounding, overflow = like.rounding, like._overflow
    a, b = K.as_float64(a), K.as_float64(b)  # exact products
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align")
    n = a2.shape[-1]
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    out_shape = (*batch, a2.shape[-2], b2.shape[-1])
    state = copy.deepcopy(like._rng) if rounding == "stochastic" else None

    def run(flags: bool, rng: Any) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        add = adder(acc, rounding, overflow, rng, flags, out_shape)
        counts = dict.fromkeys(FLAGS, 0)
        mask = np.zeros(out_shape, np.uint8)
        if order != "sequential":
            raw = a2[..., :, :, None] * b2[..., None, :, :]
            terms = np.moveaxis(np.broadcast_to(raw, (*out_shape[:-1], n, out_shape[-1])), -2, 0)
            stored, pm = round_products(terms, None, None, fmt, acc, rounding, overflow, rng, flags)
            s, m, c = accumulate_axis(stored, acc, order, rounding, overflow, rng, flags)
            if flags and pm is not None and n:
                m, c = m | np.bitwise_or.reduce(pm, axis=0), merge_counts(c, count_mask(pm))
            mask, counts = mask | m, merge_counts(counts, c)
        else:
            s = _sequential(a2, b2, n, out_shape, add, fmt, acc, rounding, overflow, rng, flags)
            mask, counts = add.mask, add.counts
        final, last = into(s, fmt, acc, rounding, overflow, rng, flags)
        if flags and last is not None:
            mask, counts = mask | last, merge_counts(counts, count_mask(last))
        return np.asarray(final, np.float64), mask, counts

    result, _, _ = run(False, like._rng)
    squeeze = [ax for ax, one in ((-2, a.ndim == 1), (-1, b.ndim == 1)) if one]

    def shaped(x: np.ndarray) -> np.ndarray:
        return np.squeeze(x, axis=tuple(squeeze)) if squeeze else x

    def flags_of() -> tuple[np.ndarray, dict[str, int]]:
        _, mask, counts = run(True, copy.deepcopy(state))
        return shaped(mask), counts

    final = shaped(result)
    index = np.arange(int(np.prod(out_shape))).reshape(out_shape)

    def explain(i: int) -> Any:
        from ...arith.accumulate import dot

        position = np.unravel_index(int(shaped(index).reshape(-1)[i]), out_shape)
        *batch, r, c = position
        ab = np.broadcast_to(a2, (*out_shape[:-2], *a2.shape[-2:]))[tuple(batch)][r]
        bb = np.broadcast_to(b2, (*out_shape[:-2], *b2.shape[-2:]))[tuple(batch)][:, c]
        return dot(ab, bb, fmt, accumulate=acc, order=order)

    return like._new(final, Record("np.matmul", final.shape, flags_of, explain))


def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Two flag counts added, flag by flag."""
    return {k: a.get(k, 0) + b.get(k, 0) for k in FLAGS}


def _sequential(a2: np.ndarray, b2: np.ndarray, n: int, out_shape: tuple[int, ...], add: Any,
                fmt: Format, acc: Format, rounding: str, overflow: Any, rng: Any,
                flags: bool) -> np.ndarray:  # fmt: skip
    """``s = p_0; s = s + p_k``: one product and one addition per summed index."""
    if n == 0:
        return np.zeros(out_shape)
    fast = add.fast is not None and _float32_products(fmt, acc)
    if fast:
        a32, b32 = a2.astype(np.float32), b2.astype(np.float32)

    def product(k: int) -> np.ndarray:
        x, y = a2[..., :, k, None], b2[..., None, k, :]
        if fast:
            return _product32(a32[..., :, k, None], b32[..., None, k, :], x, y, acc)
        raw = np.broadcast_to(x * y, out_shape)
        stored, mask = round_products(raw, x, y, fmt, acc, rounding, overflow, rng, flags)
        if mask is not None:
            add.note(mask)
        return stored.astype(add.work, copy=False) if add.fast is not None else stored

    if fast and acc.name != "float16" and _bounded(a32, b32, n, acc):
        return _sequential32(a32, b32, n, acc)
    s = np.broadcast_to(product(0), out_shape).copy()
    for k in range(1, n):
        s = add(s, product(k))
    return np.asarray(s, np.float64)


def _bounded(a: np.ndarray, b: np.ndarray, n: int, acc: Format) -> bool:
    """No NaN or infinity can arise (finite inputs, every partial sum below 2**127) and no
    product lies below float32's normal range, where float32 would round it."""
    if not (np.isfinite(a).all() and np.isfinite(b).all()) or a.size == 0 or b.size == 0:
        return False
    top = float(np.abs(a).max()) * float(np.abs(b).max()) * n
    nonzero_a, nonzero_b = np.abs(a[a != 0]), np.abs(b[b != 0])
    if nonzero_a.size == 0 or nonzero_b.size == 0:
        return top < 2.0**127
    least = float(nonzero_a.min()) * float(nonzero_b.min())
    return top < 2.0**127 and least >= 2.0**-126


def _sequential32(a: np.ndarray, b: np.ndarray, n: int, acc: Format) -> np.ndarray:
    """The sequential loop in float32 for a float32, bfloat16 or tf32 accumulator, in
    place: each exact product and each sum rounded by the bits (see :func:`_bounded`)."""
    bits = acc.mantissa_bits
    native = acc.name == "float32"
    s = a[..., :, 0, None] * b[..., None, 0, :]
    if not native:
        round_float32_nearest_even(s, bits, nan_free=True)
    p = np.empty_like(s)
    for k in range(1, n):
        np.multiply(a[..., :, k, None], b[..., None, k, :], out=p)
        if not native:
            round_float32_nearest_even(p, bits, nan_free=True)
        s += p
        if not native:
            round_float32_nearest_even(s, bits, nan_free=True)
    return s.astype(np.float64)
