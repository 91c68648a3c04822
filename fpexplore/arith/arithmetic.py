"""Computing in a format: add, sub, mul, div, sqrt, fma (and neg, abs), correctly rounded.

Each operand is first rounded into the format (an input that is not one of its
values, such as the decimal ``"0.1"``, is rounded as :func:`fpexplore.decode`
would, and the explanation says so); then the operation is computed **exactly**
and rounded **once**, as IEEE 754 requires of every basic operation. Scalar
operands give an :class:`Operation` that explains itself; any array operand
gives a numpy array of results (broadcast), correct to the last bit as well.

IEEE 754 special cases: ``inf - inf``, ``0 x inf``, ``0/0``, ``inf/inf`` and the
square root of a negative number are invalid and give NaN; ``x/0`` is a signed
infinity (division by zero); ``sqrt(-0) = -0``; an exact zero sum is ``+0``, or
``-0`` under rounding ``down``. The flags follow the standard; tininess is
detected after rounding, as on x86 (ARM detects it before rounding unless
``FPCR.AH = 1``): ``underflow`` means the result,
rounded as if the exponent range were unbounded, lies below the smallest normal
number, *and* is inexact. Formats without infinities follow their own
conventions: ``float8_e4m3fn`` gives NaN where IEEE formats give infinity (or
its largest value with ``overflow="saturate"``); FP6 and FP4 have neither
infinity nor NaN, so an overflow (and ``x/0``) saturates to +-max, and an
invalid operation raises ``ValueError``. The fnuz, P3109 and E8M0 formats have no
-0 (a zero result is +0), a single NaN, and (fnuz) no infinity, so ``x/0`` is NaN
there; in unsigned E8M0 a zero or negative result is NaN (see
:func:`fpexplore.exact.exact_op`).

Examples
--------
>>> r = add("0.1", "0.2", "bfloat16")
>>> r.value, sorted(r.flags)
(0.30078125, ['inexact'])
>>> add(0.1, 0.2, "float64").value
0.30000000000000004
>>> div(1, 0, "float16").value, sorted(div(1, 0, "float16").flags)
(inf, ['division_by_zero'])
>>> import numpy as np
>>> add(np.array([1.0, 2048.0]), 1, "float16").tolist()  # arrays: arrays of results
[2.0, 2048.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import codes as K
from ..core.decode import FloatParts, decode, from_bits
from ..exact import (
    FLAGS,
    check_arithmetic_format,
    check_overflow,
    check_rng,
    check_rounding,
    exact_op,
)
from ..formats import Format, FormatLike, get_format
from .operation import SYMBOLS, Operation

__all__ = [
    "FLAGS",
    "SYMBOLS",
    "Operation",
    "abs",
    "add",
    "div",
    "fma",
    "mul",
    "neg",
    "remainder",
    "sqrt",
    "sub",
]


def _is_array(x: Any) -> bool:
    return isinstance(x, np.ndarray | list | tuple) and np.ndim(x) > 0


def _scalar_operand(x: Any, fmt: Format, rounding: str, overflow: str | None) -> FloatParts:
    if isinstance(x, FloatParts):
        if x.format == fmt:
            return x
        x = x.exact if x.exact is not None else x.value
    mode = "nearest_even" if rounding == "stochastic" else rounding
    return decode(x, fmt, rounding=mode, overflow=overflow)


def _array_operand(x: Any, fmt: Format, rounding: str, overflow: str | None) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.name == fmt.name and get_format(arr.dtype) == fmt:
        return K.as_float64(arr)  # values of the format: widened exactly, NaN bits too
    if isinstance(x, FloatParts | str) or arr.dtype.kind in "OUS":
        values = [_scalar_operand(v, fmt, rounding, overflow).value for v in arr.reshape(-1)]
        return np.array(values, np.float64).reshape(arr.shape)
    mode = "nearest_even" if rounding == "stochastic" else rounding
    return K.round_values(arr, fmt, mode, overflow=overflow)


def _compute(
    op: str,
    operands: tuple[Any, ...],
    fmt: FormatLike,
    rounding: str,
    overflow: str | None,
    rng: Any,
) -> Any:
    fmt = check_arithmetic_format(fmt)
    check_rounding(rounding)
    check_overflow(overflow)
    if any(_is_array(x) for x in operands):
        if rounding == "nearest_even" and overflow is None and len(operands) == 2:
            fast = K.add_in_float32(op, *operands, fmt)
            if fast is not None:
                return fast
        arrays = tuple(_array_operand(x, fmt, rounding, overflow) for x in operands)
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            shapes = " and ".join(str(a.shape) for a in arrays)
            raise ValueError(f"{op}: operands of shapes {shapes} do not broadcast") from None
        flat = tuple(np.broadcast_to(a, shape).reshape(-1) for a in arrays)
        return K.arith_values(op, flat, fmt, rounding, overflow=overflow, rng=rng).reshape(shape)
    parts = tuple(_scalar_operand(x, fmt, rounding, overflow) for x in operands)
    if rounding == "stochastic":
        rng = check_rng(rng)
    result = exact_op(op, tuple(p.code for p in parts), fmt, rounding, overflow, rng)
    stored = from_bits(result.code, fmt)
    stored = FloatParts(
        result.code,
        fmt,
        result.exact if result.exact is not None else stored.value,
        result.exact,
        rounding,
        result.special,
        result.sign,
    )
    return Operation(
        op, parts, fmt, rounding, stored, result.exact, result.flags, result.approximate, overflow
    )


def add(
    a: Any, b: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """``a + b`` in ``fmt``, rounded once.

    Parameters
    ----------
    a, b : number, str, Fraction, FloatParts or array_like
        Scalars are taken exactly, as :func:`fpexplore.decode` takes them, then
        rounded into ``fmt``; arrays are taken at their float64 values.
    fmt : str, Format or dtype
    rounding : str
        ``nearest_even`` (default), ``nearest_away``, ``toward_zero``, ``up``,
        ``down`` or ``stochastic`` (with ``rng``).
    overflow : None or "saturate"
        None follows the format's convention; ``"saturate"`` clamps to +-max.
    rng : numpy Generator or seed, optional
        Randomness for ``stochastic``.

    Returns
    -------
    Operation for scalar operands (``.value``, ``.parts``, ``.exact``, ``.flags``;
    ``print()`` it for the steps); a float64 numpy array for array operands.

    Examples
    --------
    >>> add("0.1", "0.2", "float16").value
    0.2998046875
    >>> add(1, -1, "float32", "down").parts.sign  # an exact zero sum rounding down is -0
    1
    """
    return _compute("add", (a, b), fmt, rounding, overflow, rng)


def sub(
    a: Any, b: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """``a - b`` in ``fmt``, rounded once (see :func:`add`).

    >>> sub("1.1", "1", "float16").value  # 1.1 became 1.099609375 before subtracting
    0.099609375
    """
    return _compute("sub", (a, b), fmt, rounding, overflow, rng)


def mul(
    a: Any, b: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """``a x b`` in ``fmt``, rounded once (see :func:`add`).

    >>> sorted(mul(300, 300, "float16").flags)
    ['inexact', 'overflow']
    """
    return _compute("mul", (a, b), fmt, rounding, overflow, rng)


def div(
    a: Any, b: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """``a / b`` in ``fmt``, rounded once (see :func:`add`).

    >>> div(1, 3, "bfloat16").value
    0.333984375
    >>> sorted(div(0, 0, "float32").flags)
    ['invalid']
    """
    return _compute("div", (a, b), fmt, rounding, overflow, rng)


def sqrt(
    a: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """The square root of ``a`` in ``fmt``, rounded once (see :func:`add`).

    >>> sqrt(2, "float16").value
    1.4140625
    >>> sqrt("-0", "float16").value  # IEEE 754: sqrt(-0) = -0
    -0.0
    """
    return _compute("sqrt", (a,), fmt, rounding, overflow, rng)


def fma(
    a: Any, b: Any, c: Any, fmt: FormatLike, rounding: str = "nearest_even", *,
    overflow: str | None = None, rng: Any = None,
) -> Any:  # fmt: skip
    """``a x b + c`` in ``fmt`` with one rounding (fused multiply-add; see :func:`add`).

    >>> a = "1.0009765625"  # 1 + 2**-10 in float16
    >>> fma(a, a, "-1.001953125", "float16").value  # the 2**-20 a separate multiply loses
    9.5367431640625e-07
    >>> add(mul(a, a, "float16").value, "-1.001953125", "float16").value
    0.0
    """
    return _compute("fma", (a, b, c), fmt, rounding, overflow, rng)


def remainder(
    a: Any, b: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None,
    rng: Any = None,
) -> Any:  # fmt: skip
    """The IEEE 754 remainder ``a - n * b``, ``n`` the integer nearest ``a / b`` (ties
    to even): always exact in the format, so ``rounding`` never matters (see :func:`add`).

    >>> remainder(5, 3, "float16").value, remainder(7, 2, "float16").value
    (-1.0, -1.0)
    """
    return _compute("remainder", (a, b), fmt, rounding, overflow, rng)


def neg(
    a: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None
) -> Any:
    """``-a`` in ``fmt``: flips the sign bit (no rounding after it, no flags).

    >>> neg(0, "float16").value
    -0.0
    """
    return _compute("neg", (a,), fmt, rounding, overflow, None)


def abs(
    a: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None
) -> Any:
    """``|a|`` in ``fmt``: clears the sign bit (no rounding after it, no flags).

    >>> abs("-2.5", "e4m3").value
    2.5
    """
    return _compute("abs", (a,), fmt, rounding, overflow, None)
