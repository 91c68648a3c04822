"""Matrix products with a tensor core's accumulator model, inside ``jit``
(:func:`fpexplore.gemm`'s model, bit for bit).

Every step is integer arithmetic on float32 bit patterns
(:mod:`fpexplore.jax._bits`): each product of two float32 significands is formed
exactly in 31 bits and a sticky bit, shifted to the group's cut (truncated, or
rounded to nearest even), the aligned terms are summed in int32 (the
:class:`~fpexplore.Accumulator`'s bounds keep the sum below ``2**31``), and the
sum is normalized and rounded to the accumulator's fraction bits. One
``lax.scan`` step per group of products keeps the compiled program small
whatever K is. The promotion into float32 is a float32 addition (XLA's CPU
flushes a result below float32's normal range to zero there).

Examples
--------
>>> import jax, jax.numpy as jnp
>>> a = jnp.ones((2, 256))
>>> jax.jit(lambda x: gemm(x, x.T, accumulate="h100_fp8"))(a).tolist()
[[256.0, 256.0], [256.0, 256.0]]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..arith.gemm import INPUT_EMIN, MIN_EXPONENT, Accumulator, get_accumulator
from ._bits import (
    INF,
    MAGNITUDE,
    SIGN,
    compose,
    decompose,
    i32,
    multiply,
    normalize,
    shift_right,
    u32,
)
from ._rounding import round_count

__all__ = ["gemm"]

_LOW = -(2**20)  # the exponent of a zero term: below every other


def gemm(a: Any, b: Any, *, accumulate: str | Accumulator = "float32") -> Any:
    """``a @ b`` for two float32 matrices (JAX or numpy), summed by an accumulator
    model, as :func:`fpexplore.gemm` computes it (bit for bit for a model;
    ``"float32"`` is XLA's float32 matmul at its highest precision).

    Parameters
    ----------
    a, b : 2-d arrays (converted to float32)
    accumulate : str or Accumulator
        A name of :data:`fpexplore.ACCUMULATORS` or an :class:`fpexplore.Accumulator`.

    Returns
    -------
    JAX float32 array of shape ``(a.shape[0], b.shape[1])``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> gemm(jnp.ones((1, 3)), jnp.ones((3, 1)), accumulate="h100_fp8_promoted").tolist()
    [[3.0]]
    """
    acc = get_accumulator(accumulate)
    a = jnp.asarray(a).astype(jnp.float32)
    b = jnp.asarray(b).astype(jnp.float32)
    for name, x in (("a", a), ("b", b)):
        if x.ndim != 2:
            raise ValueError(f"{name} must be a matrix (2-d), got shape {x.shape}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a {a.shape} and b {b.shape} do not multiply: "
                         f"a's columns must equal b's rows")  # fmt: skip
    if acc.bits is None:
        return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)
    return _gemm(a, b, acc=acc)


def _exponent(sig: Any, e: Any) -> Any:
    """The model's exponent of a float32 input: floor(log2), at least -126; low for 0."""
    return jnp.where(sig == 0, _LOW, jnp.maximum(e, INPUT_EMIN))


def _align(sig: Any, shift: Any, alignment: str) -> Any:
    """``sig >> shift`` (shift >= 2), truncated or rounded to nearest even."""
    if alignment == "truncate":
        return shift_right(sig, shift)
    cut = u32(jnp.clip(shift, 1, 31))
    half = lax.shift_left(u32(1), cut - u32(1))
    odd = lax.shift_right_logical(sig, cut) & u32(1)
    rounded = lax.shift_right_logical(sig + half - u32(1) + odd, cut)
    return jnp.where(shift >= 32, u32(0), rounded)


@partial(jax.jit, static_argnames=("acc",))
def _gemm(a: Any, b: Any, *, acc: Accumulator) -> Any:
    m, k = a.shape
    n = b.shape[1]
    g = acc.group
    groups = -(-k // g)
    pad = groups * g - k
    a_bits = lax.bitcast_convert_type(jnp.pad(a, [(0, 0), (0, pad)]), jnp.uint32)
    b_bits = lax.bitcast_convert_type(jnp.pad(b, [(0, pad), (0, 0)]), jnp.uint32)
    a_sig, a_e = decompose(jnp.minimum(a_bits & u32(MAGNITUDE), u32(INF - 1)))
    b_sig, b_e = decompose(jnp.minimum(b_bits & u32(MAGNITUDE), u32(INF - 1)))
    a_neg, b_neg = a_bits >= u32(SIGN), b_bits >= u32(SIGN)
    xs = tuple(v.reshape(m, groups, g).transpose(1, 0, 2) for v in (a_sig, a_e, a_neg)) + tuple(
        v.reshape(groups, g, n) for v in (b_sig, b_e, b_neg)
    )
    every = (acc.promote_every or 0) // g
    bits = acc.bits
    assert bits is not None

    def step(carry: Any, x: Any) -> Any:
        c, total, i = carry
        asig, ae, aneg, bsig, be, bneg = x
        psig, pe = multiply(asig[:, :, None], ae[:, :, None], bsig[None], be[None])
        negative = aneg[:, :, None] ^ bneg[None]
        model = _exponent(asig, ae)[:, :, None] + _exponent(bsig, be)[None]
        model = jnp.where(psig == 0, _LOW, model)
        c_mag = c & u32(MAGNITUDE)
        csig, ce = decompose(c_mag)
        top = jnp.maximum(jnp.max(model, axis=1), _exponent(csig, ce))
        top = jnp.maximum(top, MIN_EXPONENT) - bits  # the cut's exponent
        terms = _align(psig, 30 + top[:, None, :] - pe, acc.alignment)
        signed = jnp.where(negative, -i32(terms), i32(terms))
        c_term = i32(_align(csig, 30 + top - ce, acc.alignment))
        total_terms = jnp.sum(signed, axis=1) + jnp.where(c >= u32(SIGN), -c_term, c_term)
        sig, e = normalize(u32(jnp.abs(total_terms)), top)
        count, qe = round_count(sig, e, total_terms < 0, mantissa_bits=acc.output_bits,
                                emin=-126, rounding=acc.final)  # fmt: skip
        new = compose(count, qe) | jnp.where(total_terms < 0, u32(SIGN), u32(0))
        new = jnp.where(total_terms == 0, u32(0), new)
        if every:
            promote = (i + 1) % every == 0
            as_float = lax.bitcast_convert_type(new, jnp.float32)
            total = jnp.where(promote, total + as_float, total)
            new = jnp.where(promote, u32(0), new)
        return (new, total, i + 1), None

    start = (jnp.zeros((m, n), jnp.uint32), jnp.zeros((m, n), jnp.float32), jnp.int32(0))
    (c, total, _), _ = lax.scan(step, start, xs)
    out = lax.bitcast_convert_type(c, jnp.float32)
    return total + out if every else out
