"""Matrix products with a tensor core's accumulator model, inside ``jit``
(:func:`fpexplore.gemm`'s model, bit for bit).

Every step is integer arithmetic on float32 bit patterns. Each input is taken
apart once into its 24-bit significand, split into two 12-bit halves, its
exponent and its sign. Each product of two significands (48 bits) is formed from
the four products of the halves, exact in uint32, and only its part above bit 16
is kept (the group's cut is at least 19 bits lower, so what is dropped never
reaches a kept bit of a truncated term; rounded terms keep a sticky bit of it).
Each term is that product shifted to the group's cut, truncated or rounded to
nearest even, and signed; the terms are summed in int32 (the
:class:`~fpexplore.Accumulator`'s bounds keep the sum below ``2**31``); the sum,
an exact integer count of the cut's quanta, is rounded to the accumulator's
fraction bits and written as float32 bits. One ``lax.scan`` step per group of
products keeps the compiled program small whatever K is.

How XLA's CPU compiler runs it matters as much as the operations: the products
are laid out (rows, columns, group) so that each group is summed along the
fastest axis; the group's largest exponent is found as a float32 maximum (exact:
the exponents are small integers), which XLA vectorizes where it does not
vectorize an integer one; and the group's sum is held apart from its rounding
(``lax.optimization_barrier``), which XLA would otherwise recompute for each of
the rounding's uses. The promotion into float32 is a float32 addition (XLA's CPU
flushes a result below float32's normal range to zero there).

Infinities and NaNs take no part in the integer sums (they count as float32's
largest finite magnitude there); a group with one among its inputs (a finite
group pays only that test, a ``lax.cond``) also counts, from the inputs' classes,
whether any of its products is NaN (a NaN input, ``inf * 0``), +inf or -inf, and
its sum is then IEEE's: NaN where a product or ``c`` is NaN or infinities of both
signs meet, else the infinity's. A finite sum beyond float32's range is an
infinity too, and stays one.

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
from ._bits import INF, MAGNITUDE, SIGN, decompose, i32, leading_bit, shift_right, u32

__all__ = ["gemm"]

_LOW = -(2**20)  # the exponent of a zero term: below every other
_NAN = 0x7FC0_0000  # float32 bits of a quiet NaN


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


def _parts(bits: Any) -> tuple[Any, Any, Any, Any]:
    """Float32 bits -> the 24-bit significand's high and low 12 bits (uint32), the
    exponent (int32; the value is ``significand * 2**(e - 23)``, and ``e`` is the
    model's floor(log2), at least -126; very low for 0) and the sign (int32 -1 or
    0). Infinities and NaNs count as float32's largest finite magnitude."""
    magnitude = jnp.minimum(bits & u32(MAGNITUDE), u32(INF - 1))
    field = lax.shift_right_logical(magnitude, u32(23))
    sig = (magnitude & u32(0x7F_FFFF)) | jnp.where(field > 0, u32(0x80_0000), u32(0))
    e = jnp.where(sig == 0, _LOW, jnp.maximum(i32(field), 1) - 127)
    sign = jnp.where(bits >= u32(SIGN), i32(-1), i32(0))
    return lax.shift_right_logical(sig, u32(12)), sig & u32(0xFFF), e, sign


def _round_shift(n: Any, d: Any, sticky: Any = False) -> Any:
    """``n / 2**d`` rounded to nearest, ties to even (uint32 ``n``; ``d`` from 1 to
    32); ``sticky``: where bits below ``n``'s lowest were dropped, not all zero."""
    q = lax.shift_right_logical(lax.shift_right_logical(n, u32(d - 1)), u32(1))
    rest = n & lax.shift_right_logical(u32(0xFFFF_FFFF), u32(32 - d))
    half = lax.shift_left(u32(1), u32(d - 1))
    odd = (q & u32(1)) == 1
    return q + u32((rest > half) | ((rest == half) & (odd | sticky)))


def _align(sig: Any, shift: Any, alignment: str, sticky: Any = False) -> Any:
    """``sig >> shift`` (shift >= 2), truncated or rounded to nearest even (``sticky``:
    where bits below ``sig``'s lowest were dropped). A shift of 32 or more gives 0
    when truncating, one beyond 32 when rounding (the value is below half a unit)."""
    if alignment == "truncate":
        return lax.shift_right_logical(sig, u32(shift))  # XLA: shifts >= 32 give 0
    rounded = _round_shift(sig, jnp.clip(shift, 1, 32), sticky)
    return jnp.where(shift > 32, u32(0), rounded)


def _terms(a: tuple, b: tuple, cut: Any, alignment: str) -> Any:
    """The group's products, each shifted to the cut (``2**cut`` the unit) and
    signed, summed: int32 of shape (rows, columns). ``a`` holds the row operand's
    parts of shape (rows, 1, group), ``b`` the column operand's (1, columns, group)."""
    (a_high, a_low, a_e, a_sign), (b_high, b_low, b_e, b_sign) = a, b
    middle = a_high * b_low + a_low * b_high  # < 2**25
    low = a_low * b_low  # < 2**24
    # the 48-bit product p = high 2**24 + middle 2**12 + low, less its low 16 bits:
    upper = lax.shift_left(a_high * b_high, u32(8)) + lax.shift_right_logical(
        middle + lax.shift_right_logical(low, u32(12)), u32(4)
    )
    # p * 2**(e_a + e_b - 46) over 2**cut is upper >> shift (shift >= 3)
    shift = cut[:, :, None] + 30 - (a_e + b_e)
    sticky = False  # the low 16 bits, dropped: only rounding asks whether they were 0
    if alignment != "truncate":
        sticky = ((lax.shift_left(middle & u32(0xF), u32(12)) + low) & u32(0xFFFF)) != 0
    terms = _align(upper, shift, alignment, sticky)
    sign = a_sign ^ b_sign
    return jnp.sum((i32(terms) ^ sign) - sign, axis=2)


def _round_sum(total: Any, cut: Any, acc: Accumulator) -> Any:
    """The float32 bits of ``total * 2**cut`` (an int32 count of the cut's quanta)
    rounded to ``acc.output_bits`` fraction bits in float32's exponent range, by
    ``acc.final``; +inf's bits (signed) beyond float32's range, +0 for 0."""
    m = acc.output_bits
    n = u32(jnp.abs(total))
    top = leading_bit(n)
    qe = jnp.maximum(cut + top, -126) - m  # the quantum's exponent
    d = qe - cut  # from -m to 30
    if acc.final == "toward_zero":
        kept = shift_right(n, jnp.maximum(d, 0))
    else:
        kept = jnp.where(d > 0, _round_shift(n, jnp.clip(d, 1, 32)), n)
    count = lax.shift_left(kept, u32(jnp.maximum(-d, 0)))  # at most 2**(m + 1)
    # the count's leading bit at m is float32's implicit bit (a carry into the
    # exponent field when it reaches 2**(m + 1)); below it, a subnormal
    field = jnp.clip(qe + m + 126, 0, 255)
    bits = lax.shift_left(u32(field), u32(23)) + lax.shift_left(count, u32(23 - m))
    bits = jnp.minimum(bits, u32(INF))  # a field of 255 is already inf or above
    negative = (total < 0) & (count != 0)
    return jnp.where(count == 0, u32(0), bits | jnp.where(negative, u32(SIGN), u32(0)))


def _non_finite(a_bits: Any, b_bits: Any) -> tuple[Any, Any, Any]:
    """Whether any of the group's products is NaN, +inf or -inf: three bool arrays
    of shape (rows, columns), from the float32 bits of the row operand (rows,
    group) and of the column operand (columns, group); all False, without the
    counting, where the group's inputs are all finite."""
    m, n = a_bits.shape[0], b_bits.shape[0]

    def classes(bits: Any) -> tuple[Any, ...]:
        """float32 0/1 of NaN, +inf, -inf, 0, finite > 0 and finite < 0."""
        magnitude = bits & u32(MAGNITUDE)
        negative = bits >= u32(SIGN)
        finite = (magnitude < u32(INF)) & (magnitude != 0)
        return tuple(
            v.astype(jnp.float32)
            for v in (
                magnitude > u32(INF),
                (magnitude == u32(INF)) & ~negative,
                (magnitude == u32(INF)) & negative,
                magnitude == 0,
                finite & ~negative,
                finite & negative,
            )
        )

    def count(x: list, y: list) -> Any:
        """Per (row, column): how many products pair an x[i] with a y[i] (exact)."""
        return lax.dot_general(
            jnp.concatenate(x, axis=1),
            jnp.concatenate(y, axis=1),
            (((1,), (1,)), ((), ())),
            precision=lax.Precision.HIGHEST,
        )

    def counted() -> tuple[Any, Any, Any]:
        a_nan, a_up_inf, a_down_inf, a_zero, a_up, a_down = classes(a_bits)
        b_nan, b_up_inf, b_down_inf, b_zero, b_up, b_down = classes(b_bits)
        nan = count([a_up_inf + a_down_inf, a_zero], [b_zero, b_up_inf + b_down_inf])
        nan = nan + jnp.sum(a_nan, axis=1)[:, None] + jnp.sum(b_nan, axis=1)[None, :]
        b_above, b_below = b_up + b_up_inf, b_down + b_down_inf  # b > 0, b < 0
        a_all = [a_up_inf, a_down_inf, a_up, a_down]
        up = count(a_all, [b_above, b_below, b_up_inf, b_down_inf])
        down = count(a_all, [b_below, b_above, b_down_inf, b_up_inf])
        return nan > 0, up > 0, down > 0

    def none() -> tuple[Any, Any, Any]:
        return (jnp.zeros((m, n), bool),) * 3

    special = jnp.any((a_bits & u32(MAGNITUDE)) >= u32(INF))
    special = special | jnp.any((b_bits & u32(MAGNITUDE)) >= u32(INF))
    return lax.cond(special, counted, none)


def _ieee(new: Any, c: Any, products: tuple[Any, Any, Any]) -> Any:
    """The group's sum ``new`` (float32 bits) where the running sum ``c`` and the
    group's products are finite; IEEE's NaN or infinity where they are not."""
    nan, up, down = products
    magnitude = c & u32(MAGNITUDE)
    up = up | (c == u32(INF))
    down = down | (c == u32(INF | SIGN))
    nan = nan | (magnitude > u32(INF)) | (up & down)
    new = jnp.where(up, u32(INF), jnp.where(down, u32(INF | SIGN), new))
    return jnp.where(nan, u32(_NAN), new)


@partial(jax.jit, static_argnames=("acc",))
def _gemm(a: Any, b: Any, *, acc: Accumulator) -> Any:
    m, k = a.shape
    n = b.shape[1]
    g = acc.group
    groups = -(-k // g)
    pad = groups * g - k
    a_bits = lax.bitcast_convert_type(jnp.pad(a, [(0, 0), (0, pad)]), jnp.uint32)
    b_bits = lax.bitcast_convert_type(jnp.pad(b, [(0, pad), (0, 0)]), jnp.uint32).T
    # (groups, rows or columns, group): the scan's steps along the first axis
    a_parts = tuple(v.reshape(m, groups, g).transpose(1, 0, 2) for v in _parts(a_bits))
    b_parts = tuple(v.reshape(n, groups, g).transpose(1, 0, 2) for v in _parts(b_bits))
    every = (acc.promote_every or 0) // g
    bits = acc.bits
    assert bits is not None

    def step(carry: Any, x: Any) -> Any:
        c, total, i = carry
        a = tuple(v[:, None, :] for v in x[:4])
        b = tuple(v[None, :, :] for v in x[4:8])
        exponents = a[2].astype(jnp.float32) + b[2].astype(jnp.float32)  # exact
        c_sig, c_e = decompose(jnp.minimum(c & u32(MAGNITUDE), u32(INF - 1)))
        c_model = jnp.where(c_sig == 0, _LOW, jnp.maximum(c_e, INPUT_EMIN))
        top = jnp.maximum(i32(jnp.max(exponents, axis=2)), c_model)
        cut = jnp.maximum(top, MIN_EXPONENT) - bits  # the exponent of the cut's unit
        c_term = i32(_align(c_sig, 30 + cut - c_e, acc.alignment))
        sums = _terms(a, b, cut, acc.alignment) + jnp.where(c >= u32(SIGN), -c_term, c_term)
        sums, cut = lax.optimization_barrier((sums, cut))
        new = _round_sum(sums, cut, acc)
        new = _ieee(new, c, _non_finite(*x[8:]))  # an overflow stays
        if every:
            promote = (i + 1) % every == 0
            as_float = lax.bitcast_convert_type(new, jnp.float32)
            total = jnp.where(promote, total + as_float, total)
            new = jnp.where(promote, u32(0), new)
        return (new, total, i + 1), None

    start = (jnp.zeros((m, n), jnp.uint32), jnp.zeros((m, n), jnp.float32), jnp.int32(0))
    raw = (a_bits.reshape(m, groups, g).transpose(1, 0, 2),
           b_bits.reshape(n, groups, g).transpose(1, 0, 2))  # fmt: skip
    (c, total, _), _ = lax.scan(step, start, a_parts + b_parts + raw)
    out = lax.bitcast_convert_type(c, jnp.float32)
    return total + out if every else out
