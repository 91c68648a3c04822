"""Per-tensor scaling as FP8 training does it: a scale from the tensor's amax.

A tensor is multiplied by a scale ``s`` so that its largest magnitude ``amax``
lands near the format's largest finite value, rounded into the format, and
divided by ``s`` again when read. The scale follows Transformer Engine's rule,
``s = max / amax / 2**margin``, stored as float32. Two recipes choose the amax:

* ``"current"``: the amax of this very tensor (one extra pass over it);
* ``"delayed"``: the largest amax of the previous steps (an *amax history*),
  so the scale is known before the tensor is; a tensor that grew since then
  overflows and saturates (:class:`DelayedScaling`).

Examples
--------
>>> import numpy as np
>>> x = np.array([0.001, 0.5, 3.0])
>>> t = scale_per_tensor(x, "float8_e4m3fn")
>>> float(t.scale), float(t.amax)   # 448 / 3, as float32
(149.3333282470703, 3.0)
>>> t.values  # the unscaled result round(x * s) / s: s is no power of two, so not even 3 is kept
array([1.04631700e-03, 4.82142874e-01, 3.00000010e+00])
>>> scale_per_tensor(x, "float8_e4m3fn", power_of_two=True).values  # s = 128: exact unscaling
array([9.765625e-04, 5.000000e-01, 3.000000e+00])
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .. import codes as K
from .._kernels.scaled import round_scaled
from ..exact import check_rounding, parse_real, round_real
from ..formats import Format, FormatLike, get_format

__all__ = ["DelayedScaling", "ScaledTensor", "amax_of", "compute_scale", "scale_per_tensor"]

RECIPES = ("current", "delayed")
SCALE_EXPONENTS = (-127, 127)
"""The scale lies in ``[2**-127, 2**127]``: a float32 value whose inverse is one too."""


def amax_of(x: Any) -> float:
    """The largest finite magnitude of ``x`` (0.0 if it has none); of an integer
    array, the Python int itself (exact beyond 2**53, where float64 is not).

    >>> amax_of(np.array([3, -(2**53 + 1)]))
    9007199254740993
    """
    arr = K.real_array(x)
    if arr.dtype.kind in "iu":
        return max(abs(int(arr.max())), abs(int(arr.min()))) if arr.size else 0.0
    a = np.abs(K.as_float64(arr))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size else 0.0


def check_amax(amax: Any, what: str = "amax") -> Fraction:
    """A finite, non-negative real number (a Decimal, an ml_dtypes scalar or a 0-d
    array too), exactly."""
    if isinstance(amax, np.ndarray | np.generic) and np.ndim(amax) == 0:
        kind = np.asarray(amax).dtype.kind
        if kind == "V":  # bfloat16, FP8...: widened exactly; other voids refused below
            with contextlib.suppress(TypeError):
                amax = K.as_float64(np.asarray(amax))[()]
        elif isinstance(amax, np.ndarray) and kind in "fiu":
            amax = amax[()]
    if isinstance(amax, Decimal):
        if not amax.is_finite() or amax < 0:
            raise ValueError(f"{what} must be finite and >= 0, got {amax!r}")
        return Fraction(amax)
    if isinstance(amax, bool | np.bool_) or not isinstance(amax, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {type(amax).__name__} {amax!r}")
    if isinstance(amax, numbers.Integral):
        value = Fraction(int(amax))
    elif isinstance(amax, Fraction):
        value = amax
    elif not np.isfinite(float(amax)):
        raise ValueError(f"{what} must be finite and >= 0, got {amax!r}")
    else:
        value = Fraction(float(amax))
    if value < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {amax!r}")
    return value


def _log2_floor(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > x else e


def compute_scale(
    amax: float | Fraction, fmt: FormatLike, *, margin: int = 0, power_of_two: bool = False
) -> float:  # fmt: skip
    """The per-tensor scale ``max / amax / 2**margin`` as a float32 value.

    The quotient is computed exactly and rounded once to float32 (nearest even);
    ``power_of_two=True`` rounds it down to a power of two instead, so that
    scaling and unscaling are exact. Either way the scale is clamped to
    ``[2**-127, 2**127]`` (:data:`SCALE_EXPONENTS`), so that it and its inverse
    are float32 values: an amax above ``max * 2**127`` (or a margin that asks for
    a smaller scale) gets ``2**-127`` and its largest values saturate; a tiny
    amax (or a large negative margin) gets ``2**127``. An amax of 0 gives 1.0
    (nothing to scale by); a negative or non-finite amax is refused.

    >>> compute_scale(3.0, "float8_e4m3fn", power_of_two=True)
    128.0
    >>> compute_scale(1e50, "float8_e4m3fn") == 2.0**-127
    True
    """
    fmt = get_format(fmt)
    if isinstance(margin, bool) or not isinstance(margin, int | np.integer):
        raise TypeError(f"margin must be an int, got {margin!r}")
    value = check_amax(amax)
    if value == 0:
        return 1.0
    low, high = SCALE_EXPONENTS
    ratio = Fraction(fmt.max) / value
    exponent = _log2_floor(ratio) - int(margin)  # floor(log2(ideal scale))
    if exponent < low:
        return 2.0**low
    if exponent >= high:
        return 2.0**high
    if power_of_two:
        return 2.0**exponent
    ideal = ratio / Fraction(2) ** int(margin)
    code = round_real(parse_real(ideal), "float32")
    return float(K.codes_to_values(np.array([code], np.uint32), "float32")[0])


def history_amax(amax_history: Iterable[float] | None) -> Fraction:
    """The largest amax of a history of finite, non-negative numbers, exactly."""
    if amax_history is None or isinstance(amax_history, str | bytes):
        raise ValueError("the delayed recipe needs a non-empty amax_history")
    try:
        values = list(amax_history)
    except TypeError:
        raise TypeError(
            f"amax_history must be a sequence of amaxes, got {amax_history!r}"
        ) from None
    if not values:
        raise ValueError("the delayed recipe needs a non-empty amax_history")
    exact = []
    for i, a in enumerate(values):
        try:
            exact.append(check_amax(a, f"amax_history[{i}]"))
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error} (every amax_history entry must be a finite amax)") from None
    return max(exact)


def fraction_to_float(x: Fraction) -> float:
    """``float(x)``, inf beyond float64's range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


@dataclass(frozen=True, eq=False)
class ScaledTensor:
    """A tensor stored in ``format`` after multiplication by ``scale``.

    ``scaled`` are the stored values ``round(x * scale)`` (float64), ``values``
    the unscaled result ``scaled / scale``: what a reader of the tensor gets.
    """

    format: Format
    recipe: str
    amax: float
    scale: float
    input: np.ndarray
    scaled: np.ndarray
    values: np.ndarray

    @property
    def codes(self) -> np.ndarray:
        """The stored codes of ``format``."""
        return K.round_codes(self.scaled, self.format)

    def __repr__(self) -> str:
        return (
            f"ScaledTensor({self.format.name}, recipe={self.recipe!r}, amax={self.amax!r}, "
            f"scale={self.scale!r}, shape={self.values.shape})"
        )


def scale_per_tensor(
    x: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    recipe: str = "current",
    amax_history: Iterable[float] | None = None,
    margin: int = 0,
    power_of_two: bool = False,
    overflow: str | None = "saturate",
    rng: Any = None,
) -> ScaledTensor:
    """Scale ``x`` by its amax, round it into ``fmt``, unscale it.

    Parameters
    ----------
    x : array_like of real numbers
    fmt : format spec
    rounding : rounding mode of the scaled values.
    recipe : "current" or "delayed"
        ``current`` takes the amax of ``x``; ``delayed`` the largest of
        ``amax_history``.
    amax_history : iterable of float, optional
        For ``recipe="delayed"`` (required there): the amaxes of previous steps,
        finite numbers >= 0; a NaN or infinity anywhere in it is refused with
        ValueError.
    margin, power_of_two : see :func:`compute_scale`.
    overflow : "saturate" (default, as FP8 training casts) or None (the format's
        own convention: inf or NaN).

    rng : seed or Generator, for ``rounding="stochastic"``.

    Notes
    -----
    ``x * scale`` is rounded once from its exact value, whatever the input's
    dtype: exact in float64 for
    float32 and narrower ``x``, rounded to odd from Dekker's TwoProduct for
    float64 ``x``, with Fractions where neither applies. ``values`` is the float64
    quotient ``scaled / scale``, correctly rounded (exact for a power-of-two
    scale). The scale is never 0 or inf (see :func:`compute_scale`), so no value
    becomes NaN that was not NaN.

    >>> t = scale_per_tensor([1.0, 50.0], "float8_e4m3fn", recipe="delayed",
    ...                      amax_history=[10.0, 20.0])
    >>> t.amax, t.values[1]  # 50 grew past the history: it saturates at 448 / s
    (20.0, np.float64(20.000000340597975))
    """
    fmt = get_format(fmt)
    arr = K.real_array(x)
    check_rounding(rounding)
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(RECIPES)}")
    exact = check_amax(amax_of(arr)) if recipe == "current" else history_amax(amax_history)
    scale = compute_scale(exact, fmt, margin=margin, power_of_two=power_of_two)
    amax = fraction_to_float(exact)
    scaled = round_scaled(arr, scale, fmt, rounding, overflow, rng)
    with np.errstate(invalid="ignore"):  # a signalling NaN stays NaN
        values = scaled / scale
    return ScaledTensor(fmt, recipe, amax, scale, arr, scaled, values)


class DelayedScaling:
    """The delayed recipe over training steps: each call scales a tensor by the
    amax history of the calls before it, then records the tensor's own amax.

    >>> d = DelayedScaling("float8_e4m3fn", history_len=2)
    >>> [float(d(np.array([a])).amax) for a in (1.0, 4.0, 2.0, 0.5)]
    [1.0, 1.0, 4.0, 4.0]
    """

    def __init__(self, fmt: FormatLike, *, history_len: int = 16, margin: int = 0) -> None:
        if (
            isinstance(history_len, bool | np.bool_)
            or not isinstance(history_len, int | np.integer)
            or history_len < 1
        ):
            raise ValueError(f"history_len must be a positive int, got {history_len!r}")
        self.format = get_format(fmt)
        self.margin = margin
        self.history: deque[float] = deque(maxlen=int(history_len))

    def __call__(self, x: Any) -> ScaledTensor:
        """Scale ``x`` by the history (by its own amax on the first call)."""
        current = amax_of(x)
        history = list(self.history) or [current]
        result = scale_per_tensor(
            x, self.format, recipe="delayed", amax_history=history, margin=self.margin
        )
        self.history.append(current)
        return result
