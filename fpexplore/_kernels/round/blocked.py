"""Branch-free rounding of one block of float64 values into a format.

:func:`round_into` rounds a block with integer and float64 arithmetic on the
bits (numpy's own casts where they round the same way), writing codes or
float64 values; the constants of one (format, rounding, overflow) are computed
once, by :func:`blocked_rounder`. Results match :func:`fpexplore.exact.round_real`
bit for bit."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import numpy as np

from ...formats import Format
from ..blocks import Scratch, blend, mask_where
from ..dtypes import (
    FRACTION,
    INF_BITS,
    MAGNITUDE,
    NAN_BITS,
    SIGN,
    code_dtype,
    float_bits,
    nan_code_bits,
    native_type,
    widen_into,
)


class _Rounder(NamedTuple):
    """Constants of one (format, rounding, overflow) for the blocked kernels."""

    fmt: Format
    rounding: str
    overflow: str | None
    native: Any  # numpy type whose cast rounds the same way, or None
    shift: int  # float64 fraction bits below the format's last place: 52 - mantissa_bits
    normal_bits: int  # float64 bits of smallest_normal
    max_bits: int  # float64 bits of max
    to_quanta: tuple[float, float]  # product 2**(mantissa_bits - emin): magnitude -> quanta
    code_offset: int  # code = (rounded bits >> shift) - code_offset, modulo 2**64
    big_code: int  # magnitude code of an overflow that rounds away from zero
    big_bits: int  # its float64 bits
    magic: bool  # nearest_even by adding and subtracting a power of two (see below)
    floor_bits: int  # float64 bits of a quarter quantum when to_quanta < 1, else 0


@lru_cache(maxsize=128)
def blocked_rounder(fmt: Format, rounding: str, overflow: str | None) -> _Rounder | None:
    """The constants of the blocked kernels, or None where they do not apply
    (stochastic rounding; formats with normals below float64's; tabulated formats)."""
    if rounding == "stochastic" or fmt.emin < -1022 or fmt.tabulated:
        return None
    native = native_type(fmt) if rounding == "nearest_even" and overflow is None else None
    m = fmt.mantissa_bits
    if overflow == "saturate" or not fmt.has_nan:
        big_code, big_bits = fmt.max_code, float_bits(fmt.max)
    elif fmt.inf_code is not None:
        big_code, big_bits = fmt.inf_code, INF_BITS
    else:
        assert fmt.nan_code is not None  # has_nan
        big_code, big_bits = fmt.nan_code, NAN_BITS
    scale = m - fmt.emin
    magic = rounding == "nearest_even" and m <= 51 and fmt.emax + 52 - m < 1022
    floor_bits = float_bits(fmt.smallest_subnormal / 4) if scale < 0 else 0
    return _Rounder(
        fmt, rounding, overflow, native, 52 - m, float_bits(fmt.smallest_normal),
        float_bits(fmt.max), (2.0 ** (scale // 2), 2.0 ** (scale - scale // 2)),
        ((1023 - fmt.bias) << m) % (1 << 64), big_code, big_bits, magic, floor_bits,
    )  # fmt: skip


def round_into(x: np.ndarray, r: _Rounder, out: np.ndarray, scratch: Scratch) -> None:
    """Round one block of float64 ``x``; write codes (integer ``out``) or float64 values."""
    as_codes = out.dtype.kind == "u"
    if r.native is not None:
        if r.native is np.float64:
            np.copyto(out, x.view(out.dtype) if as_codes else x)
            return
        narrow = out.view(r.native) if as_codes else scratch.work.view(r.native)[: x.size]
        np.copyto(narrow, x, casting="same_kind")
        if np.isnan(x.max()):  # NaN payloads as exact.round_real keeps them
            nan = np.isnan(x)
            codes = nan_codes(x.view(np.uint64)[nan], r.fmt).astype(code_dtype(r.fmt))
            narrow[nan] = codes.view(r.native)
        if not as_codes:
            widen_into(out, narrow)  # NaN bits kept (a signalling NaN stays one)
        return
    k = x.size
    bits = x.view(np.uint64)
    a, rounded = scratch.magnitude[:k], scratch.rounded[:k]
    np.bitwise_and(bits, MAGNITUDE, out=a)
    low, high = int(a.min()), int(a.max())
    if r.magic:
        _round_nearest_even(a, r, rounded, scratch)
    else:
        round_magnitudes(a, bits, r, rounded, scratch.work[:k])
    result = rounded
    if as_codes:  # from float64 fields to the format's fields, valid for normal results
        result = scratch.codes[:k]
        np.right_shift(rounded, r.shift, out=result)
        np.subtract(result, r.code_offset, out=result)
    if low < r.normal_bits and (as_codes or not r.magic):
        _round_small(a, bits, r, rounded, result, as_codes, scratch)
    if high > r.max_bits:  # overflow, infinities and NaNs
        _round_specials(a, bits, r, rounded, result, as_codes, scratch)
    sign = scratch.work[:k]
    if as_codes:
        np.right_shift(bits, 63, out=sign)
        np.left_shift(sign, r.fmt.bits - 1, out=sign)
    else:
        np.bitwise_and(bits, SIGN, out=sign)
    if out.dtype == np.uint64 or not as_codes:
        np.bitwise_or(result, sign, out=out.view(np.uint64))
    else:
        np.bitwise_or(result, sign, out=result)
        np.copyto(out, result, casting="unsafe")


def _round_nearest_even(a: np.ndarray, r: _Rounder, rounded: np.ndarray, scratch: Scratch) -> None:
    """Nearest-even in float64 arithmetic, subnormal range included, with no branch:
    add ``c = 2**(max(exponent, emin) - mantissa_bits + 52)``, whose float64 spacing
    is the format's spacing at ``a``, then subtract it. The sum is rounded once, to
    nearest even (the hardware's mode), and the subtraction is exact."""
    k = a.size
    c = scratch.work[:k]
    np.bitwise_and(a, INF_BITS, out=c)  # 2**exponent, as float64 bits
    np.maximum(c, r.normal_bits, out=c)
    np.minimum(c, (2046 - r.shift) << 52, out=c)  # far overflows keep a finite c
    np.add(c, r.shift << 52, out=c)
    total = rounded.view(np.float64)
    np.add(a.view(np.float64), c.view(np.float64), out=total)
    np.subtract(total, c.view(np.float64), out=total)


class _Place(Protocol):
    """What :func:`round_magnitudes` reads of a rounder (float64's or float32's)."""

    @property
    def rounding(self) -> str: ...

    @property
    def shift(self) -> int: ...


def round_magnitudes(
    a: np.ndarray,
    bits: np.ndarray,
    r: _Place,
    rounded: np.ndarray,
    work: np.ndarray,
    keep: int = MAGNITUDE,
) -> None:
    """Round magnitude bits ``a`` (float64's, or float32's for the float32 path) to the
    format's last place, exactly, with integer arithmetic: add an increment below that
    place, then clear the bits there and every bit outside ``keep``. Right wherever the
    format's exponent is the input's (its normal range); a carry out of the fraction
    moves the result to the next binade as it should. ``r`` holds ``shift`` (the input's
    fraction bits below the format's last place) and ``rounding``; ``bits`` the signed
    inputs, whose top bit decides the directed modes."""
    if r.shift == 0:
        np.copyto(rounded, a)
        return
    mode, below = r.rounding, (1 << r.shift) - 1
    if mode == "nearest_even":  # half - 1, plus 1 when the kept part is odd
        np.right_shift(a, r.shift, out=work)
        np.bitwise_and(work, 1, out=work)
        np.add(work, (1 << (r.shift - 1)) - 1, out=work)
        np.add(a, work, out=rounded)
    elif mode == "nearest_away":
        np.add(a, 1 << (r.shift - 1), out=rounded)
    elif mode == "toward_zero":
        np.copyto(rounded, a)
    else:  # up and down: round away from zero on one side only
        np.right_shift(bits, 8 * bits.dtype.itemsize - 1, out=work)
        if mode == "up":
            np.bitwise_xor(work, 1, out=work)
        np.multiply(work, below, out=work)
        np.add(a, work, out=rounded)
    np.bitwise_and(rounded, keep ^ below, out=rounded)


def round_count(quanta: np.ndarray, bits: np.ndarray, mode: str) -> None:
    """Round a float count of subnormal quanta to a whole number in place, by ``mode``;
    the directed modes read the sign from the top bit of the inputs ``bits`` (float64's
    or float32's)."""
    if mode == "nearest_even":
        np.rint(quanta, out=quanta)
        return
    whole = np.floor(quanta)
    if mode == "nearest_away":
        whole += quanta - whole >= 0.5
    elif mode in ("up", "down"):
        sign = 1 << (8 * bits.dtype.itemsize - 1)
        away = bits < sign if mode == "up" else bits >= sign
        whole += (quanta > whole) & away
    quanta[...] = whole


def _round_small(
    a: np.ndarray,
    bits: np.ndarray,
    r: _Rounder,
    rounded: np.ndarray,
    result: np.ndarray,
    as_codes: bool,
    scratch: Scratch,
) -> None:
    """Results below smallest_normal: count subnormal quanta in float64 (exact
    there), round that count to an integer by the rounding mode, and blend it in
    where the magnitude (or, after nearest-even, the result) is that small.

    In a format whose quantum is above 1 (smallest subnormal > 1) the count is a
    scaling down, which would underflow for tiny magnitudes (5e-324 would count
    as 0 quanta, and round ``up`` to 0): nonzero magnitudes below a quarter
    quantum are first raised to a quarter quantum, which every mode rounds as it
    rounds them (to 0, or away from zero to one quantum)."""
    k = a.size
    quanta = scratch.floats()[:k]
    source = rounded if r.magic else a  # nearest-even: already rounded, only convert
    scaled = source
    if r.floor_bits:
        scaled = quanta.view(np.uint64)
        np.maximum(source, r.floor_bits, out=scaled)
        np.copyto(scaled, 0, where=source == 0)
    np.multiply(scaled.view(np.float64), r.to_quanta[0], out=quanta)  # exact when small
    np.multiply(quanta, r.to_quanta[1], out=quanta)  # (two factors: 2**1074 overflows)
    if not r.magic:  # nearest-even's magic addition has already rounded the count
        round_count(quanta, bits, r.rounding)
    small = scratch.work[:k]
    if as_codes:  # the count of quanta is the code (2**m: the smallest normal)
        np.copyto(small, quanta, casting="unsafe")
    else:
        np.multiply(quanta, r.fmt.smallest_subnormal, out=quanta)
        np.copyto(small, quanta.view(np.uint64))
    mask = mask_where(source, r.normal_bits, scratch.mask[:k], below=True)
    blend(result, small, mask, scratch.floats("blend")[:k].view(np.uint64))


def _round_specials(
    a: np.ndarray,
    bits: np.ndarray,
    r: _Rounder,
    rounded: np.ndarray,
    result: np.ndarray,
    as_codes: bool,
    scratch: Scratch,
) -> None:
    """Overflow by the format's convention (toward zero: max), then inf and NaN inputs."""
    fmt, k = r.fmt, a.size
    max_, big = (fmt.max_code, r.big_code) if as_codes else (r.max_bits, r.big_bits)
    over = mask_where(rounded, r.max_bits, scratch.mask[:k], below=False)
    work = scratch.floats("blend")[:k].view(np.uint64)
    if r.rounding in ("up", "down"):  # toward zero on one side: max there, big on the other
        target = scratch.work[:k]
        np.right_shift(bits, 63, out=target)  # 1 where negative: toward zero when rounding up
        if r.rounding == "down":
            np.bitwise_xor(target, 1, out=target)
        np.negative(target, out=target)
        np.bitwise_and(target, max_ ^ big, out=target)
        np.bitwise_xor(target, big, out=target)
        blend(result, target, over, work)
    else:
        blend(result, max_ if r.rounding == "toward_zero" else big, over, work)
    if int(a.max()) < INF_BITS:
        return
    infinite = a == INF_BITS
    if infinite.any():
        if fmt.has_infinity:
            result[infinite] = fmt.inf_code if as_codes else INF_BITS
        else:  # like an overflow rounded to nearest
            result[infinite] = big
    nan = a > INF_BITS
    if nan.any():
        if not fmt.has_nan:
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        codes = nan_codes(a[nan], fmt)
        if as_codes:
            result[nan] = codes
        else:  # the payload, widened as codes_to_values widens it (the sign comes later)
            result[nan] = nan_code_bits(codes, fmt) & np.uint64(MAGNITUDE)


def nan_codes(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Codes of float64 NaNs, as exact.round_real makes them: IEEE formats keep the
    sign, the quiet bit and the top payload bits (a signalling NaN whose kept bits
    are all 0 gets payload 1, so it stays a NaN); 'fn' formats have one NaN."""
    bits = bits.astype(np.uint64)
    sign = (bits >> np.uint64(63)) << np.uint64(fmt.bits - 1)
    assert fmt.nan_code is not None  # only called for formats with NaNs
    if fmt.nan_encoding == "fn":
        return sign | np.uint64(fmt.nan_code)
    assert fmt.inf_code is not None  # IEEE: NaNs share the infinities' exponent field
    m = fmt.mantissa_bits
    payload = (bits & np.uint64(FRACTION)) >> np.uint64(52 - m)
    payload[payload == 0] = 1
    return sign | np.uint64(fmt.inf_code) | payload
