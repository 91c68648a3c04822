"""Rounding JAX arrays into a format, inside ``jit``: :func:`round_to` and its
straight-through twin :func:`round_ste`.

Examples
--------
>>> import jax, jax.numpy as jnp
>>> x = jnp.array([0.1, 1.0, 300.0, 500.0], jnp.float32)
>>> round_to(x, "float8_e4m3fn").tolist()  # 500 is past E4M3's max 448: NaN, as in OCP FP8
[0.1015625, 1.0, 288.0, nan]
>>> jax.grad(lambda v: round_ste(v, "float8_e4m3fn").sum())(x).tolist()
[1.0, 1.0, 1.0, 1.0]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import numpy as np

from ..exact import check_overflow, check_rounding
from ..formats import FormatLike, get_format
from ._core import Spec, round_bits, spec_for
from ._dtypes import (
    as_array,
    check_fits,
    from_float32_bits,
    input_dtype,
    to_float32_bits,
)
from ._random import key_words, random_bits

__all__ = ["round_ste", "round_to"]


def _prepare(
    x: Any, fmt: FormatLike, rounding: str, key: Any, overflow: str | None
) -> tuple[Any, Spec]:
    """Check the arguments (at trace time: all of them are static but ``x`` and
    ``key``) and return ``x`` as a JAX array with the format's constants."""
    dtype = input_dtype(x)
    f = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    check_fits(f, np.dtype(np.float32))
    if dtype != np.float32:
        check_fits(f, dtype)
    if rounding == "stochastic":
        key_words(key)  # a clear error now rather than inside the trace
    return as_array(x), spec_for(f, overflow)


@partial(jax.jit, static_argnames=("spec", "rounding"))
def _round(x: Any, key: Any, *, spec: Spec, rounding: str) -> Any:
    """One compiled kernel per shape, dtype, format, mode and overflow policy."""
    random = random_bits(key, x.shape) if rounding == "stochastic" else None
    bits = round_bits(to_float32_bits(x), spec, rounding, random)
    return from_float32_bits(bits, np.dtype(x.dtype))


def round_to(
    x: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    key: Any = None,
    overflow: str | None = None,
) -> Any:
    """Round a JAX array into ``fmt``; same shape and dtype, usable under ``jit``,
    ``vmap`` and ``grad`` (whose derivative through rounding is 0, as a step
    function's is; :func:`round_ste` passes gradients through).

    Parameters
    ----------
    x : JAX or numpy array of float32, bfloat16 or float16
        Each value is rounded once, from its exact value. A bfloat16 or float16
        array comes back in its dtype, which must hold every value of ``fmt``.
    fmt : str, Format or dtype (``jnp.bfloat16`` too)
        Any format whose values are all float32s: bfloat16, float16, TF32, every
        FP8 (OCP, IEEE-style, fnuz, E8M0, P3109), FP6, FP4, custom ``eXmY``...
    rounding : str
        ``nearest_even`` (default), ``nearest_away``, ``toward_zero``, ``up``,
        ``down`` or ``stochastic``.
    key : jax.random key, optional
        Required by ``stochastic`` (``jax.random.key(0)``); the same key gives the
        same result. Ignored by the other modes.
    overflow : None or "saturate"
        None follows the format's convention (IEEE and P3109: inf; fn, fnuz, E8M0:
        NaN; FP6/FP4: max); ``"saturate"`` clamps to +-max.

    Returns
    -------
    JAX array of the dtype and shape of ``x``.

    Raises
    ------
    ValueError
        For a format with values float32 cannot hold (float64, a custom format
        beyond float32's range or precision), or that a bfloat16 or float16 input
        cannot hold (float16 inputs rounded to bfloat16); for an unknown format or
        mode; for ``stochastic`` without ``key``.
    TypeError
        For inputs of another dtype (float64 included: convert it explicitly).

    Notes
    -----
    Bit for bit :func:`fpexplore.round_to` on the same float32 inputs, in every
    mode but ``stochastic``: subnormals, overflow by the format's convention,
    ``+0`` for a negative value that rounds to zero in a format without ``-0``
    (fnuz, P3109), E8M0's missing zero and negatives (NaN). A NaN result keeps
    the input's sign, quiet bit and the top payload bits the format holds,
    widened back exactly; 'fn' formats give their one NaN of the sign, fnuz and
    P3109 their NaN (which has the sign bit set), E8M0 its NaN. FP6 and FP4 have
    no NaN: :func:`fpexplore.round_to` refuses one with ``ValueError``, which a
    jitted function cannot raise from data, so a NaN input comes back unchanged.

    All the work is integer arithmetic on the 32-bit codes
    (``lax.bitcast_convert_type``): XLA's CPU runtime flushes float32 subnormals
    to zero in float arithmetic, so no float operation touches a value.

    Stochastic rounding rounds away from zero with probability (distance to the
    neighbour toward zero) / (spacing), decided by 32 random bits per element
    (a keyed hash of each element's index and ``key``). The probability is
    exact for every float32 input down to ``2**-9`` of the format's smallest
    subnormal; below that, it is truncated to a multiple of ``2**-32``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> x = jnp.array([1 + 2**-8, 1 + 3 * 2**-8, 2.0**-133 * 1.4, -3e-45], jnp.float32)
    >>> round_to(x, "bfloat16").tolist()  # ties to even; subnormals: 2**-133, -0
    [1.0, 1.015625, 9.183549615799121e-41, -0.0]
    >>> round_to(x, "float8_e4m3fnuz").tolist()  # no -0 in the fnuz formats
    [1.0, 1.0, 0.0, 0.0]
    >>> key = jax.random.key(0)
    >>> y = jax.jit(lambda v: round_to(v, "float4_e2m1fn", "stochastic", key=key))(
    ...     jnp.full(10_000, 2.25))
    >>> sorted(set(y.tolist())), float(y.mean())  # 2 or 3, a quarter of them 3
    ([2.0, 3.0], 2.2470998764038086)
    >>> round_to(jnp.ones(2, jnp.float16), "bfloat16")
    Traceback (most recent call last):
    ...
    ValueError: bfloat16 has values that float16 inputs cannot hold (8 significant bits \
and exponents -133 to 127, where float16 holds 11 and -24 to 15): round float32 inputs \
instead (x.astype(jnp.float32))
    """
    array, spec = _prepare(x, fmt, rounding, key, overflow)
    return _round(array, key if rounding == "stochastic" else None, spec=spec, rounding=rounding)


@partial(jax.custom_jvp, nondiff_argnums=(2, 3))
def _straight_through(x: Any, key: Any, spec: Spec, rounding: str) -> Any:
    return _round(x, key, spec=spec, rounding=rounding)


@_straight_through.defjvp
def _straight_through_jvp(spec: Spec, rounding: str, primals: Any, tangents: Any) -> Any:
    x, key = primals
    return _straight_through(x, key, spec, rounding), tangents[0]


def round_ste(
    x: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    key: Any = None,
    overflow: str | None = None,
) -> Any:
    """:func:`round_to`'s values with the identity as gradient (the straight-through
    estimator of quantization-aware training): ``grad`` sees rounding as if it were
    not there. Parameters, results and errors are :func:`round_to`'s.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> f = lambda w: (round_ste(w, "float4_e2m1fn") * jnp.array([1.0, 2.0])).sum()
    >>> w = jnp.array([0.7, 2.6])
    >>> float(f(w)), jax.grad(f)(w).tolist()  # 0.5 + 2 * 3: rounded forward, not backward
    (6.5, [1.0, 2.0])
    """
    array, spec = _prepare(x, fmt, rounding, key, overflow)
    return _straight_through(array, key if rounding == "stochastic" else None, spec, rounding)
