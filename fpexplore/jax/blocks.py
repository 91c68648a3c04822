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

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..exact import check_rounding
from ..scaling.block_formats import BlockFormat, get_block_format
from ..scaling.per_tensor import check_amax
from ..scaling.tiles import block_layout, check_scale_rule
from ._bits import INF, MAGNITUDE, SIGN, compose, decompose, u32
from ._block_scales import float32_scaled_values, pow2_exponent
from ._dtypes import as_array, from_float32_bits, input_dtype, is_number, to_float32_bits
from ._nvfp4 import nvfp4_values
from ._random import key_words, random_bits
from ._rounding import round_count
from ._unscale import HOLDERS

__all__ = ["quantize_blocks"]


def quantize_blocks(
    x: Any, fmt: str | BlockFormat, rounding: str = "nearest_even", *,
    axis: int | tuple[int, int] = -1, block_size: int | tuple[int, int] | None = None,
    scale_rule: str | None = None, key: Any = None, tensor_amax: Any = None,
) -> Any:  # fmt: skip
    """Quantize a JAX array block by block and dequantize it again.

    Parameters
    ----------
    x : JAX or numpy array of float32, bfloat16 or float16, at least 1-d
    fmt : a :class:`fpexplore.BlockFormat` or one of ``mxfp8_e4m3``,
        ``mxfp8_e5m2``, ``mxfp6_e3m2``, ``mxfp6_e2m3``, ``mxfp4``, ``mxint8``, ``nvfp4``
    rounding : str
        Rounding of the elements (the scales follow their own rules), as
        :func:`fpexplore.jax.round_to`; ``stochastic`` needs ``key``.
    axis : int or pair of ints
        The axis along which consecutive elements form blocks, or the two axes of
        a 2-D tile; a partial block at an edge is scaled on its own (padded with
        zeros, which change no maximum).
    block_size : int or pair of ints, optional
        Elements per block, or a tile's size along each axis (default the
        format's), as :func:`fpexplore.quantize_blocks` takes it.
    scale_rule : str, optional
        ``"floor"`` (default), ``"rceil"``, ``"ceil"`` or ``"even"``: the rule of a
        power-of-two scale, as :func:`fpexplore.quantize_blocks` defines them.
    key : jax.random key, optional
    tensor_amax : float or JAX scalar, optional
        NVFP4 only: the amax that the per-tensor scale comes from (default: this
        array's largest finite magnitude); it may be traced. A Python or numpy
        number must be finite and >= 0, as :func:`fpexplore.quantize_blocks` asks
        (a traced one is not checked).

    Returns
    -------
    JAX array of the shape and dtype of ``x``: the dequantized values. For float32
    inputs, :func:`fpexplore.quantize_blocks`'s ``.values`` rounded once to float32
    (exact for power-of-two scales; NVFP4's and float32 scales' can need up to 31
    significant bits); for bfloat16 and float16 inputs, those values rounded once
    into that dtype.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> x = jnp.array([0.1, -0.3, 0.7, 1.3, 2.9, -5.0, 0.02, 0.5] * 2)
    >>> y = jax.jit(lambda v: quantize_blocks(v, "nvfp4"))(x)
    >>> y[:8].tolist()  # E2M1 elements times s * g: 2.50000001 (numpy) rounded once
    [0.0, -0.4166666567325592, 0.8333333134651184, 1.25, 2.5, -5.0, 0.0, 0.4166666567325592]
    >>> w = jnp.ones((20, 40))
    >>> quantize_blocks(w, "nvfp4", axis=(0, 1), block_size=(16, 16)).shape
    (20, 40)
    """
    spec = get_block_format(fmt)
    check_rounding(rounding)
    rule = check_scale_rule(scale_rule, spec.scale)
    if tensor_amax is not None and spec.scale != "e4m3":
        raise ValueError(
            f"tensor_amax applies to an e4m3 scale's per-tensor scale (nvfp4), not to {spec.name}"
        )
    if is_number(tensor_amax):  # a traced one cannot be checked
        check_amax(tensor_amax, "tensor_amax")
    dtype = input_dtype(x)
    array = as_array(x)
    if array.ndim == 0:
        raise ValueError("quantize_blocks needs an array of at least one dimension")
    if rounding == "stochastic":
        key_words(key)  # a clear error now rather than inside the trace
    axes, sizes = block_layout(array.ndim, axis, block_size, spec.block_size)
    if array.size == 0:  # no blocks: nothing to quantize (a kernel would index none)
        return array
    amax = None if tensor_amax is None else jnp.abs(jnp.asarray(tensor_amax, jnp.float32))
    return _quantize(array, key if rounding == "stochastic" else None, amax, spec=spec,
                     axes=axes, sizes=sizes, rule=rule, rounding=rounding,
                     dtype_name=dtype.name)  # fmt: skip


def _layout(shape: tuple[int, ...], axes: tuple[int, ...], sizes: tuple[int, ...]) -> Any:
    """The padding, the split shape (each block axis as blocks and block size) and
    the positions of the block-size axes in it."""
    size_of = dict(zip(axes, sizes, strict=True))
    pads = [(0, -(-n // size_of[a]) * size_of[a] - n) if a in size_of else (0, 0)
            for a, n in enumerate(shape)]  # fmt: skip
    split: list[int] = []
    inner: list[int] = []
    for a, n in enumerate(shape):
        if a in size_of:
            split += [-(-n // size_of[a]), size_of[a]]
            inner.append(len(split) - 1)
        else:
            split.append(n)
    return pads, tuple(split), tuple(inner)


@partial(jax.jit, static_argnames=("spec", "axes", "sizes", "rule", "rounding", "dtype_name"))
def _quantize(
    x: Any, key: Any, tensor_amax: Any, *, spec: BlockFormat, axes: tuple[int, ...],
    sizes: tuple[int, ...], rule: str, rounding: str, dtype_name: str,
) -> Any:  # fmt: skip
    shape = x.shape
    pads, split, inner = _layout(shape, axes, sizes)
    bits = to_float32_bits(x)
    if any(p for _, p in pads):
        bits = jnp.pad(bits, pads)
    padded = bits.shape
    u = bits.reshape(split)  # the blocks stay in place: no transpose
    amax = jnp.max(u & u32(MAGNITUDE), axis=inner, keepdims=True, initial=np.uint32(0))  # exact
    special = amax >= u32(INF)  # inf or NaN in the block
    random = random_bits(key, u.shape) if rounding == "stochastic" else None
    if spec.scale in ("e8m0", "float32_pow2"):
        values = _mx(u, amax, spec, rule, rounding, random, dtype_name)
    elif spec.scale == "float32":
        finite = jnp.where(special, u32(0), amax)
        values = float32_scaled_values(u, finite, spec, rounding, random, dtype_name)
    else:
        given = None if tensor_amax is None else to_float32_bits(tensor_amax)
        values = nvfp4_values(u, amax, special, rounding, random, dtype_name, given)
    values = jnp.where(special, u32(0x7FC0_0000), values)
    values = values.reshape(padded)[tuple(slice(0, n) for n in shape)]
    return from_float32_bits(values, np.dtype(dtype_name))


def _mx(
    bits: Any, amax: Any, spec: BlockFormat, rule: str, rounding: str, random: Any, holder: str
) -> Any:  # fmt: skip
    """Power-of-two scales: the elements rounded in place, as the dequantized values'
    float32 bits, signed, rounded once more into a 16-bit holder (float32 holds
    them exactly)."""
    negative = (bits & u32(SIGN)) != 0
    sig, e = decompose(jnp.minimum(bits & u32(MAGNITUDE), u32(INF - 1)))
    shared = pow2_exponent(amax, spec, rule)
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
