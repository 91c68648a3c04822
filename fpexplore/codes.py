"""Vectorized bit-level kernels on integer code arrays.

Codes are unsigned integers laid out sign | exponent | mantissa. Every kernel
here works on whole numpy arrays, in cache-sized blocks written straight into
preallocated outputs, so that temporaries stay small and the work runs close to
memory speed (arrays of millions of values are shared among a few threads, see
``THREADS``). Rounding is integer and float64 arithmetic on the bits, with no
per-element branches, and is tested bit for bit against the exact reference in
:mod:`fpexplore.exact`.

Examples
--------
>>> import numpy as np
>>> from fpexplore.codes import round_codes, codes_to_values
>>> codes = round_codes(np.array([1.0, 0.1, 70000.0]), "float16")
>>> [hex(c) for c in codes]
['0x3c00', '0x2e66', '0x7c00']
>>> codes_to_values(codes, "float16")
array([1.        , 0.09997559,        inf])
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from .exact import check_overflow, check_rounding
from .formats import Format, get_format

__all__ = [
    "BLOCK",
    "KIND_CODES",
    "Kind",
    "classify",
    "code_dtype",
    "codes_to_values",
    "fields",
    "next_down_codes",
    "next_up_codes",
    "round_codes",
    "round_values",
    "rounding_errors",
    "split_codes",
]

BLOCK = 1 << 16
"""Elements per block: large enough to amortize numpy call overhead, small
enough that a block's temporaries stay in cache."""

THREADS: int | None = None
"""Threads for arrays of at least ``PARALLEL_MIN`` elements: None for the CPU
count (at most 4), 1 to stay on the calling thread. numpy releases the GIL in
its loops, so independent chunks of blocks run side by side; results do not
depend on the number of threads."""

PARALLEL_MIN = 1 << 21

_CHUNK_BLOCKS = 4  # blocks per chunk that a thread takes at a time

_pool: tuple[int, ThreadPoolExecutor] | None = None  # (pid, pool): a fork gets a new one


class Kind(str, Enum):
    """The class of a floating-point datum."""

    ZERO = "zero"
    SUBNORMAL = "subnormal"
    NORMAL = "normal"
    INF = "inf"
    NAN = "nan"

    def __str__(self) -> str:
        return self.value


KIND_CODES = {kind: i for i, kind in enumerate(Kind)}
"""Kind -> the small integer stored in vectorized ``kind`` arrays."""

_NATIVE = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def code_dtype(fmt: Format) -> np.dtype:
    """The smallest unsigned integer dtype that holds a code of ``fmt``."""
    for width, dtype in _UINT.items():
        if fmt.bits <= width:
            return np.dtype(dtype)
    raise AssertionError("formats are at most 64 bits wide")  # pragma: no cover


def _field_dtype(width: int) -> np.dtype:
    for bits, dtype in _UINT.items():
        if width <= bits:
            return np.dtype(dtype)
    raise AssertionError("fields are at most 64 bits wide")  # pragma: no cover


def check_codes(codes: Any, fmt: Format) -> np.ndarray:
    """Validate an array of codes (non-negative integers below ``2**bits``)."""
    arr = np.asarray(codes)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"codes must be integers, got an array of dtype {arr.dtype}")
    every_pattern_valid = arr.dtype.kind == "u" and arr.dtype.itemsize * 8 <= fmt.bits
    if arr.size and not every_pattern_valid:
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high >= fmt.n_codes:
            bad = low if low < 0 else high
            raise ValueError(
                f"code {bad} is out of range for {fmt.name}; expected 0 <= code < 2**{fmt.bits}"
            )
    return arr.astype(code_dtype(fmt), copy=False)


def _blocks(n: int, block: int | None = None, start: int = 0):
    """Slices covering ``range(start, n)`` in blocks (of BLOCK elements by default)."""
    block = block or BLOCK
    for first in range(start, n, block):
        yield slice(first, min(first + block, n))


def _threads(n: int) -> int:
    if n < PARALLEL_MIN:
        return 1
    return THREADS or min(os.cpu_count() or 1, 4)


def _run_blocks(
    n: int, block: int, work: Callable[[slice, Any], None], scratch: Callable[[int], Any]
) -> None:
    """``work(block_slice, buffers)`` over ``range(n)`` in blocks, ``buffers =
    scratch(size)`` made once per thread. A large array is cut into chunks of a
    few blocks that the calling thread and ``THREADS - 1`` pool threads take in
    turn, so a thread that the machine starves costs at most one chunk.
    Floating-point warnings are off inside (the kernels handle overflow, inf
    and NaN themselves); an exception in any thread is raised here."""
    global _pool
    threads = _threads(n)
    if threads == 1:
        with np.errstate(all="ignore"):
            buffers = scratch(min(n, block))
            for part in _blocks(n, block):
                work(part, buffers)
        return
    if _pool is None or _pool[0] != os.getpid() or _pool[1]._max_workers < threads - 1:
        _pool = (os.getpid(), ThreadPoolExecutor(threads - 1, thread_name_prefix="fpexplore"))
    chunk = _CHUNK_BLOCKS * block
    starts = iter(range(0, n, chunk))
    lock = threading.Lock()
    failed: list[BaseException] = []

    def run() -> None:
        with np.errstate(all="ignore"):  # errstate is per thread
            buffers = scratch(block)
            while not failed:
                with lock:
                    first = next(starts, None)
                if first is None:
                    return
                try:
                    for part in _blocks(min(first + chunk, n), block, first):
                        work(part, buffers)
                except BaseException as error:
                    failed.append(error)
                    raise

    futures = [_pool[1].submit(run) for _ in range(threads - 1)]
    try:
        run()
    finally:
        for future in futures:
            future.exception()  # wait for every thread before the outputs are used
    for future in futures:
        future.result()


@lru_cache(maxsize=64)
def _kind_steps(fmt: Format) -> tuple[tuple[int, int], ...]:
    """(magnitude code, step) pairs: the :class:`Kind` code of a code is the sum of
    the steps at or below its magnitude (sign bit cleared), because magnitudes
    are ordered zero < subnormals < normals < inf < NaNs, as the kind codes are."""
    steps = {1: 1}  # the first subnormal
    steps[1 << fmt.mantissa_bits] = steps.get(1 << fmt.mantissa_bits, 0) + 1  # first normal
    if fmt.nan_encoding == "ieee":
        steps[fmt.inf_code] = 1
        steps[fmt.inf_code + 1] = 1
    elif fmt.nan_encoding == "fn":  # the NaN pattern follows +max: skip INF
        steps[fmt.nan_code] = steps.get(fmt.nan_code, 0) + 2
    return tuple(sorted(steps.items()))


def _classify_into(magnitude: np.ndarray, kind: np.ndarray, flag: np.ndarray, fmt: Format) -> None:
    """kind[:] = Kind code of each magnitude; only the steps that split the block
    cost a pass (a block of normal numbers is one fill)."""
    low, high = int(magnitude.min()), int(magnitude.max())
    steps = _kind_steps(fmt)
    kind.fill(sum(step for at, step in steps if at <= low))
    flag8 = flag.view(np.uint8)
    for at, step in steps:
        if low < at <= high:
            np.greater_equal(magnitude, at, out=flag)
            if step != 1:
                np.multiply(flag8, step, out=flag8)
            np.add(kind, flag8, out=kind)


def split_codes(
    codes: Any,
    fmt: Any,
    *,
    kinds: bool = True,
    parts: bool = True,
    out: tuple[np.ndarray | None, ...] | None = None,
) -> tuple[np.ndarray | None, ...]:
    """Sign, exponent, mantissa and :class:`Kind` code of each code, in one pass.

    The work is done in cache-sized blocks written straight into the outputs,
    so memory traffic is one read of the codes and one write of each result.
    ``parts=False`` skips sign/exponent/mantissa, ``kinds=False`` the kinds
    (those entries are None). ``out``: four preallocated arrays of the codes'
    shape and the result dtypes (None where not wanted), written in place.

    Examples
    --------
    >>> split_codes(np.array([0x3C00, 0xFC00], dtype=np.uint16), "float16")
    (array([0, 1], dtype=uint8), array([15, 31], dtype=uint8), array([0, 0], dtype=uint16), \
array([2, 3], dtype=uint8))
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    m, e = fmt.mantissa_bits, fmt.exponent_bits
    dtypes = (np.dtype(np.uint8), _field_dtype(e), _field_dtype(max(m, 1)), np.dtype(np.uint8))
    if out is None:
        wanted = (parts, parts, parts, kinds)
        out = tuple(
            np.empty(c.shape, d) if w else None for d, w in zip(dtypes, wanted, strict=True)
        )
    elif len(out) != 4 or any(
        a is not None and (a.shape != c.shape or a.dtype != d or not a.flags.c_contiguous)
        for a, d in zip(out, dtypes, strict=True)
    ):
        raise ValueError(
            "out must hold four contiguous arrays (or None) of the codes' shape with dtypes "
            f"{', '.join(d.name for d in dtypes)}"
        )
    sign, exponent, mantissa, kind = (None if a is None else a.reshape(-1) for a in out)
    flat = c.reshape(-1)
    exponent_mask, mantissa_mask = (1 << e) - 1, (1 << m) - 1
    cast_drops_sign = dtypes[1].itemsize * 8 == e  # narrowing keeps the low e bits

    def work(block: slice, buffers: tuple[np.ndarray, np.ndarray]) -> None:
        cb = flat[block]
        t, flag = buffers[0][: cb.size], buffers[1][: cb.size]
        if sign is not None:
            np.greater_equal(cb, fmt.sign_mask, out=sign[block].view(bool))
        if mantissa is not None:
            if dtypes[2] == c.dtype:
                np.bitwise_and(cb, mantissa_mask, out=mantissa[block])
            else:
                np.bitwise_and(cb, mantissa_mask, out=t)
                np.copyto(mantissa[block], t, casting="unsafe")
        if exponent is not None:
            if dtypes[1] == c.dtype:
                np.right_shift(cb, m, out=exponent[block])
                np.bitwise_and(exponent[block], exponent_mask, out=exponent[block])
            else:
                np.right_shift(cb, m, out=t)
                if not cast_drops_sign:
                    np.bitwise_and(t, exponent_mask, out=t)
                np.copyto(exponent[block], t, casting="unsafe")
        if kind is not None:
            np.bitwise_and(cb, fmt.sign_mask - 1, out=t)
            _classify_into(t, kind[block], flag, fmt)

    _run_blocks(
        flat.size, BLOCK, work, lambda size: (np.empty(size, c.dtype), np.empty(size, bool))
    )
    return out


def fields(codes: Any, fmt: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split codes into (sign, biased exponent, mantissa) arrays, each the
    smallest unsigned dtype that holds it.

    Examples
    --------
    >>> fields(np.array([0x40490FDB], dtype=np.uint32), "float32")
    (array([0], dtype=uint8), array([128], dtype=uint8), array([4788187], dtype=uint32))
    """
    sign, exponent, mantissa, _ = split_codes(codes, fmt, kinds=False)
    return sign, exponent, mantissa


def classify(codes: Any, fmt: Any) -> np.ndarray:
    """The :class:`Kind` of each code, as the small integers of ``KIND_CODES``.

    Examples
    --------
    >>> classify(np.array([0x0000, 0x0001, 0x3C00, 0x7C00, 0x7E00], dtype=np.uint16), "half")
    array([0, 1, 2, 3, 4], dtype=uint8)
    """
    return split_codes(codes, fmt, parts=False)[3]


_MAGNITUDE = 0x7FFF_FFFF_FFFF_FFFF  # float64 bits without the sign
_SIGN = 1 << 63
_INF_BITS = 0x7FF0_0000_0000_0000
_NAN_BITS = 0x7FF8_0000_0000_0000  # the canonical quiet NaN
_FRACTION = (1 << 52) - 1


def _native(fmt: Format) -> Any:
    """The numpy type of a catalogue float16/32/64, else None."""
    native = _NATIVE.get(fmt.name)
    return native if native is not None and fmt == get_format(fmt.name) else None


def _float_bits(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


def codes_to_values(codes: Any, fmt: Any) -> np.ndarray:
    """The float64 value of each code (exact: every value fits in float64).

    Examples
    --------
    >>> codes_to_values(np.array([0x38, 0xB8, 0x7F, 0x01], dtype=np.uint8), "e4m3")
    array([ 1.        , -1.        ,         nan,  0.00195312])
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt)
    out = np.empty(c.shape, np.float64)
    flat, dst = c.reshape(-1), out.reshape(-1)
    native = _native(fmt)
    if native is not None:  # numpy widens exactly (a signalling NaN stays one)
        _run_blocks(
            flat.size, BLOCK, lambda block, _: np.copyto(dst[block], flat[block].view(native)), int
        )
        return out
    if fmt.emin < -1022:  # normal values below float64's normal range: rare custom formats
        return _codes_to_values_float(c, fmt)
    m, first_normal = fmt.mantissa_bits, 1 << fmt.mantissa_bits
    offset = ((1023 - fmt.bias) << 52) % (1 << 64)  # exponent rebias, modulo 2**64
    specials = {"ieee": fmt.inf_code, "fn": fmt.nan_code, "none": None}[fmt.nan_encoding]

    def work(block: slice, scratch: _Scratch) -> None:
        k = block.stop - block.start
        cb, mag, b = flat[block], scratch.magnitude[:k], scratch.rounded[:k]
        np.copyto(mag, cb)
        np.bitwise_and(mag, fmt.sign_mask - 1, out=mag)
        np.left_shift(mag, 52 - m, out=b)
        np.add(b, offset, out=b)  # normal codes: field and mantissa slide into place
        low, high = int(mag.min()), int(mag.max())
        if low < first_normal:  # zero and subnormals: a count of the smallest subnormal
            small = scratch.floats()[:k]
            np.multiply(mag, fmt.smallest_subnormal, out=small)
            mask = _mask_where(mag, first_normal, scratch.mask[:k], below=True)
            _blend(b, small.view(np.uint64), mask, scratch.work[:k])
        if specials is not None and high >= specials:
            b[mag == specials] = _NAN_BITS if fmt.nan_encoding == "fn" else _INF_BITS
            b[mag > specials] = _NAN_BITS
        np.copyto(mag, cb)
        np.right_shift(mag, fmt.bits - 1, out=mag)
        np.left_shift(mag, 63, out=mag)
        np.bitwise_or(b, mag, out=dst[block].view(np.uint64))

    _run_blocks(flat.size, BLOCK, work, _Scratch)
    return out


def _codes_to_values_float(c: np.ndarray, fmt: Format) -> np.ndarray:
    """codes_to_values with ldexp, for formats whose normals are float64 subnormals."""
    sign, exponent, mantissa = fields(c, fmt)
    m = fmt.mantissa_bits
    significand = mantissa.astype(np.float64) + np.where(exponent > 0, 2.0**m, 0.0)
    scale = np.maximum(exponent.astype(np.int64), 1) - fmt.bias - m
    values = np.ldexp(significand, scale.astype(np.int32))
    kind = classify(c, fmt)
    values[kind == KIND_CODES[Kind.INF]] = np.inf
    values[kind == KIND_CODES[Kind.NAN]] = np.nan
    return np.where(sign.astype(bool), -values, values)


def _real_array(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "fiub" or arr.dtype.kind == "b":
        raise TypeError(
            f"expected an array of real numbers, got dtype {arr.dtype}; "
            "use decode() for strings and exact inputs"
        )
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        raise TypeError("long double arrays would be rounded twice; pass them to decode()")
    return arr


def _as_float64(values: Any) -> np.ndarray:
    return _real_array(values).astype(np.float64, copy=False)


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


@lru_cache(maxsize=128)
def _rounder(fmt: Format, rounding: str, overflow: str | None) -> _Rounder | None:
    """The constants of the blocked kernels, or None where they do not apply
    (stochastic rounding; formats with normals below float64's)."""
    if rounding == "stochastic" or fmt.emin < -1022:
        return None
    native = _native(fmt) if rounding == "nearest_even" and overflow is None else None
    m = fmt.mantissa_bits
    if overflow == "saturate" or not fmt.has_nan:
        big_code, big_bits = fmt.max_code, _float_bits(fmt.max)
    elif fmt.has_infinity:
        big_code, big_bits = fmt.inf_code, _INF_BITS
    else:
        big_code, big_bits = fmt.nan_code, _NAN_BITS
    scale = m - fmt.emin
    magic = rounding == "nearest_even" and m <= 51 and fmt.emax + 52 - m < 1022
    return _Rounder(
        fmt, rounding, overflow, native, 52 - m, _float_bits(fmt.smallest_normal),
        _float_bits(fmt.max), (2.0 ** (scale // 2), 2.0 ** (scale - scale // 2)),
        ((1023 - fmt.bias) << m) % (1 << 64), big_code, big_bits, magic,
    )  # fmt: skip


class _Scratch:
    """Block-sized work arrays, allocated once per call."""

    def __init__(self, n: int) -> None:
        self.n = min(n, BLOCK)
        self.magnitude, self.rounded, self.codes, self.work, self.mask = (
            np.empty(self.n, np.uint64) for _ in range(5)
        )
        self._floats: dict[str, np.ndarray] = {}

    def floats(self, name: str = "work") -> np.ndarray:
        """A float64 work array, made on first use."""
        if name not in self._floats:
            self._floats[name] = np.empty(self.n)
        return self._floats[name]


def _mask_where(values: np.ndarray, limit: int, out: np.ndarray, *, below: bool) -> np.ndarray:
    """out = all ones where values < limit (``below``) or values > limit, else 0.
    uint64 arrays below 2**63: the difference wraps past 2**63 exactly there, and
    an arithmetic shift spreads that bit. No branches, unlike a boolean mask."""
    if below:
        np.subtract(values, limit, out=out)
    else:
        np.subtract(limit, values, out=out)
    signed = out.view(np.int64)
    np.right_shift(signed, 63, out=signed)
    return out


def _blend(dst: np.ndarray, src: Any, mask: np.ndarray, work: np.ndarray) -> None:
    """dst = src where mask is all ones (dst ^ ((dst ^ src) & mask)); src an array or int."""
    np.bitwise_xor(dst, src, out=work)
    np.bitwise_and(work, mask, out=work)
    np.bitwise_xor(dst, work, out=dst)


def _round_into(x: np.ndarray, r: _Rounder, out: np.ndarray, scratch: _Scratch) -> None:
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
            codes = _nan_codes(x.view(np.uint64)[nan], r.fmt).astype(code_dtype(r.fmt))
            narrow[nan] = codes.view(r.native)
        if not as_codes:
            np.copyto(out, narrow)
        return
    k = x.size
    bits = x.view(np.uint64)
    a, rounded = scratch.magnitude[:k], scratch.rounded[:k]
    np.bitwise_and(bits, _MAGNITUDE, out=a)
    low, high = int(a.min()), int(a.max())
    if r.magic:
        _round_nearest_even(a, r, rounded, scratch)
    else:
        _round_magnitudes(a, bits, r, rounded, scratch.work[:k])
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
        np.bitwise_and(bits, _SIGN, out=sign)
    if out.dtype == np.uint64 or not as_codes:
        np.bitwise_or(result, sign, out=out.view(np.uint64))
    else:
        np.bitwise_or(result, sign, out=result)
        np.copyto(out, result, casting="unsafe")


def _round_nearest_even(a: np.ndarray, r: _Rounder, rounded: np.ndarray, scratch: _Scratch) -> None:
    """Nearest-even in float64 arithmetic, subnormal range included, with no branch:
    add ``c = 2**(max(exponent, emin) - mantissa_bits + 52)``, whose float64 spacing
    is the format's spacing at ``a``, then subtract it. The sum is rounded once, to
    nearest even (the hardware's mode), and the subtraction is exact."""
    k = a.size
    c = scratch.work[:k]
    np.bitwise_and(a, _INF_BITS, out=c)  # 2**exponent, as float64 bits
    np.maximum(c, r.normal_bits, out=c)
    np.minimum(c, (2046 - r.shift) << 52, out=c)  # far overflows keep a finite c
    np.add(c, r.shift << 52, out=c)
    total = rounded.view(np.float64)
    np.add(a.view(np.float64), c.view(np.float64), out=total)
    np.subtract(total, c.view(np.float64), out=total)


def _round_magnitudes(
    a: np.ndarray, bits: np.ndarray, r: _Rounder, rounded: np.ndarray, work: np.ndarray
) -> None:
    """Round float64 magnitude bits ``a`` to the format's last place, exactly, with
    integer arithmetic: add an increment below that place, then clear the bits there.
    Right wherever the format's exponent is float64's (its normal range); a carry
    out of the fraction moves the result to the next binade as it should."""
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
        np.right_shift(bits, 63, out=work)
        if mode == "up":
            np.bitwise_xor(work, 1, out=work)
        np.multiply(work, below, out=work)
        np.add(a, work, out=rounded)
    np.bitwise_and(rounded, _MAGNITUDE ^ below, out=rounded)


def _round_small(
    a: np.ndarray,
    bits: np.ndarray,
    r: _Rounder,
    rounded: np.ndarray,
    result: np.ndarray,
    as_codes: bool,
    scratch: _Scratch,
) -> None:
    """Results below smallest_normal: count subnormal quanta in float64 (exact
    there), round that count to an integer by the rounding mode, and blend it in
    where the magnitude (or, after nearest-even, the result) is that small."""
    k = a.size
    quanta = scratch.floats()[:k]
    source = rounded if r.magic else a  # nearest-even: already rounded, only convert
    np.multiply(source.view(np.float64), r.to_quanta[0], out=quanta)  # exact when small
    np.multiply(quanta, r.to_quanta[1], out=quanta)  # (two factors: 2**1074 overflows)
    mode = r.rounding
    if r.magic:
        pass
    elif mode == "nearest_even":
        np.rint(quanta, out=quanta)
    else:
        whole = np.floor(quanta)
        if mode == "nearest_away":
            whole += quanta - whole >= 0.5
        elif mode in ("up", "down"):
            away = bits < _SIGN if mode == "up" else bits >= _SIGN
            whole += (quanta > whole) & away
        quanta[...] = whole
    small = scratch.work[:k]
    if as_codes:  # the count of quanta is the code (2**m: the smallest normal)
        np.copyto(small, quanta, casting="unsafe")
    else:
        np.multiply(quanta, r.fmt.smallest_subnormal, out=quanta)
        np.copyto(small, quanta.view(np.uint64))
    mask = _mask_where(source, r.normal_bits, scratch.mask[:k], below=True)
    _blend(result, small, mask, scratch.floats("blend")[:k].view(np.uint64))


def _round_specials(
    a: np.ndarray,
    bits: np.ndarray,
    r: _Rounder,
    rounded: np.ndarray,
    result: np.ndarray,
    as_codes: bool,
    scratch: _Scratch,
) -> None:
    """Overflow by the format's convention (toward zero: max), then inf and NaN inputs."""
    fmt, k = r.fmt, a.size
    max_, big = (fmt.max_code, r.big_code) if as_codes else (r.max_bits, r.big_bits)
    over = _mask_where(rounded, r.max_bits, scratch.mask[:k], below=False)
    work = scratch.floats("blend")[:k].view(np.uint64)
    if r.rounding in ("up", "down"):  # toward zero on one side: max there, big on the other
        target = scratch.work[:k]
        np.right_shift(bits, 63, out=target)  # 1 where negative: toward zero when rounding up
        if r.rounding == "down":
            np.bitwise_xor(target, 1, out=target)
        np.negative(target, out=target)
        np.bitwise_and(target, max_ ^ big, out=target)
        np.bitwise_xor(target, big, out=target)
        _blend(result, target, over, work)
    else:
        _blend(result, max_ if r.rounding == "toward_zero" else big, over, work)
    if int(a.max()) < _INF_BITS:
        return
    infinite = a == _INF_BITS
    if infinite.any():
        if fmt.has_infinity:
            result[infinite] = fmt.inf_code if as_codes else _INF_BITS
        else:  # like an overflow rounded to nearest
            result[infinite] = big
    nan = a > _INF_BITS
    if nan.any():
        if not fmt.has_nan:
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        codes = _nan_codes(a[nan], fmt)
        native = _native(fmt)
        if as_codes:
            result[nan] = codes
        elif native is None:
            result[nan] = _NAN_BITS
        else:  # the payload, widened as codes_to_values widens it
            widened = codes.astype(code_dtype(fmt)).view(native).astype(np.float64)
            result[nan] = widened.view(np.uint64)


def _nan_codes(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Codes of float64 NaNs, as exact.round_real makes them: IEEE formats keep the
    sign and the top payload bits and set the quiet bit; 'fn' formats have one NaN."""
    bits = bits.astype(np.uint64)
    sign = (bits >> np.uint64(63)) << np.uint64(fmt.bits - 1)
    if fmt.nan_encoding == "fn":
        return sign | np.uint64(fmt.nan_code)
    m = fmt.mantissa_bits
    payload = (bits & np.uint64(_FRACTION)) >> np.uint64(52 - m)
    if m < 52:
        payload |= np.uint64(1 << (m - 1))
    return sign | np.uint64(fmt.inf_code) | payload


def _round_array(
    values: Any, fmt: Format, rounding: str, overflow: str | None, dtype: np.dtype
) -> np.ndarray:
    """Round an array block by block into a new array of codes or float64 values."""
    x = _real_array(values)
    r = _rounder(fmt, rounding, overflow)
    assert r is not None
    out = np.empty(x.shape, dtype)
    flat, dst = x.reshape(-1), out.reshape(-1)
    convert = flat.dtype != np.float64

    def work(block: slice, scratch: _Scratch) -> None:
        xb = _converted(flat[block], scratch) if convert else flat[block]
        _round_into(xb, r, dst[block], scratch)

    _run_blocks(flat.size, BLOCK, work, _Scratch)
    return out


def _converted(x: np.ndarray, scratch: _Scratch) -> np.ndarray:
    """A float64 copy of a block of another real dtype (or byte order), in scratch."""
    converted = scratch.floats("input")[: x.size]
    np.copyto(converted, x, casting="unsafe")
    return converted


def round_codes(
    values: Any,
    fmt: Any,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Round float64 values into ``fmt`` and return their codes.

    Each value is rounded once, from its exact binary64 value; results match
    :func:`fpexplore.exact.round_real` bit for bit (NaN payloads included).
    The work is done in cache-sized blocks with integer arithmetic on the
    float64 bits (numpy's own casts for float16/32/64 under nearest_even).
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    if _rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, code_dtype(fmt))
    x = _as_float64(values)
    if rounding == "stochastic":
        rng = np.random.default_rng(rng)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=code_dtype(fmt))
    for start in range(0, flat.size, BLOCK):
        block = slice(start, start + BLOCK)
        with np.errstate(invalid="ignore", over="ignore"):
            out[block] = _round_block_float(flat[block], fmt, rounding, overflow, rng)
    return out.reshape(x.shape)


def next_up_codes(codes: Any, fmt: Any) -> np.ndarray:
    """The code of the next value above each code's value (IEEE nextUp).

    +-0 go to the smallest subnormal, -smallest subnormal to -0, +inf and NaN
    stay, -inf goes to -max. Above +max: +inf in IEEE formats, NaN in 'fn'
    formats (what overflow gives there), +max again in formats with neither.
    """
    fmt = get_format(fmt)
    c = check_codes(codes, fmt).astype(np.uint64)
    sign_mask = np.uint64(fmt.sign_mask)
    negative = (c & sign_mask) != 0
    magnitude = c & ~sign_mask
    kind = classify(c, fmt)
    nan = kind == KIND_CODES[Kind.NAN]
    inf = kind == KIND_CODES[Kind.INF]
    result = np.where(negative, c - np.uint64(1), c + np.uint64(1))
    result[magnitude == 0] = 1  # both zeros
    top = (magnitude == np.uint64(fmt.max_code)) & ~negative
    if fmt.has_infinity:
        result[top] = fmt.inf_code
    elif fmt.has_nan:
        result[top] = fmt.nan_code
    else:
        result[top] = fmt.max_code
    result[inf & ~negative] = c[inf & ~negative]
    result[inf & negative] = sign_mask | np.uint64(fmt.max_code)
    result[nan] = c[nan]
    return result.astype(code_dtype(fmt))


def next_down_codes(codes: Any, fmt: Any) -> np.ndarray:
    """The code of the next value below each code's value: ``-next_up(-x)``."""
    fmt = get_format(fmt)
    flip = code_dtype(fmt).type(fmt.sign_mask)
    return next_up_codes(check_codes(codes, fmt) ^ flip, fmt) ^ flip


def _round_block_float(
    x: np.ndarray, fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> np.ndarray:
    m = fmt.mantissa_bits
    bits64 = x.view(np.uint64)
    negative = (bits64 >> np.uint64(63)).astype(bool)
    a = np.abs(x)
    exponent = np.frexp(a)[1].astype(np.int64) - 1  # 2**exponent <= a < 2**(exponent+1)
    np.maximum(exponent, fmt.emin, out=exponent)
    scaled = np.ldexp(a, (m - exponent).astype(np.int32))  # exact; the quantum is now 1
    significand = _round_integer(scaled, negative, rounding, rng)
    carry = significand >= 2.0 ** (m + 1)
    significand[carry] *= 0.5
    exponent += carry
    sig = significand.astype(np.uint64)
    normal = sig >= np.uint64(1 << m)
    field = np.where(normal, exponent + fmt.bias, 0).astype(np.uint64)
    mantissa = np.where(normal, sig - np.uint64(1 << m), sig)
    overflowed = (field > np.uint64(fmt.max_exponent_field)) | (
        (field == np.uint64(fmt.max_exponent_field)) & (mantissa > np.uint64(fmt.max_mantissa))
    )
    code = (field << np.uint64(m)) | mantissa
    finite = np.isfinite(a)
    if overflowed.any() or not finite.all():
        code = _special_codes(code, bits64, overflowed, finite, negative, fmt, rounding, overflow)
    code |= negative.astype(np.uint64) << np.uint64(fmt.bits - 1)
    return code


def _round_integer(scaled: np.ndarray, negative: np.ndarray, rounding: str, rng: Any) -> np.ndarray:
    """Round non-negative floats to integers (as floats), by a signed rounding mode."""
    if rounding == "nearest_even":
        return np.rint(scaled)
    floor = np.floor(scaled)
    if rounding == "toward_zero":
        return floor
    if rounding == "nearest_away":
        return floor + (scaled - floor >= 0.5)
    if rounding == "stochastic":
        return floor + (rng.random(scaled.shape) < scaled - floor)
    ceil = np.ceil(scaled)
    away = negative if rounding == "down" else ~negative
    return np.where(away, ceil, floor)


def _special_codes(
    code: np.ndarray,
    bits64: np.ndarray,
    overflowed: np.ndarray,
    finite: np.ndarray,
    negative: np.ndarray,
    fmt: Format,
    rounding: str,
    overflow: str | None,
) -> np.ndarray:
    """Overwrite codes of overflowed, infinite and NaN inputs."""
    toward_zero = rounding == "toward_zero" or (
        (rounding == "up") & negative | (rounding == "down") & ~negative
    )
    if fmt.has_infinity:
        big = fmt.inf_code
    elif fmt.has_nan:
        big = fmt.nan_code
    else:
        big = fmt.max_code
    if overflow == "saturate":
        big = fmt.max_code
    replacement = np.where(toward_zero, np.uint64(fmt.max_code), np.uint64(big))
    code = np.where(overflowed & finite, replacement, code).astype(np.uint64)
    nan = np.isnan(bits64.view(np.float64))
    infinite = ~finite & ~nan
    if fmt.has_infinity:
        code[infinite] = fmt.inf_code
    else:
        code[infinite] = fmt.max_code if overflow == "saturate" or not fmt.has_nan else big
    if nan.any():
        if not fmt.has_nan:
            raise ValueError(f"{fmt.name} has no NaN encoding; cannot represent nan")
        if fmt.nan_encoding == "fn":
            code[nan] = fmt.nan_code
        else:
            m = fmt.mantissa_bits
            payload = (bits64[nan] & np.uint64((1 << 52) - 1)) >> np.uint64(52 - m)
            if m < 52:
                payload |= np.uint64(1 << (m - 1))
            code[nan] = np.uint64(fmt.inf_code) | payload
    return code


def round_values(
    values: Any,
    fmt: Any,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Round float64 values into ``fmt``; return the rounded values as float64.

    Blocked like :func:`round_codes`, writing float64 values directly (no codes
    in between); bit for bit the values of those codes.
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    if _rounder(fmt, rounding, overflow) is not None:
        return _round_array(values, fmt, rounding, overflow, np.dtype(np.float64))
    return codes_to_values(round_codes(values, fmt, rounding, overflow=overflow, rng=rng), fmt)


def rounding_errors(
    values: Any, fmt: Any, rounding: str = "nearest_even", *, overflow: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rounded, abs_error, rel_error, ulp_error)`` of storing ``values`` in ``fmt``,
    in one blocked pass: the arrays of :func:`fpexplore.representation_error`.

    ``abs_error = |rounded - values|`` (0 where they are equal, inf stored as inf
    included), ``rel_error = abs_error / |values|`` and ``ulp_error = abs_error /
    spacing``, where spacing is the format's ULP in the binade of ``|values|``
    (clamped to the subnormal spacing); both 0 where ``abs_error`` is 0.

    Examples
    --------
    >>> rounded, abs_error, rel_error, ulp_error = rounding_errors([0.1, 3.0], "float16")
    >>> ulp_error  # 0.1 lies 0.4 of a spacing from its float16; 3.0 is exact
    array([0.4, 0. ])
    """
    fmt = get_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    x = _as_float64(values)
    r = _rounder(fmt, rounding, overflow)
    precomputed = None if r is not None else round_values(x, fmt, rounding, overflow=overflow)
    outputs = tuple(np.empty(x.shape) for _ in range(4))
    flat, dst = x.reshape(-1), [a.reshape(-1) for a in outputs]

    def work(block: slice, scratch: _Scratch) -> None:
        xb = flat[block]
        k = xb.size
        rounded, abs_error, rel_error, ulp_error = (a[block] for a in dst)
        # the outputs double as work arrays, so a block touches five arrays only
        np.abs(xb, out=rel_error)
        low, high = np.minimum.reduce(rel_error), np.maximum.reduce(rel_error)
        ordinary = low > 0 and high < np.inf  # no zero, inf or NaN (NaN fails both)
        if r is None:
            np.copyto(rounded, precomputed.reshape(-1)[block])
        elif ordinary and r.native in (np.float16, np.float32):  # no NaN payload to keep
            narrow = ulp_error.view(r.native)[:k]
            np.copyto(narrow, xb, casting="same_kind")
            np.copyto(rounded, narrow)
        else:
            _round_into(xb, r, rounded, scratch)
        np.subtract(rounded, xb, out=abs_error)
        np.abs(abs_error, out=abs_error)
        np.divide(abs_error, rel_error, out=rel_error)
        _ulp_error_into(abs_error, xb, fmt, ulp_error, tiny=not low >= fmt.smallest_normal)
        if not ordinary:  # 0/0, inf - inf and NaNs
            abs_error[rounded == xb] = 0.0  # also inf stored as inf
            zero = abs_error == 0
            rel_error[zero] = 0.0
            ulp_error[zero] = 0.0
            ulp_error[np.isinf(abs_error)] = np.inf

    _run_blocks(flat.size, BLOCK, work, _Scratch)
    return outputs


def _ulp_error_into(
    abs_error: np.ndarray,
    x: np.ndarray,
    fmt: Format,
    out: np.ndarray,
    tiny: bool = True,
) -> None:
    """out = abs_error / (the format's spacing in the binade of each |x|).

    The spacing is a power of two, so where its inverse is a float64 normal the
    division is exactly a multiplication by that inverse, built from the exponent
    bits of x. Inf and NaN get an arbitrary spacing: their errors are 0, inf or
    NaN whatever it is. ``tiny=False`` promises no |x| below smallest_normal."""
    m = fmt.mantissa_bits
    if m >= 1 and fmt.emin - m >= -1022:
        per_ulp = out.view(np.uint64)
        np.bitwise_and(x.view(np.uint64), _INF_BITS, out=per_ulp)  # float64 exponent field
        if tiny:  # subnormals and zero: the spacing of the lowest binade
            np.maximum(per_ulp, (fmt.emin + 1023) << 52, out=per_ulp)
        np.subtract((2046 + m) << 52, per_ulp, out=per_ulp)  # 2**(m - exponent)
        np.multiply(abs_error, out, out=out)
    else:  # spacings down to 2**-1074, whose inverse overflows
        exponent = np.frexp(np.abs(x))[1].astype(np.int64) - 1
        exponent[x == 0] = fmt.emin
        np.maximum(exponent, fmt.emin, out=exponent)
        np.divide(abs_error, np.ldexp(1.0, (exponent - m).astype(np.int32)), out=out)
