"""Block shapes and scale rules: which elements share a scale, and which power of two.

A block is ``k`` consecutive elements along one axis (1-D, MX's 1x32, NVFP4's
1x16, DeepSeek-V3's 1x128 activations) or a ``b0 x b1`` tile over two axes
(2-D: NVFP4's 16x16 weights, DeepSeek-V3's 128x128). :func:`block_layout` checks
an ``axis`` and ``block_size`` against an array's rank; :func:`to_tiles` views an
array as one row of ``b0 * b1`` elements per tile (a partial tile at an edge is
padded with zeros, which change no maximum, so it is scaled on its own), and
:func:`from_tiles` puts the rows back. :func:`pow2_exponents` gives a power-of-two
scale's exponent from each block's amax by a rule: ``"floor"`` (OCP MX v1.0
section 6.3: ``floor(log2 amax) - emax_elem``), ``"ceil"`` (``ceil(log2 amax) -
emax_elem``), ``"even"`` (amax rounded half up to the element format's mantissa
bits first, then the floor rule; torchao's EVEN) and ``"rceil"`` (``ceil(log2(amax
/ max_elem))``, so that no element saturates: the MXFP8 pretraining recipe,
arXiv 2506.08027, and torchao's RCEIL), each from the exact amax.

>>> block_layout(2, -1, None, 32)
((1,), (32,))
>>> block_layout(2, (1, 0), (16, 8), 32)
((0, 1), (8, 16))
>>> v, scales_shape = to_tiles(np.arange(12.0).reshape(3, 4), (0, 1), (2, 2))
>>> v.shape, scales_shape
((2, 2, 4), (2, 2))
>>> v[1, 0].tolist()  # the bottom-left tile, padded with zeros
[8.0, 9.0, 0.0, 0.0]
>>> pow2_exponents(np.array([6.0, 7.0]), "even", 2, 1, 6.0).tolist()
[0, 1]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "SCALE_RULES",
    "block_layout",
    "check_scale_rule",
    "from_tiles",
    "pow2_exponents",
    "tile_slices",
    "to_tiles",
]

SCALE_RULES = ("floor", "rceil", "ceil", "even")
"""The rules for a power-of-two block scale (``scale_rule=``), OCP's floor first."""


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _one_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"axis must be an int or a pair of ints, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for an array of {ndim} dimension(s)")
    return int(axis) % ndim


def block_layout(
    ndim: int, axis: Any, block_size: Any, default: int | tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The block axes (ascending) and the block's size along each, checked against
    an array of ``ndim`` dimensions. ``axis`` is an int (1-D blocks) or a pair of
    distinct axes (2-D tiles); ``block_size`` an int, a pair, or None for
    ``default`` (the format's). A pair of sizes with an int ``axis`` puts
    ``block_size[1]`` along ``axis`` and ``block_size[0]`` along a matrix's other axis
    (a larger array: ``axis`` must be the last, and the tiles its last two axes), as a
    report's tiles run; a pair of axes with an int size (or None) uses it along both."""
    size: Any = default if block_size is None else block_size
    pair_axes = isinstance(axis, tuple | list)
    pair_size = isinstance(size, tuple | list)
    if (pair_size and len(size) != 2) or (pair_axes and len(axis) != 2):
        raise ValueError(
            f"a block is 1-D (an int axis and block_size) or 2-D (pairs), got axis={axis!r} "
            f"and block_size={block_size!r}"
        )
    if not (pair_axes or pair_size):
        return (_one_axis(axis, ndim),), (_positive_int(size, "block_size"),)
    if ndim < 2:
        raise ValueError(
            f"a 2-D block (axis={axis!r}, block_size={size!r}) needs an array of at least 2 "
            f"dimensions, got {ndim}"
        )
    if pair_axes:
        axes = tuple(_one_axis(a, ndim) for a in axis)
    else:  # block_size[1] along ``axis``: the other axis of a matrix, or the one before it
        along = _one_axis(axis, ndim)
        if ndim > 2 and along != ndim - 1:
            raise ValueError(
                f"a 2-D block (block_size={size!r}) with an int axis tiles the last two axes "
                f"of an array of {ndim} dimensions, so axis must be its last axis, got "
                f"axis={axis!r}: pass a pair of axes, such as axis=({axis}, {ndim - 1})"
            )
        axes = (1 - along, along) if ndim == 2 else (ndim - 2, ndim - 1)
    if axes[0] == axes[1]:
        raise ValueError(f"a 2-D block needs two different axes, got axis={axis!r}")
    sizes = tuple(size) if pair_size else (size, size)
    sizes = tuple(_positive_int(s, "block_size") for s in sizes)
    order = sorted(range(2), key=lambda i: axes[i])
    return tuple(axes[i] for i in order), tuple(sizes[i] for i in order)


def check_scale_rule(scale_rule: Any, scale: str) -> str:
    """The rule of a power-of-two scale (None: ``"floor"``); other scales take none."""
    if scale_rule is None:
        return "floor"
    if scale not in ("e8m0", "float32_pow2"):
        raise ValueError(
            f"scale_rule applies to power-of-two scales (e8m0, float32_pow2), not to {scale} "
            f"scales; got scale_rule={scale_rule!r}"
        )
    if scale_rule not in SCALE_RULES:
        raise ValueError(f"unknown scale_rule {scale_rule!r}; expected one of {SCALE_RULES}")
    return str(scale_rule)


def pow2_exponents(
    amax: np.ndarray, rule: str, emax_elem: int, mantissa_bits: int, max_elem: float
) -> np.ndarray:
    """The exponent of each block's power-of-two scale from its finite positive
    float64 ``amax`` by ``rule`` (see the module notes), unclamped (int64)."""
    fraction, exponent = np.frexp(amax)  # amax = fraction * 2**exponent, fraction in [0.5, 1)
    exponent = exponent.astype(np.int64)
    if rule == "floor":
        out = exponent - 1 - emax_elem
    elif rule == "ceil":
        out = exponent - 1 + (fraction != 0.5) - emax_elem
    elif rule == "even":  # the significand 2 f rounded half up to mantissa_bits carries to 2
        out = exponent - 1 + (fraction >= 1 - 2.0 ** -(mantissa_bits + 2)) - emax_elem
    else:  # rceil: amax / max_elem <= 2**e
        max_fraction, max_exponent = np.frexp(max_elem)
        out = exponent - max_exponent + (fraction > max_fraction)
    return np.asarray(out, np.int64)


def to_tiles(
    v: np.ndarray, axes: tuple[int, ...], sizes: tuple[int, ...]
) -> tuple[np.ndarray, tuple[int, ...]]:
    """``v`` as ``(*scales_shape, elements per tile)``, padded with zeros at the
    edges; ``scales_shape`` is ``v``'s shape with each block axis cut to its number
    of blocks."""
    size_of = dict(zip(axes, sizes, strict=True))
    counts = {a: -(-v.shape[a] // b) for a, b in size_of.items()}
    pad = [(0, counts[a] * size_of[a] - n) if a in size_of else (0, 0)
           for a, n in enumerate(v.shape)]  # fmt: skip
    if any(p for _, p in pad):
        v = np.pad(v, pad)
    split: list[int] = []
    inner: list[int] = []
    for a, n in enumerate(v.shape):
        if a in size_of:
            split += [counts[a], size_of[a]]
            inner.append(len(split) - 1)
        else:
            split.append(n)
    outer = [i for i in range(len(split)) if i not in inner]
    scales_shape = tuple(counts.get(a, n) for a, n in enumerate(v.shape))
    tiles = v.reshape(split).transpose(outer + inner).reshape(*scales_shape, math.prod(sizes))
    return tiles, scales_shape


def from_tiles(
    tiles: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], sizes: tuple[int, ...]
) -> np.ndarray:
    """The inverse of :func:`to_tiles`: an array of ``shape`` (the padding dropped)."""
    scales_shape = tiles.shape[:-1]
    ndim = len(shape)
    blocked = tiles.reshape(*scales_shape, *sizes)
    # axes of blocked: scales axes 0..ndim-1, then one per block axis
    order: list[int] = []
    for a in range(ndim):
        order.append(a)
        if a in axes:
            order.append(ndim + axes.index(a))
    padded = [scales_shape[a] * sizes[axes.index(a)] if a in axes else shape[a]
              for a in range(ndim)]  # fmt: skip
    out = blocked.transpose(order).reshape(padded)
    return np.ascontiguousarray(out[tuple(slice(0, n) for n in shape)])


def tile_slices(
    position: tuple[int, ...], axes: tuple[int, ...], sizes: tuple[int, ...]
) -> tuple[Any, ...]:
    """The index into the array of the block at ``position`` (an index into the
    scales): a slice along each block axis, the position elsewhere."""
    return tuple(
        slice(j * sizes[axes.index(a)], (j + 1) * sizes[axes.index(a)]) if a in axes else j
        for a, j in enumerate(position)
    )
