"""Rounding, scaling and block quantization of JAX arrays, inside ``jit``.

fpexplore's correct rounding, for a training step: every function here takes a
JAX array (float32, bfloat16 or float16), returns one of the same dtype, works
under ``jax.jit``, ``vmap`` and ``grad``, and gives what the numpy functions of
the same name give, bit for bit on float32 inputs:

* :func:`round_to` rounds into any format whose values float32 holds (bfloat16,
  float16, TF32, every FP8, FP6, FP4, custom formats), in the six modes;
  :func:`round_ste` is the same with a straight-through gradient;
* :func:`quantize_blocks` quantizes and dequantizes the OCP MX formats and NVFP4,
  in blocks of any size along any axis or in 2-D tiles, with any scale rule;
* :func:`hadamard` applies the random Hadamard transform of the NVFP4 recipe;
* :func:`gemm` multiplies matrices with a tensor core's accumulator model;
* :func:`scale_per_tensor` scales by a tensor's amax (current, or delayed through
  an amax history kept by :func:`record_amax`), with :func:`compute_scale` and
  :func:`amax_of`.

How a value travels: it is read as its 32-bit code (``lax.bitcast_convert_type``)
and never touched by float arithmetic, which XLA's CPU runtime runs with
subnormals flushed to zero. The kernel rounds the
code's bits in place for formats with float32's exponent range, counts subnormal
quanta for small values of narrower ones, and takes any other value apart into a
significand and an exponent (the same helpers multiply and divide exactly for the
scales); one function per rule of the format (overflow,
zeros, infinities, NaNs) then finishes it. Stochastic rounding draws its random
bits from a keyed hash of each element's index.
Each public function compiles once per shape, dtype, format and mode: the format
is a static argument.

Needs JAX: the ``keras`` extra, ``pip install -e ".[keras]"`` from a clone.
``import fpexplore`` does not import this package.

Examples
--------
>>> import jax, jax.numpy as jnp
>>> import fpexplore.jax as fjax
>>> x = jnp.array([0.1, 3.14159, 1000.0])
>>> jax.jit(lambda v: fjax.round_to(v, "float8_e5m2"))(x).tolist()
[0.09375, 3.0, 1024.0]
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
from .gemm import gemm
from .hadamard import hadamard
from .rounding import round_ste, round_to
from .scaling import ScaledTensor, amax_of, compute_scale, record_amax, scale_per_tensor

__all__ = [
    "ScaledTensor",
    "amax_of",
    "compute_scale",
    "gemm",
    "hadamard",
    "quantize_blocks",
    "record_amax",
    "round_ste",
    "round_to",
    "scale_per_tensor",
]
