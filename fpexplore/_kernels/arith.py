"""Correctly rounded arithmetic on arrays of a format's values.

The operands are float64 arrays holding values of the format (every value of
every supported format is a float64). Three paths, each correct to the last bit
and tested against :func:`fpexplore.exact.exact_op`:

* **float64 as a wider format.** For a format of precision ``p <= 25`` bits
  whose results stay inside float64's normal range, ``+ - x /`` and ``sqrt`` are
  computed in float64 and rounded once into the format. To nearest this is
  correct as it stands: since ``53 >= 2p + 2``, rounding first to float64 never
  changes the final result (Figueroa 1995). The directed modes need more: a
  sum's error is recovered exactly (TwoSum) and folded into the last bit by
  *rounding to odd*, which is safe to round once more in any mode (Boldo and
  Melquiond 2008); a product is exact (``2p <= 53``); a quotient or square root
  is placed beside the format's midpoint after exact comparisons (``a <=> v x b``,
  ``a <=> v x v``, exact in float64). ``fma`` (``p <= 26``): the product is exact
  and the sum is rounded to odd.
  The tabulated formats (fnuz, P3109, E8M0; all of at most 16 bits) take this
  path too: their results are rounded from float64 by the tables, which follow
  :func:`fpexplore.exact.round_real` (NaN for an E8M0 zero or negative result,
  +0 for a zero, NaN or inf for x/0 and overflow), as the exact path does.
* **float64 itself**, round to nearest even: numpy's own IEEE operations.
* **Everything else** (float64 under other modes, fma in float64, remainder, custom
  formats too wide or too far-ranging for the rules above): each element goes
  through the exact scalar reference, one at a time. Correct, but slow.

Stochastic rounding on the float64 path draws its coin from the float64 result,
whose distance to the format's neighbours is exact to within ``2**-53`` relative.

Examples
--------
>>> import numpy as np
>>> arith_values("add", (np.array([0.10009765625]), np.array([0.2001953125])), "bfloat16")
array([0.30078125])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exact import (
    ARITY,
    check_arithmetic_format,
    check_overflow,
    check_rng,
    check_rounding,
    exact_op,
)
from ..formats import Format, get_format
from .errors import spacing_exponents
from .fields import codes_to_values
from .rounding import round_codes, round_values

__all__ = ["arith_values", "float64_path"]


def float64_path(op: str, fmt: Format) -> bool:
    """Whether ``op`` in ``fmt`` is computed in float64 and rounded once (see above)."""
    precision = fmt.mantissa_bits + 1
    if op == "remainder" or precision > (26 if op == "fma" else 25):
        return False
    lowest, highest = fmt.emin - fmt.mantissa_bits, fmt.emax + 1  # 2**lowest: least subnormal
    return 2 * lowest >= -1020 and 2 * highest <= 1022 and highest - lowest <= 1020


def _zero_sign_fix(result: np.ndarray, x: np.ndarray, y: np.ndarray, rounding: str) -> None:
    """An exact zero sum is -0 under rounding down unless both addends are +0."""
    if rounding != "down":
        return
    zero = result == 0
    if zero.any():
        both_plus_zero = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
        result[zero & ~both_plus_zero] = -0.0


def round_to_odd_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y rounded to odd in float64: TwoSum recovers the exact error, and an
    inexact sum with an even last bit steps one place toward the exact value."""
    s = x + y
    virtual = s - x
    error = (x - (s - virtual)) + (y - virtual)
    fix = (error != 0) & np.isfinite(error) & ((s.view(np.uint64) & np.uint64(1)) == 0)
    if fix.any():
        s[fix] = np.nextafter(s[fix], np.where(error[fix] > 0, np.inf, -np.inf))
    return s


def _bracketed(q: np.ndarray, fmt: Format, compare: Any) -> np.ndarray:
    """A float64 that rounds into ``fmt`` as the exact result does, in every mode.

    ``q`` is the exact result rounded to nearest in float64; ``compare(v)`` gives
    the sign of ``exact - v`` exactly, for ``v`` a value of the format or a
    midpoint between two (its products are exact in float64 when p <= 25). The
    exact result lies in ``[v, v + step)`` for ``v`` the format's value at or below
    ``|q|``; the answer is ``v`` when it is exact, the midpoint when it is a tie,
    else a float64 just beside the midpoint, on the exact result's side.
    """
    magnitude = np.abs(q)
    usable = np.isfinite(magnitude) & (magnitude > 0) & (magnitude < 2.0 ** (fmt.emax + 1))
    if not fmt.has_subnormals:  # below the least value q (exact there: a quotient of
        usable &= magnitude >= fmt.smallest_normal  # powers of two) rounds as is
    v = round_values(np.where(usable, magnitude, 0.0), fmt, "toward_zero")
    below = usable & (compare(v) < 0)  # q rounded up onto a value of the format
    v[below] = round_values(np.nextafter(v[below], 0.0), fmt, "toward_zero")
    mid = v + np.ldexp(0.5, spacing_exponents(v, fmt))
    side = compare(mid)
    t = np.where(side == 0, mid, np.nextafter(mid, np.where(side > 0, np.inf, 0.0)))
    t = np.where(compare(v) == 0, v, t)
    return np.where(usable, np.copysign(t, q), q)


def _compute(op: str, xs: list[np.ndarray], fmt: Format, rounding: str) -> np.ndarray:
    """A float64 result that rounds into ``fmt`` as the exact result does (see the
    module notes). Stochastic rounding takes the float64 result rounded to nearest."""
    nearest = rounding in ("nearest_even", "nearest_away", "stochastic")
    if op in ("add", "sub"):  # to nearest, float64's sum rounded again is correct
        y = xs[1] if op == "add" else -xs[1]
        out = xs[0] + y if nearest else round_to_odd_sum(xs[0], y)
        _zero_sign_fix(out, xs[0], y, rounding)
    elif op == "mul":  # exact in float64 (2p <= 53)
        out = xs[0] * xs[1]
    elif op == "fma":
        product = xs[0] * xs[1]
        out = round_to_odd_sum(product, xs[2])
        _zero_sign_fix(out, product, xs[2], rounding)
    elif op == "div":
        out = xs[0] / xs[1]
        if not nearest:
            a, b = np.abs(xs[0]), np.abs(xs[1])
            out = _bracketed(out, fmt, lambda v: np.sign(a - v * b))
    else:  # sqrt
        out = np.sqrt(xs[0])
        if not nearest:
            a = xs[0]
            out = _bracketed(out, fmt, lambda v: np.sign(a - v * v))
    return out


def _sign_op(op: str, x: np.ndarray, fmt: Format) -> np.ndarray:
    """neg or abs: the sign bit, except where the format has no sign bit to flip
    (as :func:`fpexplore.exact.specials.sign_op_tabulated`): NaN for ``-x`` in
    unsigned E8M0, +0 for ``-0`` in fnuz and P3109, their one NaN unchanged (a
    tabulated format with -0, such as a signed E8M0-like ``"fn"`` format, keeps it)."""
    out = -x if op == "neg" else np.abs(x)
    if fmt.tabulated:
        nan = np.isnan(x)
        if op == "neg" and not fmt.is_signed:
            out[:] = np.nan  # -x has no value (and NaN stays NaN)
        if not fmt.has_negative_zero:
            out[out == 0] = 0.0
        if not (fmt.nan_encoding == "fn" and fmt.is_signed):  # one NaN, no sign to flip
            out[nan] = x[nan]
    return out


def _check_nan(result: np.ndarray, op: str, fmt: Format) -> None:
    if not fmt.has_nan and np.isnan(result).any():
        raise ValueError(
            f"{op} has an invalid operation among its elements (0/0, inf - inf, 0 x inf or "
            f"the square root of a negative number), and {fmt.name} has no NaN to return; "
            "its results are finite numbers only"
        )


def arith_values(
    op: str,
    operands: tuple[np.ndarray, ...],
    fmt: Any,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
) -> np.ndarray:
    """Apply ``op`` elementwise (with broadcasting) to float64 arrays of ``fmt``'s
    values; return the correctly rounded results as float64."""
    fmt = check_arithmetic_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    if op not in ARITY:
        raise ValueError(f"unknown operation {op!r}; expected one of {', '.join(ARITY)}")
    if len(operands) != ARITY[op]:
        raise ValueError(f"{op} takes {ARITY[op]} operand(s), got {len(operands)}")
    xs = [np.asarray(x, dtype=np.float64) for x in np.broadcast_arrays(*operands)]
    if rounding == "stochastic":
        rng = check_rng(rng)
    with np.errstate(all="ignore"):
        if op in ("neg", "abs"):
            return _sign_op(op, xs[0], fmt)
        if float64_path(op, fmt):
            result = _compute(op, xs, fmt, rounding)
            _check_nan(result, op, fmt)
            return round_values(result, fmt, rounding, overflow=overflow, rng=rng)
        native = op in ("add", "sub", "mul", "div", "sqrt")
        if fmt == get_format("float64") and rounding == "nearest_even" and native:
            ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
            result = ufunc[op](*xs) if op in ufunc else np.sqrt(xs[0])
            if overflow == "saturate":
                finite = np.logical_and.reduce([np.isfinite(x) for x in xs])
                clamp = np.isinf(result) & finite  # overflow, not an exact infinity (x/0)
                if op == "div":
                    clamp &= xs[1] != 0
                result[clamp] = np.copysign(fmt.max, result[clamp])
            return result
    return _exact_elements(op, xs, fmt, rounding, overflow, rng)


def _exact_elements(
    op: str, xs: list[np.ndarray], fmt: Format, rounding: str, overflow: str | None, rng: Any
) -> np.ndarray:
    """The exact reference, element by element."""
    codes = [round_codes(x, fmt).reshape(-1) for x in xs]
    shape = xs[0].shape
    out = np.empty(codes[0].size, dtype=codes[0].dtype)
    for i in range(out.size):
        operand_codes = tuple(int(c[i]) for c in codes)
        out[i] = exact_op(op, operand_codes, fmt, rounding, overflow, rng).code
    return codes_to_values(out, fmt).reshape(shape)


def add_in_float32(op: str, a: Any, b: Any, fmt: Format) -> np.ndarray | None:
    """``a + b`` or ``a - b`` to nearest even for arrays already of ``fmt``'s own
    dtype (float16, ml_dtypes' bfloat16), computed in float32: ``24 >= 2p + 2``,
    so float32's sum rounded once more is correct, as in the float64 path but
    with half the memory traffic. None where this does not apply."""
    if op not in ("add", "sub") or not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return None
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.name != fmt.name:
        return None
    if fmt == get_format("float16") and a.dtype == np.float16:
        widen = np.float32
    elif fmt == get_format("bfloat16") and a.dtype.itemsize == 2:
        widen = None  # bfloat16 is float32's top half: widen by a shift
    else:
        return None
    out = np.empty(a.shape, np.float64)
    flat_a, flat_b, flat_out = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    with np.errstate(all="ignore"):
        for start in range(0, flat_a.size, 1 << 16):  # blocks that stay in cache
            block = slice(start, start + (1 << 16))
            flat_out[block] = _add_block(op, flat_a[block], flat_b[block], widen)
    return out


def _add_block(op: str, a: np.ndarray, b: np.ndarray, widen: Any) -> np.ndarray:
    if widen is not None:
        x, y = a.astype(widen), b.astype(widen)
    else:
        x = (a.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
        y = (b.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    r = np.add(x, y, out=x) if op == "add" else np.subtract(x, y, out=x)
    if widen is not None:
        return r.astype(np.float16)
    return round_float32_nearest_even(r, 7)


def round_float32_nearest_even(
    r: np.ndarray, mantissa_bits: int, *, nan_free: bool = False
) -> np.ndarray:
    """Round float32 values, in place, to ``mantissa_bits`` stored bits, to nearest
    even, keeping float32's exponent range (bfloat16: 7, tf32: 10); NaN stays NaN,
    overflow carries into infinity as IEEE rounding does. ``nan_free``: the caller
    knows there is no NaN (one pass fewer)."""
    drop = np.uint32(23 - mantissa_bits)
    bits = r.view(np.uint32)
    keep = None
    if not nan_free:
        nan = np.isnan(r)
        keep = bits[nan] if nan.any() else None
    half = np.uint32((1 << (23 - mantissa_bits - 1)) - 1)
    step = bits >> drop
    step &= np.uint32(1)
    step += half
    bits += step  # ties to even
    bits &= ~np.uint32((1 << (23 - mantissa_bits)) - 1)
    if keep is not None:
        bits[nan] = keep
    return r
