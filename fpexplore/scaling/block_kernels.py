"""The three ways a block gets its scale, on tiles of float64 values.

Every function here takes ``v``, an array of shape ``(*blocks, elements per block)``
(:func:`fpexplore.scaling.tiles.to_tiles`), each block's ``amax`` (shape
``blocks``) and where that is inf or NaN (``special``), and returns the scale
codes, the element codes and the dequantized float64 values:

* :func:`quantize_pow2`: a power-of-two scale ``X = 2**e`` (E8M0, or float32
  powers of two), ``e`` from the amax by a scale rule, each element ``V / X``
  (exact) rounded into the element format, saturating;
* :func:`quantize_float32`: a float32 scale ``X = amax / max_elem`` rounded to
  nearest even, each element the exact ``V / X`` rounded once;
* :func:`quantize_nvfp4`: NVFP4's E4M3 block scale under a float32 tensor scale.

>>> from fpexplore.scaling.block_formats import get_block_format
>>> v = np.array([[0.3, -1.7, 5.9, 100.0]])
>>> amax = np.abs(v).max(axis=-1)
>>> scales, codes, values = quantize_pow2(v, amax, amax > np.inf, get_block_format("mxfp4"),
...                                      "nearest_even", None, "floor")
>>> int(scales[0]) - 127, values.tolist()
(4, [[0.0, -0.0, 8.0, 96.0]])
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .. import codes as K
from .._kernels.scaled import odd_product, odd_quotient
from ..exact import check_rng
from ..formats import get_format
from .block_formats import (
    E8M0_EMAX,
    E8M0_NAN,
    BlockFormat,
    element_values_of,
    nvfp4_tensor_scale,
)
from .per_tensor import check_amax
from .tiles import pow2_exponents

__all__ = ["quantize_float32", "quantize_nvfp4", "quantize_pow2"]

_F32_NAN = np.uint32(0x7FC0_0000)


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


def _nan_blocks(values: np.ndarray, special: np.ndarray) -> None:
    values[np.broadcast_to(special[..., None], values.shape)] = np.nan


def quantize_pow2(
    v: np.ndarray, amax: np.ndarray, special: np.ndarray, spec: BlockFormat, rounding: str,
    rng: Any, rule: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """A power-of-two scale per block: E8M0 codes (``spec.scale == "e8m0"``) or
    float32 bits, the exponent by ``rule``, clamped below at -127 (an all-zero block
    gets -127, as gfloat does); above 127 raises ValueError."""
    safe = np.where(special | (amax == 0), 1.0, amax)
    shared = pow2_exponents(safe, rule, spec.emax_elem, spec.mantissa_bits, spec.max_elem)
    shared = np.where(amax > 0, shared, -E8M0_EMAX)
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
    scale = np.ldexp(1.0, shared)
    values = element_values_of(codes, spec) * scale[..., None]
    if spec.scale == "e8m0":
        scales = (shared + 127).astype(np.uint8)
        scales[special] = E8M0_NAN
    else:
        scales = scale.astype(np.float32).view(np.uint32)
        scales[special] = _F32_NAN
    _nan_blocks(values, special)
    return scales, codes, values


def quantize_float32(
    v: np.ndarray, amax: np.ndarray, special: np.ndarray, spec: BlockFormat, rounding: str,
    rng: Any, narrow: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """A float32 scale per block, ``X = amax / max_elem`` rounded once to nearest
    even (its float32 bits); elements ``V / X`` rounded once (0 where ``X`` is 0)."""
    f32 = get_format("float32")
    quotient = odd_quotient(np.where(special, 0.0, amax), spec.max_elem, f32)
    x = K.codes_to_values(K.round_codes(quotient, f32), f32)
    divisor = np.where(x > 0, x, 1.0)[..., None]
    element = spec.element_format or get_format("float16")  # int8: its grid k/64 in float16's
    scaled = odd_quotient(v, divisor, element, narrow=narrow)
    scaled = np.where(special[..., None] | (x[..., None] == 0), 0.0, scaled)
    codes = _encode_elements(scaled, spec, rounding, rng)
    values = element_values_of(codes, spec) * x[..., None]  # exact: 8 bits times 24
    scales = x.astype(np.float32).view(np.uint32)
    scales[special] = _F32_NAN
    _nan_blocks(values, special)
    return scales, codes, values


def quantize_nvfp4(
    v: np.ndarray, amax: np.ndarray, special: np.ndarray, spec: BlockFormat, rounding: str,
    rng: Any, tensor_amax: Any, narrow: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    """NVFP4: the float32 tensor scale ``g`` from the tensor's amax (or
    ``tensor_amax``), E4M3 block scales ``amax / (6 g)``, elements ``V / (s g)``."""
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
    values = element_values_of(codes, spec) * (s * g)[..., None]
    scales[special] = 0x7F  # E4M3's NaN
    _nan_blocks(values, special)
    return scales, codes, values, g
