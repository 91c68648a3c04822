"""Block scaling: the OCP Microscaling (MX) v1.0 formats and NVFP4.

A block of ``k`` consecutive elements shares one scale. MX (OCP MX v1.0, section
6.3 "conversion"): the shared scale ``X = 2**(floor(log2(amax)) - emax_elem)`` is
an E8M0 power of two, from the block's largest magnitude ``amax`` and the largest
exponent of the element format, ``emax_elem``; each element is ``V / X`` rounded
into the element format, saturating at its largest finite value. NVFP4 (NVIDIA
Blackwell) has blocks of 16 FP4 (E2M1) elements with an E4M3 block scale and a
float32 per-tensor scale (:func:`quantize_blocks` documents the recipe).

Examples
--------
>>> import numpy as np
>>> q = quantize_blocks(np.array([0.3, -1.7, 5.9, 100.0]), "mxfp4")
>>> int(q.scales[0]) - 127  # X = 2**(floor(log2(100)) - 2) = 2**4
4
>>> q.values
array([ 0., -0.,  8., 96.])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import codes as K
from .._kernels.scaled import odd_float64_array
from ..exact import check_rounding
from ..formats import Format
from ..lazy import is_dask
from .block_formats import (
    BLOCK_FORMATS,
    BlockFormat,
    dequantize_blocks,
    element_values_of,
    get_block_format,
    scale_values_of,
)
from .block_kernels import quantize_float32, quantize_nvfp4, quantize_pow2
from .tiles import block_layout, check_scale_rule, from_tiles, tile_slices, to_tiles

__all__ = [
    "BLOCK_FORMATS",
    "BlockFormat",
    "QuantizedBlocks",
    "dequantize_blocks",
    "get_block_format",
    "quantize_blocks",
]


@dataclass(frozen=True, eq=False)
class QuantizedBlocks:
    """An array quantized block by block (the result of :func:`quantize_blocks`).

    ``scales`` holds one scale code per block (shape of the input with each block
    axis cut to its number of blocks): E8M0 codes for MX (code ``c`` is
    ``2**(c - 127)``, 0xFF NaN), E4M3 codes for NVFP4, float32 bits (uint32) for
    ``float32_pow2`` and ``float32`` scales. ``codes`` holds the element codes
    (uint8, shape of the input; MXINT8's as two's-complement bytes). ``values``
    are the dequantized values (float64, shape of the input). ``axis`` is an int
    for 1-D blocks and a pair for 2-D tiles (:attr:`axes` is always a tuple);
    ``block_shape`` the block's size along each block axis; ``scale_rule`` the
    rule of a power-of-two scale (None for the others). :attr:`short_blocks` says
    whether a block axis is shorter than the block along it (:attr:`short_axes`
    which).
    """

    format: BlockFormat
    axis: int | tuple[int, int]
    scales: np.ndarray
    codes: np.ndarray
    values: np.ndarray
    input: np.ndarray
    tensor_scale: float | None = None  # NVFP4's float32 per-tensor scale
    block_shape: tuple[int, ...] = ()  # the block's size along each block axis
    scale_rule: str | None = None  # the rule of a power-of-two scale

    @property
    def block_size(self) -> int | tuple[int, int]:
        """Elements per block along ``axis`` (a pair for 2-D tiles)."""
        if not self.block_shape:
            return self.format.block_size
        return self.block_shape[0] if len(self.block_shape) == 1 else self.block_shape  # type: ignore[return-value]

    @property
    def axes(self) -> tuple[int, ...]:
        """The block axes, ascending (one, or two for 2-D tiles)."""
        return self.axis if isinstance(self.axis, tuple) else (self.axis,)

    @property
    def short_axes(self) -> tuple[tuple[int, int, int], ...]:
        """``(axis, length, size)`` for each block axis (from 0, as :attr:`axes` runs) whose
        ``length`` is shorter than the block's ``size`` along it: every block
        along it holds ``length`` values, not ``size``. Empty if none is."""
        shape = self.codes.shape
        default = self.format.block_size
        sizes = self.block_shape or (default if isinstance(default, tuple) else (default,))
        short = []
        for axis, size in zip(self.axes, sizes, strict=False):
            if -len(shape) <= axis < len(shape) and shape[axis] < size:
                short.append((axis % len(shape), int(shape[axis]), int(size)))
        return tuple(short)

    @property
    def short_blocks(self) -> bool:
        """Whether a block axis is shorter than the block along it (1-D: the block
        axis shorter than ``block_size``; 2-D tiles: either tile axis shorter than
        the tile's size along it), as a report's ``short_blocks`` says."""
        return bool(self.short_axes)

    @property
    def element_format(self) -> Format | None:
        """The elements' format (None for MXINT8)."""
        return self.format.element_format

    @property
    def scale_values(self) -> np.ndarray:
        """Each block's scale as float64 (MX: the shared scale X; NVFP4: the E4M3
        block scale, to be multiplied by ``tensor_scale``)."""
        return scale_values_of(self.scales, self.format)

    def dequantize(self) -> np.ndarray:
        """The values decoded again from ``scales`` and ``codes`` alone."""
        return dequantize_blocks(
            self.scales,
            self.codes,
            self.format,
            axis=self.axis,
            tensor_scale=self.tensor_scale,
            block_size=self.block_size,
        )

    def block(self, index: int | tuple[int, ...] = 0) -> dict[str, Any]:
        """One block's numbers: ``input``, ``amax``, ``scale_code``, ``scale``,
        ``element_values`` (before scaling), ``codes``, ``values`` and ``abs_error``.
        ``index`` counts blocks in C order over ``scales`` (or is a tuple into it)."""
        if isinstance(index, tuple):
            position = tuple(int(i) for i in index)
        else:
            position = tuple(int(i) for i in np.unravel_index(index, self.scales.shape))
        default = self.format.block_size
        sizes = self.block_shape or (default if isinstance(default, tuple) else (default,))
        where = tile_slices(position, self.axes, sizes)
        x, codes, values = (a[where].reshape(-1) for a in (self.input, self.codes, self.values))
        scale = float(self.scale_values[position]) * (self.tensor_scale or 1.0)
        with np.errstate(invalid="ignore"):
            amax = float(np.max(np.abs(x.astype(np.float64))))
            return {
                "index": position, "input": x.astype(np.float64), "amax": amax,
                "scale_code": int(self.scales[position]), "scale": scale,
                "element_values": element_values_of(codes, self.format), "codes": codes,
                "values": values, "abs_error": np.abs(values - x),
            }  # fmt: skip

    def __str__(self) -> str:
        from ..explain.blocks import blocks_text

        return blocks_text(self)

    def _repr_html_(self) -> str:
        from ..explain.blocks import blocks_html

        return blocks_html(self)

    def __repr__(self) -> str:
        return (
            f"QuantizedBlocks({self.format.name}, shape={self.codes.shape}, axis={self.axis}, "
            f"blocks={self.scales.size})"
        )


def quantize_blocks(
    x: Any,
    fmt: str | BlockFormat,
    rounding: str = "nearest_even",
    *,
    axis: int | tuple[int, int] = -1,
    block_size: int | tuple[int, int] | None = None,
    scale_rule: str | None = None,
    rng: Any = None,
    tensor_amax: float | None = None,
) -> QuantizedBlocks:
    """Quantize an array block by block (see :data:`BLOCK_FORMATS`).

    A block is ``block_size`` consecutive elements along ``axis`` (1-D), or a
    ``block_size[0] x block_size[1]`` tile over the pair of axes ``axis`` (2-D; a
    pair of sizes with an int ``axis`` runs ``block_size[1]`` along it and
    ``block_size[0]`` along a matrix's other axis, as a report's tiles do; a larger
    array's tiles are its last two axes, with ``axis`` the last; a pair of axes with an
    int size makes square tiles). A partial block
    at an edge is scaled on its own (padded with zeros, which change no maximum).

    Power-of-two scales (``e8m0``: MX; ``float32_pow2``): ``X = 2**e`` with, by
    ``scale_rule``, ``e = floor(log2 amax) - emax_elem`` (``"floor"``, OCP MX v1.0
    section 6.3, the default), ``ceil(log2 amax) - emax_elem`` (``"ceil"``), the
    floor rule on amax rounded half up to the element's mantissa bits
    (``"even"``), or ``ceil(log2(amax / max_elem))`` (``"rceil"``: no element
    saturates; arXiv 2506.08027), clamped below at -127 (an all-zero block gets
    -127, as gfloat does); above 127 raises ValueError. Elements ``round(V / X)``
    into the element format, saturating at its largest finite value. A block
    holding inf or NaN gets the NaN scale (its element codes are 0 and its
    values NaN).

    A ``float32`` scale is ``X = amax / max_elem`` rounded to nearest even into
    float32 (elements 0 where that is 0); elements ``round(V / X)``, saturating.

    NVFP4 (``e4m3`` scales) follows NVIDIA's recipe: a float32 per-tensor scale
    ``g = amax / (448 * 6)`` (1 for an all-zero tensor); per block an E4M3 scale
    ``s = round_e4m3(block_amax / (6 g))`` (saturating); elements ``round_e2m1(V /
    (s g))``, saturating at 6; ``g`` is rounded once to float32 from the exact
    ``amax / 2688``.

    Every element (and every scale) is rounded once from its exact quotient, in
    every mode: ``V / X`` is exact in float64 or, where it falls below float64's
    range (an element of ``2**-1000`` in a block of ``2**120``), stands in for it
    by a float64 rounded to odd; the quotients by ``s g`` and by a float32 ``X``
    are rounded to odd too. So ``"up"`` stores the least positive element for a
    tiny positive element, as exact rounding does.

    Parameters
    ----------
    x : array_like of real numbers (any shape, at least 1-d; 2-d for 2-D tiles)
    fmt : a :class:`BlockFormat` or one of ``mxfp8_e4m3``, ``mxfp8_e5m2``,
        ``mxfp6_e3m2``, ``mxfp6_e2m3``, ``mxfp4``, ``mxint8``, ``nvfp4``
    rounding : str
        Rounding of the elements (the scales follow their rules above).
    axis : int or pair of ints
        The axis along which consecutive elements form blocks, or the two axes of
        a 2-D tile.
    block_size : int or pair of ints, optional
        Elements per block (any positive size; default the format's: 32 for MX,
        16 for NVFP4), or a tile's size along each of the two axes.
    scale_rule : str, optional
        ``"floor"`` (default), ``"rceil"``, ``"ceil"`` or ``"even"``: the rule of
        a power-of-two scale (refused for other scales).
    rng : seed or Generator for ``rounding="stochastic"``.
    tensor_amax : float, optional
        NVFP4 only: the amax that the per-tensor scale comes from (default: this
        array's largest finite magnitude), for a tensor quantized in parts.

    Examples
    --------
    >>> q = quantize_blocks(np.arange(40.0).reshape(2, 20), "nvfp4", axis=-1)
    >>> q.scales.shape, q.codes.shape, q.block_size
    ((2, 2), (2, 20), 16)
    >>> float(q.tensor_scale) == float(np.float32(39 / 2688))
    True
    >>> w = quantize_blocks(np.ones((20, 40)), "nvfp4", axis=(0, 1), block_size=(16, 16))
    >>> w.scales.shape, w.block_size
    ((2, 3), (16, 16))
    >>> quantize_blocks([7.0, 1.0], "mxfp4", scale_rule="rceil").values.tolist()  # X = 2
    [8.0, 1.0]
    """
    spec = get_block_format(fmt)
    check_rounding(rounding)
    rule = check_scale_rule(scale_rule, spec.scale)
    if tensor_amax is not None and spec.scale != "e4m3":
        raise ValueError(
            f"tensor_amax applies to an e4m3 scale's per-tensor scale (nvfp4), not to {spec.name}"
        )
    if is_dask(x):
        raise TypeError("quantize_blocks takes a numpy array; tensor_report accepts dask arrays")
    arr = K.real_array(x)
    if arr.ndim == 0:
        raise ValueError("quantize_blocks needs an array of at least one dimension")
    axes, sizes = block_layout(arr.ndim, axis, block_size, spec.block_size)
    v, _ = to_tiles(odd_float64_array(arr), axes, sizes)  # integers beyond 2**53: to odd
    with np.errstate(invalid="ignore", over="ignore"):
        amax = np.max(np.abs(v), axis=-1, initial=0.0)
    special = ~np.isfinite(amax)
    g = None
    narrow = arr.dtype.itemsize <= (4 if arr.dtype.kind in "fV" else 2)  # <= 24 bits
    if spec.scale in ("e8m0", "float32_pow2"):
        scales, codes, values = quantize_pow2(v, amax, special, spec, rounding, rng, rule)
    elif spec.scale == "float32":
        scales, codes, values = quantize_float32(v, amax, special, spec, rounding, rng, narrow)
    else:
        scales, codes, values, g = quantize_nvfp4(
            v, amax, special, spec, rounding, rng, tensor_amax, narrow
        )
    shape = arr.shape
    return QuantizedBlocks(
        spec, axes[0] if len(axes) == 1 else axes, scales,  # type: ignore[arg-type]
        from_tiles(codes, shape, axes, sizes), from_tiles(values, shape, axes, sizes), arr, g,
        sizes, rule if spec.scale in ("e8m0", "float32_pow2") else None,
    )  # fmt: skip
