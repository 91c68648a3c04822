"""Rounding, scaling and block quantization of JAX arrays, inside ``jit``.

Needs JAX (the ``keras`` extra: ``pip install -e ".[keras]"`` from a clone).
"""

from __future__ import annotations

try:
    import jax as _jax  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised without JAX
    raise ImportError(
        'fpexplore.jax needs JAX: pip install -e ".[keras]" from a clone of fpexplore '
        "(it is not on PyPI), or pip install jax"
    ) from error

from .blocks import quantize_blocks
from .rounding import round_ste, round_to
from .scaling import ScaledTensor, amax_of, compute_scale, record_amax, scale_per_tensor

__all__ = [
    "ScaledTensor",
    "amax_of",
    "compute_scale",
    "quantize_blocks",
    "record_amax",
    "round_ste",
    "round_to",
    "scale_per_tensor",
]
