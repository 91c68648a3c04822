"""The block-scaled formats (OCP MX v1.0's concrete formats and NVFP4), and decoding
their scales and element codes back to values (:func:`dequantize_blocks`).

>>> BLOCK_FORMATS["mxfp6_e2m3"]
BlockFormat(name='mxfp6_e2m3', element='float6_e2m3fn', block_size=32, scale='e8m0', emax_elem=2)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .. import codes as K
from ..exact import parse_real, round_real
from ..formats import Format, get_format

__all__ = [
    "BLOCK_FORMATS",
    "E8M0_EMAX",
    "E8M0_NAN",
    "SCALE_KINDS",
    "BlockFormat",
    "dequantize_blocks",
    "get_block_format",
    "nvfp4_tensor_scale",
]

E8M0_NAN = 0xFF  # the E8M0 code of NaN; code c is 2**(c - 127)
E8M0_EMAX = 127


SCALE_KINDS = ("e8m0", "e4m3", "float32_pow2", "float32")
"""The block scales: E8M0 (MX), E4M3 with a float32 per-tensor scale (NVFP4),
float32 powers of two (DeepSeek-V3; E8M0's range, 2**-127 to 2**127) and plain
float32 (``amax / max_elem`` rounded to nearest even)."""


@dataclass(frozen=True)
class BlockFormat:
    """A block-scaled format: element format, elements per block, scale type.

    ``element`` names a catalogue format (any of its aliases: ``"e2m1"`` is stored as
    ``"float4_e2m1fn"``), or ``"int8"`` for MXINT8's elements
    (8-bit two's complement with an implicit scale ``2**-6``: values ``k/64``,
    ``k`` in -128..127, OCP MX v1.0 section 5.3.4). ``emax_elem`` is the exponent of
    the element format's largest normal power of two (0 for MXINT8).
    ``block_size`` is an int (1-D blocks) or a pair (2-D tiles, e.g. ``(16, 16)``);
    ``scale`` one of :data:`SCALE_KINDS` (``"e4m3"`` takes E2M1 elements only: NVFP4).

    >>> BlockFormat("nvfp4_16x16", "float4_e2m1fn", (16, 16), "e4m3", 2).block_size
    (16, 16)
    """

    name: str
    element: str
    block_size: int | tuple[int, int]
    scale: str  # one of SCALE_KINDS
    emax_elem: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {self.name!r}")
        if self.scale not in SCALE_KINDS:
            raise ValueError(f"scale must be one of {SCALE_KINDS}, got {self.scale!r}")
        size = self.block_size
        sizes = tuple(size) if isinstance(size, tuple | list) else (size,)
        if len(sizes) not in (1, 2) or any(
            isinstance(b, bool) or not isinstance(b, int | np.integer) or b < 1 for b in sizes
        ):
            raise ValueError(f"block_size must be a positive int or a pair of them, got {size!r}")
        object.__setattr__(self, "block_size", tuple(int(b) for b in sizes) if len(sizes) == 2
                           else int(sizes[0]))  # fmt: skip
        if self.element != "int8":  # a format's name or alias: stored by its own name
            object.__setattr__(self, "element", get_format(self.element).name)
        if self.scale == "e4m3" and self.element != "float4_e2m1fn":
            raise ValueError(
                f"an e4m3 block scale (NVFP4) takes float4_e2m1fn elements, got {self.element!r}"
            )

    @property
    def element_format(self) -> Format | None:
        """The element :class:`Format` (None for MXINT8's integers)."""
        return None if self.element == "int8" else get_format(self.element)

    @property
    def max_elem(self) -> float:
        """The element format's largest finite value (127/64 for MXINT8)."""
        return 127 / 64 if self.element == "int8" else float(get_format(self.element).max)

    @property
    def mantissa_bits(self) -> int:
        """The element format's mantissa bits (6 for MXINT8's ``k/64``)."""
        return 6 if self.element == "int8" else get_format(self.element).mantissa_bits


def _mx(name: str, element: str) -> BlockFormat:
    emax = 0 if element == "int8" else get_format(element).emax
    return BlockFormat(name, element, 32, "e8m0", emax)


# OCP MX v1.0 table 1 ("Format names and parameters of concrete MX-compliant formats"):
# block size k = 32 and scale E8M0 for every one of them.
BLOCK_FORMATS: dict[str, BlockFormat] = {
    f.name: f
    for f in (
        _mx("mxfp8_e4m3", "float8_e4m3fn"),
        _mx("mxfp8_e5m2", "float8_e5m2"),
        _mx("mxfp6_e3m2", "float6_e3m2fn"),
        _mx("mxfp6_e2m3", "float6_e2m3fn"),
        _mx("mxfp4", "float4_e2m1fn"),
        _mx("mxint8", "int8"),
        BlockFormat("nvfp4", "float4_e2m1fn", 16, "e4m3", 2),
    )
}
_ALIASES = {"mxfp4_e2m1": "mxfp4", "mxfp8": "mxfp8_e4m3", "mxfp6": "mxfp6_e3m2"}


def get_block_format(fmt: Any) -> BlockFormat:
    """A :class:`BlockFormat` by name (or itself).

    >>> get_block_format("mxfp4").block_size
    32
    """
    if isinstance(fmt, BlockFormat):
        return fmt
    if not isinstance(fmt, str):
        raise TypeError(f"block format must be a name, got {type(fmt).__name__} {fmt!r}")
    key = _ALIASES.get(fmt.lower(), fmt.lower())
    if key not in BLOCK_FORMATS:
        raise ValueError(
            f"unknown block format {fmt!r}; expected one of {', '.join(BLOCK_FORMATS)}"
        )
    return BLOCK_FORMATS[key]


def _axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for an array of {ndim} dimension(s)")
    return int(axis) % ndim


def scale_values_of(scales: np.ndarray, spec: BlockFormat) -> np.ndarray:
    if spec.scale == "e4m3":
        return K.codes_to_values(scales, "float8_e4m3fn")
    if spec.scale in ("float32", "float32_pow2"):  # float32 bits
        return np.asarray(scales, np.uint32).view(np.float32).astype(np.float64)
    out = np.ldexp(1.0, scales.astype(np.int32) - 127)
    out[scales == E8M0_NAN] = np.nan
    return out


def element_values_of(codes: np.ndarray, spec: BlockFormat) -> np.ndarray:
    if spec.element == "int8":
        return codes.view(np.int8) / 64.0
    return K.codes_to_values(codes, spec.element)


def _codes_argument(
    values: Any, name: str, bits: int, what: str, top: int | None = None
) -> np.ndarray:
    """Codes from an integer array, a list, or floats holding integers: uint8 in
    ``0..top`` (default ``2**bits - 1``); anything else is refused, naming ``name``."""
    arr = np.asarray(values)
    if arr.dtype == np.int8 and bits == 8 and name == "codes":  # MXINT8's bytes, as int8
        arr = arr.view(np.uint8)
    top = (1 << bits) - 1 if top is None else top
    flat = arr.reshape(-1)
    if arr.dtype.kind == "O" and all(isinstance(v, int) for v in flat):  # beyond int64
        for i, v in enumerate(flat):
            if not 0 <= v <= top:
                raise ValueError(f"{name} holds {v!r} at flat index {i}; {what} are integer "
                                 f"codes 0..{top}")  # fmt: skip
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be integer codes, got an array of dtype {arr.dtype}")
    with np.errstate(invalid="ignore"):
        bad = (arr < 0) | (arr > top)
        if arr.dtype.kind == "f":
            bad |= ~np.isfinite(arr) | (arr != np.floor(arr))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} holds {arr.reshape(-1)[i].item()!r} at flat index {i}; {what} are "
            f"integer codes 0..{top}"
        )
    return arr.astype(np.uint8 if bits <= 8 else np.uint32)


def _check_tensor_scale(tensor_scale: Any) -> float:
    """A positive finite number that is a float64 value (of any numeric kind)."""
    from .per_tensor import check_amax  # a number of any kind, exactly

    value = check_amax(tensor_scale, "tensor_scale")
    if value == 0 or value > Fraction(np.finfo(np.float64).max) or Fraction(float(value)) != value:
        raise ValueError(
            f"tensor_scale must be a positive finite float (NVFP4's per-tensor scale), "
            f"got {tensor_scale!r}"
        )
    return float(value)


def dequantize_blocks(
    scales: Any, codes: Any, fmt: str | BlockFormat, *, axis: Any = -1, tensor_scale: Any = None,
    block_size: Any = None,
) -> np.ndarray:  # fmt: skip
    """Decode block scales and element codes back to float64 values (the inverse
    of :func:`quantize_blocks`; ``tensor_scale`` is NVFP4's per-tensor scale;
    ``axis`` and ``block_size`` as :func:`quantize_blocks` takes them).

    ``scales`` and ``codes`` are integer arrays or lists (floats that hold
    integers are taken too). A code outside its format (an E2M1 element code of
    16 or more, a scale code above 255, an NVFP4 scale with its sign bit set, a
    negative or fractional code, NaN) raises ValueError naming the argument; a
    ``tensor_scale`` that is not a positive finite float64 value (a number of any
    kind: ml_dtypes scalars, 0-d arrays and Fractions too) is refused as well.
    float32 scales (``float32_pow2``, ``float32``) are their float32 bits (uint32).

    >>> codes = np.array([[0x38, 0xB8, 0x7E]], np.uint8)  # E4M3 codes of 1, -1, 448
    >>> dequantize_blocks(np.array([[125]], np.uint8), codes, "mxfp8_e4m3")  # X = 2**-2
    array([[  0.25,  -0.25, 112.  ]])
    """
    from .tiles import block_layout

    spec = get_block_format(fmt)
    element_bits = 8 if spec.element == "int8" else get_format(spec.element).bits
    codes = _codes_argument(codes, "codes", element_bits, f"{spec.name}'s elements")
    top = 0x7F if spec.scale == "e4m3" else None  # NVFP4's E4M3 scales are positive
    scale_bits = 32 if spec.scale.startswith("float32") else 8
    scales = _codes_argument(scales, "scales", scale_bits,
                             f"{spec.name}'s {spec.scale.upper()} scales", top)  # fmt: skip
    if codes.ndim == 0:
        raise ValueError("dequantize_blocks needs codes of at least one dimension")
    axes, sizes = block_layout(codes.ndim, axis, block_size, spec.block_size)
    expected = tuple(-(-n // sizes[axes.index(a)]) if a in axes else n
                     for a, n in enumerate(codes.shape))  # fmt: skip
    if scales.shape != expected:
        raise ValueError(
            f"scales of shape {scales.shape} do not fit codes {codes.shape}: "
            f"expected {expected} for blocks of {sizes} along axis {axes}"
        )
    if spec.scale == "e4m3" and tensor_scale is None:
        raise ValueError(f"{spec.name} needs its per-tensor scale: pass tensor_scale=")
    if tensor_scale is not None:
        tensor_scale = _check_tensor_scale(tensor_scale)
    per_element = scale_values_of(scales, spec)
    for a, k in zip(axes, sizes, strict=True):
        per_element = np.repeat(per_element, k, axis=a)
        per_element = np.take(per_element, np.arange(codes.shape[a]), axis=a)
    with np.errstate(invalid="ignore"):  # E5M2's signalling NaN codes stay NaN
        values = element_values_of(codes, spec) * per_element
        if spec.scale == "e4m3":
            values = values * float(tensor_scale)
    return np.asarray(values)


def nvfp4_tensor_scale(amax: float | Fraction) -> float:
    """NVFP4's per-tensor scale ``amax / (448 * 6)``, rounded once to float32 from the
    exact ``amax`` (a float or a Fraction; at least float32's smallest subnormal; 1 for
    an all-zero tensor)."""
    if amax == 0:
        return 1.0
    if amax > 2688 * Fraction(float(np.finfo(np.float32).max)):
        shown = repr(float(amax)) if amax < 2**1000 else "beyond float64's range"
        raise ValueError(f"amax {shown} needs a per-tensor scale beyond float32's range")
    code = round_real(parse_real(Fraction(amax) / 2688), "float32")
    return max(float(K.codes_to_values(np.array([code], np.uint32), "float32")[0]), 2.0**-149)
