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
from fractions import Fraction
from typing import Any

import numpy as np

from .. import codes as K
from .._kernels.scaled import odd_float64_array, odd_product, odd_quotient
from ..exact import check_rng, check_rounding
from ..formats import Format, get_format
from ..lazy import is_dask
from .block_formats import (
    BLOCK_FORMATS,
    E8M0_EMAX,
    E8M0_NAN,
    BlockFormat,
    _axis,
    _element_values,
    _scale_values,
    dequantize_blocks,
    get_block_format,
    nvfp4_tensor_scale,
)
from .per_tensor import check_amax

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

    ``scales`` holds one scale code per block (shape of the input with ``axis``
    cut to the number of blocks): E8M0 codes for MX (code ``c`` is
    ``2**(c - 127)``, 0xFF NaN), E4M3 codes for NVFP4. ``codes`` holds the element
    codes (uint8, shape of the input; MXINT8's as two's-complement bytes).
    ``values`` are the dequantized values (float64, shape of the input).
    """

    format: BlockFormat
    axis: int
    scales: np.ndarray
    codes: np.ndarray
    values: np.ndarray
    input: np.ndarray
    tensor_scale: float | None = None  # NVFP4's float32 per-tensor scale

    @property
    def block_size(self) -> int:
        """Elements per block."""
        return self.format.block_size

    @property
    def element_format(self) -> Format | None:
        """The elements' format (None for MXINT8)."""
        return self.format.element_format

    @property
    def scale_values(self) -> np.ndarray:
        """Each block's scale as float64 (MX: the shared scale X; NVFP4: the E4M3
        block scale, to be multiplied by ``tensor_scale``)."""
        return _scale_values(self.scales, self.format)

    def dequantize(self) -> np.ndarray:
        """The values decoded again from ``scales`` and ``codes`` alone."""
        return dequantize_blocks(
            self.scales, self.codes, self.format, axis=self.axis, tensor_scale=self.tensor_scale
        )

    def block(self, index: int | tuple[int, ...] = 0) -> dict[str, Any]:
        """One block's numbers: ``input``, ``amax``, ``scale_code``, ``scale``,
        ``element_values`` (before scaling), ``codes``, ``values`` and ``abs_error``.
        ``index`` counts blocks in C order over ``scales`` (or is a tuple into it)."""
        if isinstance(index, tuple):
            position = tuple(int(i) for i in index)
        else:
            position = tuple(int(i) for i in np.unravel_index(index, self.scales.shape))
        k, j = self.block_size, position[self.axis]
        moved = [np.moveaxis(a, self.axis, -1) for a in (self.input, self.codes, self.values)]
        rest = position[: self.axis] + position[self.axis + 1 :]
        x, codes, values = (a[rest][j * k : (j + 1) * k] for a in moved)
        scale = float(self.scale_values[position]) * (self.tensor_scale or 1.0)
        with np.errstate(invalid="ignore"):
            amax = float(np.max(np.abs(x.astype(np.float64))))
            return {
                "index": position, "input": x.astype(np.float64), "amax": amax,
                "scale_code": int(self.scales[position]), "scale": scale,
                "element_values": _element_values(codes, self.format), "codes": codes,
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


def _round_integers(t: np.ndarray, rounding: str, rng: Any) -> np.ndarray:
    """Round float64 to integers (as float64) by a signed rounding mode."""
    if rounding == "nearest_even":
        return np.asarray(np.rint(t))
    if rounding == "nearest_away":
        return np.asarray(np.copysign(np.floor(np.abs(t) + 0.5), t))
    if rounding == "toward_zero":
        return np.asarray(np.trunc(t))
    if rounding == "up":
        return np.asarray(np.ceil(t))
    if rounding == "down":
        return np.asarray(np.floor(t))
    floor = np.floor(t)
    return np.asarray(floor + (check_rng(rng).random(t.shape) < t - floor))


def _encode_elements(scaled: np.ndarray, spec: BlockFormat, rounding: str, rng: Any) -> Any:
    """Element codes of ``V / X``, saturating (OCP MX v1.0 section 6.3)."""
    if spec.element == "int8":
        q = np.clip(_round_integers(scaled * 64.0, rounding, rng), -128, 127)
        return q.astype(np.int8).view(np.uint8)
    return K.round_codes(scaled, spec.element, rounding, overflow="saturate", rng=rng)


def quantize_blocks(
    x: Any,
    fmt: str | BlockFormat,
    rounding: str = "nearest_even",
    *,
    axis: int = -1,
    block_size: int | None = None,
    rng: Any = None,
    tensor_amax: float | None = None,
) -> QuantizedBlocks:
    """Quantize an array block by block along ``axis`` (see :data:`BLOCK_FORMATS`).

    MX formats follow OCP MX v1.0 section 6.3: per block of 32,
    ``shared_exp = floor(log2(amax)) - emax_elem``, clamped below at E8M0's
    smallest exponent -127 (an all-zero block gets -127, as gfloat does); ``X =
    2**shared_exp``; elements ``round(V / X)`` into the element format, saturating
    at its largest finite value. A block holding inf or NaN gets the NaN scale
    (0xFF; its element codes are 0 and its values NaN). A ``shared_exp`` above
    127 (E8M0's largest) raises ValueError.

    NVFP4 follows NVIDIA's recipe: a float32 per-tensor scale ``g = amax / (448 *
    6)`` (1 for an all-zero tensor); per block of 16 an E4M3 scale ``s =
    round_e4m3(block_amax / (6 g))`` (saturating); elements ``round_e2m1(V / (s
    g))``, saturating at 6; ``g`` is rounded once to float32 from the exact
    ``amax / 2688``.

    Every element (and NVFP4's block scale) is rounded once from its exact
    quotient, in every mode: ``V / X`` is exact in float64 or, where it falls
    below float64's range (an element of ``2**-1000`` in a block of ``2**120``),
    stands in for it by a float64 rounded to odd; NVFP4's quotients by ``s g``
    are rounded to odd too. So ``"up"`` stores
    the least positive element for a tiny positive element, as exact rounding does.

    The last block along ``axis`` may be short (a ragged block): it is padded
    with zeros, which change no block maximum, and the padding is dropped.

    Parameters
    ----------
    x : array_like of real numbers (any shape, at least 1-d)
    fmt : one of ``mxfp8_e4m3``, ``mxfp8_e5m2``, ``mxfp6_e3m2``, ``mxfp6_e2m3``,
        ``mxfp4``, ``mxint8``, ``nvfp4``
    rounding : str
        Rounding of the elements (the scales follow their rules above).
    axis : int
        The axis along which consecutive elements form blocks.
    block_size : int, optional
        Only the format's own (32 for MX, 16 for NVFP4) is accepted.
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
    """
    spec = get_block_format(fmt)
    check_rounding(rounding)
    if block_size is not None and block_size != spec.block_size:
        raise ValueError(
            f"{spec.name} uses blocks of {spec.block_size} elements, got block_size={block_size!r}"
        )
    if tensor_amax is not None and spec.scale != "e4m3":
        raise ValueError(f"tensor_amax applies to nvfp4's per-tensor scale, not to {spec.name}")
    if is_dask(x):
        raise TypeError("quantize_blocks takes a numpy array; tensor_report accepts dask arrays")
    arr = K._real_array(x)
    if arr.ndim == 0:
        raise ValueError("quantize_blocks needs an array of at least one dimension")
    ax = _axis(axis, arr.ndim)
    moved = np.moveaxis(arr, ax, -1)
    n, k = moved.shape[-1], spec.block_size
    blocks = -(-n // k)
    v = np.zeros((*moved.shape[:-1], blocks * k))
    v[..., :n] = odd_float64_array(moved)  # integers beyond 2**53: rounded to odd
    v = v.reshape(*moved.shape[:-1], blocks, k)
    with np.errstate(invalid="ignore", over="ignore"):
        amax = np.max(np.abs(v), axis=-1, initial=0.0)
    special = ~np.isfinite(amax)
    if spec.scale == "e8m0":
        scales, codes, values, g = (*_quantize_mx(v, amax, special, spec, rounding, rng), None)
    else:
        narrow = arr.dtype.itemsize <= (4 if arr.dtype.kind in "fV" else 2)  # <= 24 bits
        scales, codes, values, g = _quantize_nvfp4(
            v, amax, special, spec, rounding, rng, tensor_amax, narrow
        )
    codes = codes.reshape(*moved.shape[:-1], blocks * k)[..., :n]
    values = values.reshape(*moved.shape[:-1], blocks * k)[..., :n]
    return QuantizedBlocks(
        spec, ax, np.moveaxis(scales, -1, ax), np.ascontiguousarray(np.moveaxis(codes, -1, ax)),
        np.ascontiguousarray(np.moveaxis(values, -1, ax)), arr, g,
    )  # fmt: skip


def _quantize_mx(
    v: np.ndarray, amax: np.ndarray, special: np.ndarray, spec: BlockFormat, rounding: str, rng: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    exponent = np.frexp(np.where(special, 1.0, amax))[1].astype(np.int32) - 1  # floor(log2)
    shared = np.where(amax > 0, exponent - spec.emax_elem, -E8M0_EMAX)
    too_big = ~special & (shared > E8M0_EMAX)
    if too_big.any():
        big = float(amax[too_big].max())
        raise ValueError(
            f"a block's amax {big!r} needs the shared scale 2**{int(shared[too_big].max())}, "
            f"beyond E8M0's largest 2**{E8M0_EMAX}; {spec.name} cannot hold it"
        )
    shared = np.maximum(shared, -E8M0_EMAX)
    shared[special] = 0
    factor = np.ldexp(1.0, -shared)[..., None]  # 1 / X, a power of two
    scaled = odd_product(v, factor)  # V / X: exact, or (below float64's range) rounded to odd
    if special.any():  # inf or NaN in a block: its elements are not encoded (codes 0)
        scaled[special] = 0.0
    codes = _encode_elements(scaled, spec, rounding, rng)
    values = _element_values(codes, spec) * np.ldexp(1.0, shared)[..., None]
    scales = (shared + 127).astype(np.uint8)
    scales[special] = E8M0_NAN
    values[np.broadcast_to(special[..., None], values.shape)] = np.nan
    return scales, codes, values


def _quantize_nvfp4(
    v: np.ndarray, amax: np.ndarray, special: np.ndarray, spec: BlockFormat, rounding: str,
    rng: Any, tensor_amax: float | None, narrow: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    finite_amax: float | Fraction
    if tensor_amax is None:  # integers beyond 2**53 rounded to odd: g rounds as from them
        finite_amax = float(amax[~special].max(initial=0.0))
    else:  # exact: g is rounded once from tensor_amax / 2688
        finite_amax = check_amax(tensor_amax, "tensor_amax")
    g = nvfp4_tensor_scale(finite_amax)
    e4m3 = get_format("float8_e4m3fn")
    target = odd_quotient(np.where(special, 0.0, amax), 6.0 * g, e4m3, narrow=narrow)
    scales = K.round_codes(target, e4m3, overflow="saturate")
    s = K.codes_to_values(scales, e4m3)
    divisor = np.where(s > 0, s * g, 1.0)[..., None]  # exact: 4 bits times 24
    quotient = odd_quotient(v, divisor, get_format(spec.element), narrow=narrow)
    scaled = np.where(special[..., None] | (s[..., None] == 0), 0.0, quotient)
    codes = _encode_elements(scaled, spec, rounding, rng)
    values = _element_values(codes, spec) * (s * g)[..., None]
    scales[special] = 0x7F  # E4M3's NaN
    values[np.broadcast_to(special[..., None], values.shape)] = np.nan
    return scales, codes, values, g
