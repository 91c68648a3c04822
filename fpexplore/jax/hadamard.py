"""The random Hadamard transform of JAX arrays, inside ``jit``
(:func:`fpexplore.hadamard`'s operations, in the same order).

The signs, ``log2(size)`` butterfly stages and one scaling by ``1/sqrt(size)``,
in float32: a handful of operations whatever the array's size, so it compiles
fast. bfloat16 and float16 inputs are computed in float32 and rounded once back.

Examples
--------
>>> import jax, jax.numpy as jnp
>>> jax.jit(lambda v: hadamard(v, 4))(jnp.array([4.0, 0.0, 0.0, 0.0])).tolist()
[-2.0, -2.0, -2.0, -2.0]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..scaling.hadamard import check_hadamard, hadamard_norm, hadamard_signs, hadamard_stages
from ._dtypes import as_array, input_dtype

__all__ = ["hadamard"]


def hadamard(
    x: Any, size: int = 16, *, axis: int = -1, seed: int = 0, inverse: bool = False
) -> Any:
    """``x`` times the orthonormal random Hadamard matrix ``diag(s) H / sqrt(size)``,
    block by block along ``axis``, as :func:`fpexplore.hadamard` (bit for bit on
    float32 inputs wherever no value falls below float32's normal range).

    Parameters
    ----------
    x : JAX or numpy array of float32, bfloat16 or float16, at least 1-d
    size : int
        A power of two that divides the axis' length.
    axis : int
    seed : int
        Draws the random sign vector (fixed at trace time).
    inverse : bool
        Apply the inverse (the transpose).

    Returns
    -------
    JAX array of the shape and dtype of ``x``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> y = hadamard(jnp.arange(16.0), 16, seed=3)
    >>> bool(jnp.allclose(hadamard(y, 16, seed=3, inverse=True), jnp.arange(16.0), atol=1e-5))
    True
    """
    dtype = input_dtype(x)
    array = as_array(x)
    if array.ndim == 0:
        raise ValueError("hadamard needs an array of at least one dimension")
    size, ax = check_hadamard(size, array.shape, axis)
    signs = tuple(float(v) for v in hadamard_signs(size, seed))
    return _transform(array, size=size, axis=ax, signs=signs, inverse=bool(inverse),
                      dtype_name=dtype.name)  # fmt: skip


@partial(jax.jit, static_argnames=("size", "axis", "signs", "inverse", "dtype_name"))
def _transform(
    x: Any, *, size: int, axis: int, signs: tuple[float, ...], inverse: bool, dtype_name: str
) -> Any:
    moved = jnp.moveaxis(x.astype(jnp.float32), axis, -1)
    blocks = moved.reshape(*moved.shape[:-1], -1, size)
    s = jnp.asarray(np.array(signs, np.float32))
    norm = jnp.asarray(hadamard_norm(size, np.float32))
    if inverse:
        y = hadamard_stages(blocks, jnp) * norm * s
    else:
        y = hadamard_stages(blocks * s, jnp) * norm
    out = jnp.moveaxis(y.reshape(moved.shape), -1, axis)
    return out.astype(np.dtype(dtype_name))
