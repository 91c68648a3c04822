"""Block quantization of JAX arrays: the OCP MX formats and NVFP4, quantized and
dequantized in one jitted pass (:func:`quantize_blocks`).

MX (OCP MX v1.0 section 6.3): per block of 32, the shared scale
``X = 2**(floor(log2(amax)) - emax_elem)`` (at least E8M0's ``2**-127``; an all-zero
block gets ``2**-127``), each element ``V / X`` rounded into the element format,
saturating. Rounding ``V / X`` into the element format is rounding ``V`` into the
element format with its exponent range moved by ``log2(X)``, so the kernel rounds
``V`` itself, with the block's own ``emin``: no division, and the dequantized value
``X * element`` comes out directly. MXINT8's elements are ``k / 64`` with ``k`` in
-128..127: a format with 6 fraction bits and no exponent. NVFP4 (blocks of 16 E2M1
elements, an E4M3 block scale ``s`` and a float32 tensor scale ``g``) divides:
``g = amax / 2688`` rounded to float32, ``s = block_amax / (6 g)`` rounded into E4M3,
the element ``V / (s g)`` rounded into E2M1, each quotient exact before its one
rounding, and the value ``element * s * g`` (up to 30 significant bits) rounded once
to the output dtype (:mod:`fpexplore.jax._nvfp4`: what depends on ``s`` alone is
tabulated once per tensor).

The blocks stay where they are: the array is viewed as (outer, blocks, block size,
inner) around the block axis, so a block along a leading axis (a Dense kernel's)
costs no transpose. A block holding inf or NaN gives NaN for each of its elements,
as the numpy path.

Examples
--------
>>> import jax.numpy as jnp
>>> quantize_blocks(jnp.array([0.3, -1.7, 5.9, 100.0]), "mxfp4").tolist()
[0.0, -0.0, 8.0, 96.0]
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..exact import check_rounding
from ..scaling.block_formats import BlockFormat, _axis, get_block_format
from ._bits import INF, MAGNITUDE, SIGN, compose, decompose, u32
from ._dtypes import as_array, from_float32_bits, input_dtype, to_float32_bits
from ._nvfp4 import nvfp4_values
from ._random import key_words, random_bits
from ._rounding import round_count
from ._unscale import HOLDERS

__all__ = ["quantize_blocks"]

E8M0_EMIN = -127


def quantize_blocks(
    x: Any, fmt: str | BlockFormat, rounding: str = "nearest_even", *, axis: int = -1,
    key: Any = None,
) -> Any:  # fmt: skip
    """Quantize a JAX array block by block along ``axis`` and dequantize it again.

    Parameters
    ----------
    x : JAX or numpy array of float32, bfloat16 or float16, at least 1-d
    fmt : one of ``mxfp8_e4m3``, ``mxfp8_e5m2``, ``mxfp6_e3m2``, ``mxfp6_e2m3``,
        ``mxfp4``, ``mxint8``, ``nvfp4`` (or a :class:`fpexplore.BlockFormat`)
    rounding : str
        Rounding of the elements (the scales follow their own rules), as
        :func:`fpexplore.jax.round_to`; ``stochastic`` needs ``key``.
    axis : int
        The axis along which consecutive elements form blocks; the last block may
        be short (padded with zeros, which change no maximum).
    key : jax.random key, optional

    Returns
    -------
    JAX array of the shape and dtype of ``x``: the dequantized values. For float32
    inputs, :func:`fpexplore.quantize_blocks`'s ``.values`` rounded once to float32
    (exact for MX; NVFP4's can need 30 significant bits); for bfloat16 and float16
    inputs, those values rounded once into that dtype.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> x = jnp.array([0.1, -0.3, 0.7, 1.3, 2.9, -5.0, 0.02, 0.5] * 2)
    >>> y = jax.jit(lambda v: quantize_blocks(v, "nvfp4"))(x)
    >>> y[:8].tolist()  # E2M1 elements times s * g: 2.50000001 (numpy) rounded once
    [0.0, -0.4166666567325592, 0.8333333134651184, 1.25, 2.5, -5.0, 0.0, 0.4166666567325592]
    """
    spec = get_block_format(fmt)
    check_rounding(rounding)
    dtype = input_dtype(x)
    array = as_array(x)
    if array.ndim == 0:
        raise ValueError("quantize_blocks needs an array of at least one dimension")
    if rounding == "stochastic":
        key_words(key)  # a clear error now rather than inside the trace
    ax = _axis(axis, array.ndim)
    if array.size == 0:  # no blocks: nothing to quantize (a kernel would index none)
        return array
    return _quantize(array, key if rounding == "stochastic" else None, spec=spec, axis=ax,
                     rounding=rounding, dtype_name=dtype.name)  # fmt: skip


@partial(jax.jit, static_argnames=("spec", "axis", "rounding", "dtype_name"))
def _quantize(x: Any, key: Any, *, spec: BlockFormat, axis: int, rounding: str,
              dtype_name: str) -> Any:  # fmt: skip
    shape = x.shape
    n, k = shape[axis], spec.block_size
    blocks = -(-n // k)
    outer, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
    bits = to_float32_bits(x).reshape(outer, n, inner)  # the blocks stay in place: no transpose
    if blocks * k > n:
        bits = jnp.pad(bits, [(0, 0), (0, blocks * k - n), (0, 0)])
    u = bits.reshape(outer, blocks, k, inner)
    amax = jnp.max(u & u32(MAGNITUDE), axis=2, keepdims=True, initial=np.uint32(0))  # exact
    special = amax >= u32(INF)  # inf or NaN in the block
    random = random_bits(key, u.shape) if rounding == "stochastic" else None
    if spec.scale == "e8m0":
        values = _mx(u, amax, spec, rounding, random, dtype_name)
    else:
        values = nvfp4_values(u, amax, special, rounding, random, dtype_name)
    values = jnp.where(special, u32(0x7FC0_0000), values)
    values = values.reshape(outer, blocks * k, inner)[:, :n, :].reshape(shape)
    return from_float32_bits(values, np.dtype(dtype_name))


def _mx(
    bits: Any, amax: Any, spec: BlockFormat, rounding: str, random: Any, holder: str
) -> Any:  # fmt: skip
    """MX elements rounded in place: the dequantized values' float32 bits, signed,
    rounded once more into a 16-bit holder (float32 holds them exactly)."""
    negative = (bits & u32(SIGN)) != 0
    sig, e = decompose(jnp.minimum(bits & u32(MAGNITUDE), u32(INF - 1)))
    _, amax_e = decompose(jnp.minimum(amax, u32(INF - 1)))  # floor(log2(amax))
    shared = jnp.where(amax == 0, E8M0_EMIN, jnp.maximum(amax_e - spec.emax_elem, E8M0_EMIN))
    element = spec.element_format
    if element is None:  # MXINT8: k / 64 with k in -128..127, an exponent-free format
        count, qe = round_count(sig, e, negative, mantissa_bits=6, emin=shared,
                                rounding=rounding, random=random)  # fmt: skip
        count = jnp.minimum(count, jnp.where(negative, u32(128), u32(127)))
        values, negative = compose(count, qe), negative & (count != 0)  # integers: no -0
    else:
        count, qe = round_count(sig, e, negative, mantissa_bits=element.mantissa_bits,
                                emin=element.emin + shared, rounding=rounding,
                                random=random)  # fmt: skip
        top = element.emax - element.mantissa_bits  # max = largest * 2**top
        largest = compose(u32(int(element.max * 2.0**-top)), top + shared)
        values = jnp.minimum(compose(count, qe), largest)  # saturating
    if holder != "float32":
        m, emin, _ = HOLDERS[holder]
        count, qe = round_count(*decompose(values), negative, mantissa_bits=m, emin=emin,
                                rounding="nearest_even")  # fmt: skip
        values = compose(count, qe)
    return values | jnp.where(negative, u32(SIGN), u32(0))
