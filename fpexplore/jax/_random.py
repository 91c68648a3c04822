"""Random bits for stochastic rounding: a keyed hash of each element's index.

Stochastic rounding needs, per element, about 2 to 24 uniform random bits,
independent from element to element, and reproducible from a key. JAX's default
generator (threefry2x32, 20 rounds of a cipher per pair of words) gives far more
than that and costs several times a float32 cast on a CPU. :func:`random_bits`
instead hashes each element's flat index with the key: the key's words are mixed
into two 32-bit seeds, and element ``i`` gets ``mix(mix(i ^ seed0) + seed1)``,
where ``mix`` is Chris Wellons' "lowbias32" integer finalizer (two multiply and
three xor-shift steps: a bijection of uint32, found by a search for the lowest
avalanche bias, so that flipping any input bit flips each output bit with
probability close to 1/2). Being a bijection of
the index, it gives every element its own word and no two equal ones in an array
of up to 2**32 elements; the second round makes keys that differ in any bit give
unrelated streams rather than shifted or permuted copies. It is not a
cryptographic generator; for rounding decisions, where a bias would show only as
a drift in means, its uniformity is what matters, and
``tests/jax/test_stochastic.py`` checks the means over many keys.

The bits depend on the key and on the element's position in the array, as
``jax.random.bits`` do: under ``vmap`` with one key shared by the batch, every
batch member gets the same bits (split the key to make them differ).

Examples
--------
>>> import jax
>>> bits = random_bits(jax.random.key(0), (2, 3))
>>> bits.shape, str(bits.dtype)
((2, 3), 'uint32')
>>> bool((random_bits(jax.random.key(0), (2, 3)) == bits).all())
True
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._bits import u32


def mix(x: Any) -> Any:
    """Wellons' lowbias32 integer hash of uint32 ``x``."""
    x = x ^ lax.shift_right_logical(x, u32(16))
    x = x * u32(0x7FEB_352D)
    x = x ^ lax.shift_right_logical(x, u32(15))
    x = x * u32(0x846C_A68B)
    return x ^ lax.shift_right_logical(x, u32(16))


def key_words(key: Any) -> Any:
    """The uint32 words of a ``jax.random`` key: a typed key (``jax.random.key``)
    or a raw one (``jax.random.PRNGKey``, uint32 of shape (2,) or (4,))."""
    if key is None:
        raise ValueError(
            "rounding='stochastic' needs key=, a jax.random key (e.g. jax.random.key(0))"
        )
    dtype = getattr(key, "dtype", None)
    if dtype is not None and jnp.issubdtype(dtype, jax.dtypes.prng_key):
        if key.shape != ():
            raise ValueError(f"key must be a single jax.random key, got keys of shape {key.shape}")
        return jax.random.key_data(key).reshape(-1).astype(jnp.uint32)
    if dtype is None or np.dtype(dtype) != np.uint32 or key.ndim != 1 or key.shape[0] < 2:
        raise TypeError(
            "key must be a jax.random key (jax.random.key(0) or jax.random.PRNGKey(0)), "
            f"got {key!r}"
        )
    return jnp.asarray(key, jnp.uint32)


def random_bits(key: Any, shape: tuple[int, ...]) -> Any:
    """Uniform uint32 bits of ``shape``, one word per element, from ``key``."""
    words = key_words(key)
    seed0, seed1 = u32(0x9E37_79B9), u32(0x85EB_CA6B)
    for i in range(words.shape[0]):
        seed0 = mix(seed0 ^ words[i])
        seed1 = mix(seed1 + seed0)
    size = int(np.prod(shape, dtype=np.int64))
    index = lax.iota(jnp.uint32, size).reshape(shape)
    return mix(mix(index ^ seed0) + seed1)
