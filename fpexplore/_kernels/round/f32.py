"""Rounding float32 arrays without widening them: integer work on the 32-bit codes.

A float32 is exact, and every format whose exponent range lies inside float32's
(bfloat16, float16, TF32, the FP8/FP6/FP4 family) has all its values among the
float32s. So a float32 input is rounded once, on its own bits, straight to a
float32 result (or to the format's codes): half the memory traffic of the float64
path, and no widening pass. Blocks holding inf or NaN take the float64 kernel
(:mod:`fpexplore._kernels.round.blocked`), which keeps NaN payloads as
:func:`fpexplore.exact.round_real` does.

Examples
--------
>>> import numpy as np
>>> from fpexplore.formats import get_format
>>> r = rounder32(get_format("bfloat16"), "nearest_even", None)
>>> x = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 3.4e38], np.float32)
>>> out = np.empty(4, np.float32)
>>> round_block32(x, r, out, Scratch32(4))
>>> out.tolist()
[1.0, 1.0, 1.015625, inf]
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...formats import Format
from ..dtypes import code_dtype, narrowed, widen_into
from .blocked import Scratch, blocked_rounder, round_count, round_into, round_magnitudes

_MAG32 = 0x7FFF_FFFF
_SIGNLESS = ("nearest_even", "nearest_away", "toward_zero")  # modes blind to the sign
_INF32 = 0x7F80_0000


class _Rounder32(NamedTuple):
    """Constants of one (format, rounding, overflow) for float32 inputs."""

    fmt: Format
    rounding: str
    shift: int  # float32 fraction bits below the format's last place: 23 - mantissa_bits
    normal_bits: int  # float32 bits of smallest_normal
    max_bits: int  # float32 bits of max
    to_quanta: tuple[float, float]  # product 2**(mantissa_bits - emin): magnitude -> quanta
    code_offset: int  # code = (rounded bits >> shift) - code_offset (mod 2**32)
    big_code: int  # magnitude code of an overflow rounded away from zero
    big_bits: int  # its float32 bits
    overflow: str | None
    float32_exponents: bool  # float32's exponent range and inf, nearest-even, no saturation


def _bits32(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


@lru_cache(maxsize=128)
def rounder32(fmt: Format, rounding: str, overflow: str | None) -> _Rounder32 | None:
    """Constants for float32 inputs, or None where this path does not apply
    (stochastic rounding; formats reaching outside float32's exponent range)."""
    m, scale = fmt.mantissa_bits, fmt.mantissa_bits - fmt.emin
    if rounding == "stochastic" or fmt.tabulated or m > 23 or fmt.emin < -126 or fmt.emax > 127:
        return None
    if fmt.emin - m < -149:  # subnormals below float32's
        return None
    big_code: int | None
    if overflow == "saturate" or not fmt.has_nan:
        big_code, big_bits = fmt.max_code, _bits32(fmt.max)
    elif fmt.has_infinity:
        big_code, big_bits = fmt.inf_code, _INF32
    else:
        big_code, big_bits = fmt.nan_code, 0x7FC0_0000
    assert big_code is not None
    return _Rounder32(
        fmt, rounding, 23 - m, _bits32(fmt.smallest_normal), _bits32(fmt.max),
        (2.0 ** (scale // 2), 2.0 ** (scale - scale // 2)), ((127 - fmt.bias) << m) % (1 << 32),
        big_code, big_bits, overflow,
        fmt.emin == -126 and fmt.emax == 127 and fmt.has_infinity
        and rounding == "nearest_even" and overflow is None,
    )  # fmt: skip


class Scratch32:
    """Block-sized uint32 work arrays, and a float64 scratch for the fallback."""

    def __init__(self, n: int) -> None:
        from ..blocks import BLOCK

        self.n = min(n, BLOCK)
        self.a, self.rounded, self.work, self.mask, self.codes, self.blend = (
            np.empty(self.n, np.uint32) for _ in range(6)
        )
        self.quanta, self.out32 = np.empty(self.n, np.float32), np.empty(self.n, np.float32)
        self.wide: Scratch | None = None

    def fallback(self) -> Scratch:
        if self.wide is None:
            self.wide = Scratch(self.n)
        return self.wide


def _mask32(values: np.ndarray, limit: int, out: np.ndarray, *, below: bool) -> np.ndarray:
    """out = all ones where values < limit (``below``) or values > limit, else 0
    (values and limit below 2**31: the difference's sign bit, spread)."""
    if below:
        np.subtract(values, limit, out=out)
    else:
        np.subtract(limit, values, out=out)
    signed = out.view(np.int32)
    np.right_shift(signed, 31, out=signed)
    return out


def _blend32(dst: np.ndarray, src: np.ndarray | int, mask: np.ndarray, work: np.ndarray) -> None:
    np.bitwise_xor(dst, src, out=work)
    np.bitwise_and(work, mask, out=work)
    np.bitwise_xor(dst, work, out=dst)


def _magnitude_range(bits: np.ndarray, need_low: bool) -> tuple[int, int]:
    """The smallest (0 unless ``need_low``) and largest magnitude bits of a block,
    from reductions alone: as int32 a negative is ``magnitude - 2**31``, so the int32
    maximum is the largest positive magnitude and the uint32 maximum the largest
    negative one (sign bit set); the minima likewise."""
    signed = bits.view(np.int32)
    top_u, top_i = int(bits.max()), int(signed.max())
    high = max(top_i, top_u - 0x8000_0000 if top_u >= 0x8000_0000 else 0)
    if not need_low:
        return 0, high
    low_u, low_i = int(bits.min()), int(signed.min())
    candidates = [low_u] if low_u < 0x8000_0000 else []  # a positive value exists
    if low_i < 0:  # a negative value exists
        candidates.append(low_i + 0x8000_0000)
    return min(candidates), high


def round_block32(x: np.ndarray, r: _Rounder32, out: np.ndarray, s: Scratch32) -> None:
    """Round one block of float32 ``x``: codes into an unsigned ``out``, else the
    rounded values into a float32 ``out``."""
    k = x.size
    as_codes = out.dtype.kind == "u"
    bits = x.view(np.uint32)
    a, rounded, work, mask = s.a[:k], s.rounded[:k], s.work[:k], s.mask[:k]
    if r.float32_exponents and not as_codes and not np.isnan(np.max(x)):
        # bfloat16, TF32 under nearest-even: float32's exponents, subnormals, infinities
        # and overflow to inf; only a NaN (its payload) needs the general path
        round_magnitudes(bits, bits, r, out.view(np.uint32), work, keep=0xFFFF_FFFF)
        return
    # a format sharing float32's exponent range (bfloat16, TF32) has float32's subnormals
    need_low = r.fmt.emin > -126
    low, high = _magnitude_range(bits, need_low)
    if high >= _INF32:  # inf or NaN: the float64 kernel, payloads and all
        r64 = blocked_rounder(r.fmt, r.rounding, r.overflow)
        assert r64 is not None
        result64 = np.empty(k, code_dtype(r.fmt) if as_codes else np.float64)
        wide = np.empty(k)
        widen_into(wide, x)  # NaNs keep their bits (a signalling one stays signalling)
        round_into(wide, r64, result64, s.fallback())
        if as_codes:
            np.copyto(out, result64, casting="unsafe")
        else:  # NaN bits kept: not the hardware's (quieting) conversion
            np.copyto(out.view(np.uint32), narrowed(result64, np.float32).view(np.uint32))
        return
    small = need_low and low < r.normal_bits
    if high <= r.max_bits and not small and not as_codes and r.rounding in _SIGNLESS:
        # the sign rides along: keep every bit but the dropped ones
        round_magnitudes(bits, bits, r, out.view(np.uint32), work, keep=0xFFFF_FFFF)
        return
    np.bitwise_and(bits, _MAG32, out=a)
    round_magnitudes(a, bits, r, rounded, work, keep=0xFFFF_FFFF)
    result = rounded
    if as_codes:
        result = out if out.dtype == np.uint32 else s.codes[:k]
        np.right_shift(rounded, r.shift, out=result)
        np.subtract(result, r.code_offset, out=result)
    if small:
        _round_small32(a, bits, r, result, as_codes, s)
    if high > r.max_bits:
        _round_over32(bits, r, rounded, result, as_codes, s)
    sign = mask
    np.bitwise_and(bits, 0x8000_0000, out=sign)
    if as_codes:
        np.right_shift(sign, 32 - r.fmt.bits, out=sign)
        if result is out:
            np.bitwise_or(out, sign, out=out)
        else:
            np.bitwise_or(result, sign, out=result)
            np.copyto(out, result, casting="unsafe")
    else:
        np.bitwise_or(result, sign, out=out.view(np.uint32))


def _round_small32(
    a: np.ndarray, bits: np.ndarray, r: _Rounder32, result: np.ndarray, as_codes: bool,
    s: Scratch32,
) -> None:  # fmt: skip
    """Magnitudes below smallest_normal: count subnormal quanta (exact in float32),
    round the count by the mode, blend it in there."""
    k = a.size
    quanta = s.quanta[:k]
    np.multiply(a.view(np.float32), np.float32(r.to_quanta[0]), out=quanta)  # exact:
    np.multiply(quanta, np.float32(r.to_quanta[1]), out=quanta)  # (2**133 overflows float32)
    round_count(quanta, bits, r.rounding)
    small = s.work[:k]
    if as_codes:
        np.copyto(small, quanta, casting="unsafe")
    else:
        np.multiply(quanta, np.float32(r.fmt.smallest_subnormal), out=quanta)
        np.copyto(small, quanta.view(np.uint32))
    mask = _mask32(a, r.normal_bits, s.mask[:k], below=True)
    _blend32(result, small, mask, s.blend[:k])


def _round_over32(
    bits: np.ndarray, r: _Rounder32, rounded: np.ndarray, result: np.ndarray, as_codes: bool,
    s: Scratch32,
) -> None:  # fmt: skip
    """Overflow by the format's convention (toward zero: max)."""
    fmt = r.fmt
    max_, big = (fmt.max_code, r.big_code) if as_codes else (r.max_bits, r.big_bits)
    over = rounded > r.max_bits
    if r.rounding == "toward_zero":
        result[over] = max_
    elif r.rounding in ("up", "down"):
        negative = bits >= 0x8000_0000
        toward_zero = negative if r.rounding == "up" else ~negative
        result[over & toward_zero] = max_
        result[over & ~toward_zero] = big
    else:
        result[over] = big
