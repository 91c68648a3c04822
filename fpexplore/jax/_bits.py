"""Exact arithmetic on float32 bit patterns with 32-bit integers, inside jit.

XLA's CPU runtime runs with flush-to-zero and denormals-are-zero: a float32
subnormal read by a float operation counts as 0, and a subnormal result becomes 0.
So every value here travels as integers. A finite nonzero magnitude is held
*normalized*: a significand ``sig`` in ``[2**30, 2**31)`` (uint32) and an exponent
``e`` (int32), its value ``sig * 2**(e - 30)``. :func:`decompose` takes float32
magnitude bits apart into that form; :func:`multiply` and :func:`divide` give the
exact product or a quotient of two such numbers, any bits beyond 31 folded into a
*sticky* lowest bit (which every rounding here treats rightly, since it drops at
least 7 bits); :func:`compose` turns ``n * 2**qe`` (an integer count of quanta)
back into float32 bits. Nothing here rounds: :mod:`fpexplore.jax._core` does.
:func:`divide_by` gives :func:`divide`'s quotient from a divisor's
:func:`reciprocal`, with a few products instead of a step per bit, for divisors
shared by many numerators; :func:`computed_once` keeps such a shared table from
being recomputed for every element of the array that reads it.

Examples
--------
>>> sig, e = decompose(np.uint32(0x3FC00000))  # 1.5
>>> hex(int(sig)), int(e)
('0x60000000', 0)
>>> hex(int(compose(np.uint32(3), np.int32(-1)))), hex(int(compose(np.uint32(3), np.int32(-149))))
('0x3fc00000', '0x3')
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

INF = 0x7F80_0000  # float32 bits of +inf
SIGN = 0x8000_0000
MAGNITUDE = 0x7FFF_FFFF
TOP = 30  # the normalized significand's leading bit


def u32(value: Any) -> Any:
    """A uint32 array of ``value`` (a numpy scalar for a Python int: a constant)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return np.uint32(value)
    return jnp.asarray(value).astype(jnp.uint32)


def i32(value: Any) -> Any:
    """An int32 array of ``value`` (a numpy scalar for a Python int)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return np.int32(value)
    return jnp.asarray(value).astype(jnp.int32)


def computed_once(fn: Any, operand: Any) -> Any:
    """``fn(operand)``, computed once as an array of its own.

    XLA fuses cheap integer operations into the loop of their consumer: a small
    table read by every element of a large array (a gather) would be recomputed
    for each element. A conditional is a boundary fusion does not cross, so the
    table is built in the taken branch of a ``lax.cond``; the other branch, never
    taken (its predicate, ``operand | 1 != 0``, is always true but depends on
    ``operand``, so that it is not folded away), returns zeros of the same shapes
    and costs the compiler nothing. ``operand`` is a uint32 array; under ``vmap``
    the conditional becomes a select of the two results.
    """
    flat = jnp.ravel(operand)
    shapes = jax.eval_shape(fn, operand)

    def untaken(_: Any) -> Any:
        return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

    return lax.cond((flat[0] | u32(1)) != 0, fn, untaken, operand)


def shift_left(x: Any, amount: Any) -> Any:
    """``x << amount`` in uint32; amounts of 32 or more give 0, negative ones 0 too."""
    amount = i32(amount)
    safe = u32(jnp.clip(amount, 0, 31))
    return jnp.where((amount >= 0) & (amount < 32), lax.shift_left(x, safe), u32(0))


def shift_right(x: Any, amount: Any) -> Any:
    """``x >> amount`` (logical) in uint32; amounts of 32 or more give 0."""
    amount = i32(amount)
    safe = u32(jnp.clip(amount, 0, 31))
    return jnp.where(amount < 32, lax.shift_right_logical(x, safe), u32(0))


def leading_bit(n: Any) -> Any:
    """The position of the highest set bit of uint32 ``n`` (int32; -1 for 0)."""
    return 31 - i32(lax.clz(n))


def decompose(a: Any) -> tuple[Any, Any]:
    """Finite float32 magnitude bits -> ``(sig, e)``, normalized (sig 0 for zero)."""
    a = u32(a)
    field = lax.shift_right_logical(a, u32(23))
    normal = field > 0
    normal_sig = lax.shift_left(a & u32(0x7F_FFFF) | u32(0x80_0000), u32(TOP - 23))
    zeros = i32(lax.clz(a))  # a subnormal's leading bit is at 31 - zeros (zeros >= 9)
    subnormal_sig = lax.shift_left(a, u32(jnp.clip(zeros - 1, 0, 31)))
    sig = jnp.where(normal, normal_sig, subnormal_sig)
    e = jnp.where(normal, i32(field) - 127, -118 - zeros)  # 2**-149 at bit 31 - zeros
    return sig, e


def compose(n: Any, qe: Any) -> Any:
    """The float32 bits of ``n * 2**qe`` for a uint32 count ``n < 2**25`` that float32
    holds exactly (``qe >= -149``); the bits of +inf where it exceeds float32's range."""
    n, qe = u32(n), i32(qe)
    top = leading_bit(n)
    ve = top + qe  # the exponent of the value
    significand = jnp.where(top > 23, shift_right(n, top - 23), shift_left(n, 23 - top))
    normal = lax.shift_left(u32(jnp.clip(ve + 126, 0, 255)), u32(23)) + significand
    subnormal = shift_left(n, qe + 149)
    bits = jnp.where(ve >= -126, normal, subnormal)
    bits = jnp.where(ve > 127, u32(INF), bits)
    return jnp.where(n == 0, u32(0), bits)


def normalize(sig: Any, e: Any) -> tuple[Any, Any]:
    """``(sig, e)`` with a nonzero uint32 ``sig`` of any width (value ``sig * 2**e``)
    brought to the normalized form; zero stays zero."""
    top = leading_bit(sig)
    up = TOP - top
    shifted = jnp.where(up >= 0, shift_left(sig, up), _sticky_right(sig, -up))
    return shifted, jnp.where(sig == 0, i32(0), i32(e) + top)


def _sticky_right(x: Any, amount: Any) -> Any:
    """``x >> amount`` with the dropped bits ORed into the lowest bit."""
    kept = shift_right(x, amount)
    lost = x != shift_left(kept, amount)
    return kept | u32(lost)


def multiply(sig_a: Any, e_a: Any, sig_b: Any, e_b: Any) -> tuple[Any, Any]:
    """The product of two normalized numbers, normalized; the bits below the 31 kept
    ones fold into the sticky lowest bit. Each significand is cut to its top 24 bits
    first, which must hold all its set bits (float32 values and their quotients'
    significands of at most 24 bits do)."""
    a, b = lax.shift_right_logical(sig_a, u32(7)), lax.shift_right_logical(sig_b, u32(7))
    a_high, a_low = lax.shift_right_logical(a, u32(12)), a & u32(0xFFF)
    b_high, b_low = lax.shift_right_logical(b, u32(12)), b & u32(0xFFF)
    middle = a_high * b_low + a_low * b_high  # < 2**25
    low = lax.shift_left(middle & u32(0xFFF), u32(12)) + a_low * b_low  # < 2**25
    high = a_high * b_high + lax.shift_right_logical(middle, u32(12))
    high = high + lax.shift_right_logical(low, u32(24))  # the product is high * 2**24 + low24
    low24 = low & u32(0xFF_FFFF)
    wide = high >= u32(1 << 23)  # the product's leading bit: 47 (wide) or 46
    drop = jnp.where(wide, u32(17), u32(16))  # low24 bits below the 31 kept ones
    sig = lax.shift_left(high, u32(TOP - 23) + u32(~wide)) | lax.shift_right_logical(low24, drop)
    lost = (low24 & (lax.shift_left(u32(1), drop) - u32(1))) != 0
    e = i32(e_a) + i32(e_b) + i32(wide)
    zero = (sig_a == 0) | (sig_b == 0)
    return jnp.where(zero, u32(0), sig | u32(lost)), e


def divide(sig_n: Any, e_n: Any, sig_d: Any, e_d: Any, bits: int = 31) -> tuple[Any, Any]:
    """The quotient of two normalized numbers (``sig_d`` nonzero, at most 29 significant
    bits), normalized, from ``bits`` quotient bits by restoring division; the
    remainder folds into the sticky lowest bit. A rounding to m mantissa bits needs
    ``m + 3`` quotient bits (the kept ones, a guard bit and one more); stochastic
    rounding wants all 31."""
    numerator, denominator = (
        lax.shift_right_logical(sig_n, u32(2)),
        lax.shift_right_logical(sig_d, u32(2)),
    )  # both < 2**29: the remainder, doubled, stays below 2**30
    smaller = numerator < denominator
    remainder = jnp.where(smaller, lax.shift_left(numerator, u32(1)), numerator)
    e = i32(e_n) - i32(e_d) - i32(smaller)
    quotient, remainder = _long_division(remainder, denominator, bits)
    quotient = lax.shift_left(quotient, u32(31 - bits)) | u32(remainder != 0)
    return jnp.where(sig_n == 0, u32(0), quotient), e


def _long_division(remainder: Any, divisor: Any, steps: int) -> tuple[Any, Any]:
    """``steps`` bits of ``remainder / divisor`` (``divisor <= remainder < 2 * divisor``
    < 2**31) by restoring division: the quotient and the last remainder, doubled."""
    quotient = u32(jnp.zeros_like(remainder))
    for _ in range(steps):  # one quotient bit per step, unrolled: no loop over elements
        bit = remainder >= divisor
        remainder = lax.shift_left(remainder - jnp.where(bit, divisor, u32(0)), u32(1))
        quotient = lax.shift_left(quotient, u32(1)) | u32(bit)
    return quotient, remainder


def reciprocal(sig_d: Any) -> Any:
    """``floor(2**60 / D)`` for the divisor ``D = sig_d >> 2`` that :func:`divide`
    takes from a normalized significand (``2**28 <= D < 2**29``), by 32 steps of
    restoring division: what :func:`divide_by` needs to divide by ``sig_d``. (For
    ``D = 2**28`` it would be ``2**32``: :func:`divide_by` shifts instead.)"""
    divisor = lax.shift_right_logical(u32(sig_d), u32(2))
    return _long_division(u32(jnp.full_like(divisor, 1 << 29)), divisor, 32)[0]


def divide_by(
    sig_n: Any, e_n: Any, sig_d: Any, e_d: Any, inverse: Any, bits: int = 31
) -> tuple[Any, Any]:  # fmt: skip
    """:func:`divide`'s result, bit for bit, from the divisor's :func:`reciprocal`
    ``inverse``: a divisor shared by many numerators (a block's scale) costs one
    long division, and each numerator a few products instead of ``bits`` steps.

    The quotient estimate ``floor(R * inverse / 2**30)`` of ``Q = floor(R * 2**30 /
    D)`` (``R``: the numerator, doubled when smaller than ``D``, below ``2**30``) is
    ``Q`` or ``Q - 1``, since ``inverse`` is short of ``2**60 / D`` by less than one
    and ``R * 2**30 < 2**60``; the remainder, below ``2 * D``, is exact in 32 bits
    and settles which. The 62-bit product is formed from 16-bit halves."""
    numerator = lax.shift_right_logical(sig_n, u32(2))
    divisor = lax.shift_right_logical(sig_d, u32(2))
    smaller = numerator < divisor
    r = jnp.where(smaller, lax.shift_left(numerator, u32(1)), numerator)
    e = i32(e_n) - i32(e_d) - i32(smaller)
    half = u32(0xFFFF)
    r_high, r_low = lax.shift_right_logical(r, u32(16)), r & half
    v_high, v_low = lax.shift_right_logical(inverse, u32(16)), inverse & half
    low, middle_a, middle_b = r_low * v_low, r_low * v_high, r_high * v_low
    sum_a = low + lax.shift_left(middle_a, u32(16))
    sum_b = sum_a + lax.shift_left(middle_b, u32(16))  # the product's low word
    high = r_high * v_high + lax.shift_right_logical(middle_a, u32(16))
    high = high + lax.shift_right_logical(middle_b, u32(16)) + u32(sum_a < low) + u32(sum_b < sum_a)
    quotient = lax.shift_left(high, u32(2)) | lax.shift_right_logical(sum_b, u32(30))
    remainder = lax.shift_left(r, u32(30)) - quotient * divisor  # mod 2**32: exact
    short = remainder >= divisor
    quotient = quotient + u32(short)
    remainder = remainder - jnp.where(short, divisor, u32(0))
    power = divisor == u32(1 << 28)  # D = 2**28: the quotient is R * 4
    quotient = jnp.where(power, lax.shift_left(r, u32(2)), quotient)
    inexact = jnp.where(power, False, remainder != 0)
    if bits < 31:
        cut = u32((1 << (31 - bits)) - 1)
        inexact = inexact | ((quotient & cut) != 0)
        quotient = quotient & ~cut
    return jnp.where(sig_n == 0, u32(0), quotient | u32(inexact)), e
