"""NVFP4 block rows of a report, for inputs of at most 24 significant bits.

:func:`fpexplore.quantize_blocks` quantizes NVFP4 for any input: each quotient
``amax / (6 g)`` and ``x / (s g)`` is rounded to odd where float64 cannot hold it,
which costs a two-product per element (and tiles, codes, a second pass over the
values). For the report's float32, float16, bfloat16, FP8 and small integer
inputs, none of that is needed, and this route computes the very same numbers:

* ``g``, the float32 tensor scale, is the same call (:func:`nvfp4_tensor_scale`);
* ``6 g`` holds at most 26 bits and a block's amax at most 24, so the float64
  quotient ``amax / (6 g)`` never lies beside a midpoint of E4M3 unless it is
  exact (:mod:`fpexplore._kernels.scaled`): the float64 rounder gives the E4M3
  scale ``s`` that ``round_codes`` gives from the quotient rounded to odd;
* ``s g`` holds at most 28 bits, so ``x / (s g)`` is the same: one float64
  division, rounded into E2M1 (saturating) by the float64 kernel, its largest
  finite value beyond which it saturates giving the clipped count (the quotients
  of these inputs stay inside float64's normal range, where no element takes
  quantize_blocks' Fraction route);
* ``q = t s g`` is exact (2 bits times 28).

A block whose scale rounds to 0 stores zeros (its divisor is float64's largest
here, so its quotients round to 0 and so do their products). The tests compare
this route with the general one (the same tensor as float64) on adversarial
tensors.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..._kernels.round.magnitudes import round_magnitudes64
from ..._kernels.round.nearest import NearestRounder, nearest_rounder
from ...formats import get_format
from ...scaling.block_formats import BlockFormat, nvfp4_tensor_scale
from ...scaling.per_tensor import check_amax
from .blocks import block_max, spread
from .rows import Work

__all__ = ["nvfp4_magnitudes", "tensor_scale"]

_LARGEST = float(np.finfo(np.float64).max)


@lru_cache(maxsize=256)
def tensor_scale(tensor_amax: float) -> float:
    """NVFP4's float32 tensor scale ``g`` of a tensor of largest magnitude
    ``tensor_amax`` (quantize_blocks' own computation)."""
    return nvfp4_tensor_scale(check_amax(tensor_amax, "tensor_amax"))


def _rounders(block: BlockFormat) -> tuple[NearestRounder, NearestRounder]:
    scale = nearest_rounder(get_format("float8_e4m3fn"), saturate=True)
    assert block.element_format is not None
    element = nearest_rounder(block.element_format, saturate=True)
    assert scale is not None and element is not None
    return scale, element


def nvfp4_magnitudes(
    a: np.ndarray, k: int, block: BlockFormat, tensor_amax: float, w: Work,
    a32: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:  # fmt: skip
    """NVFP4 blocks of ``k`` float64 magnitudes ``a`` (values of at most 24 bits):
    the stored element magnitudes ``t`` (in ``w.mags``), the dequantized magnitudes
    ``t s g`` (in ``w.q``) and how many elements were clipped (rounded beyond 6).
    ``a32``: the same magnitudes as float32 (the narrow route's), whose blocks'
    maxima are found on half the bytes."""
    m = a.size
    g = tensor_scale(tensor_amax)
    scale_rounder, element_rounder = _rounders(block)
    if a32 is not None:
        amax = block_max(a32.view(np.uint32), k).view(np.float32).astype(np.float64)
    else:  # non-negative float64s order as their bits do
        amax = block_max(a.view(np.uint64), k).view(np.float64)
    target = amax / (6.0 * g)
    s = np.empty_like(target)
    round_magnitudes64(target, scale_rounder, s, w.nearest)
    divisor = s * g  # exact: 4 bits times 24
    # A block whose scale is 0 stores zeros: its divisor is float64's largest, which
    # makes every quotient of a float32 below a quarter (rounded to 0) and t d = 0.
    divisor[divisor == 0] = _LARGEST
    d, y, t, q = spread(divisor, k, w.sden[:m]), w.y[:m], w.mags[:m], w.q[:m]
    np.divide(a, d, out=y)
    clipped = round_magnitudes64(y, element_rounder, t, w.nearest)
    np.multiply(t, d, out=q)
    return t, q, clipped
