"""Representation error, ULPs and neighbours, vectorized over float64 arrays.

Examples
--------
>>> import numpy as np
>>> err = representation_error(np.array([0.1, 1000.1]), "float16")
>>> err.abs_error  # grows with magnitude...
array([2.44140625e-05, 1.00000000e-01])
>>> bool((err.ulp_error <= 0.5).all())  # ...but never more than half a ULP
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import codes as K
from ..formats import Format, FormatLike, get_format, warn_custom_format
from ..lazy import is_dask, lazy_rounding_errors, map_elementwise
from .narrow import result_dtype, round_narrow

_FLOAT64 = get_format("float64")

__all__ = [
    "RepresentationError",
    "next_down",
    "next_up",
    "representation_error",
    "round_to",
    "ulp",
]


_Scalar: TypeAlias = float | np.floating[Any] | np.integer[Any]
"""A real number that is not an array (``int`` and ``bool`` count as ``float``)."""
_Arrayish: TypeAlias = NDArray[Any] | list[Any] | tuple[Any, ...]
"""An array, list or tuple of real numbers."""


def _shaped(result: NDArray[np.float64], values: Any) -> np.float64 | NDArray[np.float64]:
    """Return a float64 scalar for scalar input (a 0-d array too, as numpy's
    functions do), the array otherwise."""
    return np.float64(result[()]) if np.ndim(values) == 0 else result


@overload
def round_to(
    values: _Scalar,
    fmt: FormatLike,
    rounding: str = ...,
    *,
    overflow: str | None = ...,
    rng: Any = ...,
    dtype: None = ...,
) -> np.float64: ...
@overload
def round_to(
    values: _Arrayish,
    fmt: FormatLike,
    rounding: str = ...,
    *,
    overflow: str | None = ...,
    rng: Any = ...,
    dtype: None = ...,
) -> NDArray[np.float64]: ...
@overload
def round_to(
    values: ArrayLike,
    fmt: FormatLike,
    rounding: str = ...,
    *,
    overflow: str | None = ...,
    rng: Any = ...,
    dtype: None = ...,
) -> np.float64 | NDArray[np.float64]: ...
@overload
def round_to(
    values: Any,
    fmt: FormatLike,
    rounding: str = ...,
    *,
    overflow: str | None = ...,
    rng: Any = ...,
    dtype: Any = ...,
) -> Any: ...
def round_to(
    values: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
    rng: Any = None,
    dtype: Any = None,
) -> Any:
    """Round float64 values to the nearest representable values of ``fmt``.

    Parameters
    ----------
    values : array_like of float, or a dask array
        Taken at their exact binary64 values and rounded once. float32 arrays
        are rounded on their own 32-bit codes, without widening. A dask array
        gives a dask array, chunk by chunk, with the result's dtype declared.
    fmt : str, Format or dtype
        (a custom eXmY name outside the catalogue, ``"e4m4"``, warns: a typo?)
    rounding : str
        ``nearest_even`` (default), ``nearest_away``, ``toward_zero``, ``up``,
        ``down`` or ``stochastic`` (rounds up with probability equal to the
        fraction of the gap covered, so it is unbiased in expectation).
    overflow : None or "saturate"
        None follows the format's convention; ``"saturate"`` clamps to +-max.
    rng : numpy Generator or seed, optional
        Randomness for ``stochastic`` (a dask array: a stream per chunk, see lazy).
    dtype : None, "narrow", a numpy float dtype, or the format's ml_dtypes dtype
        The result's dtype: float64 by default; ``"narrow"`` for the narrowest of
        float16, float32 and float64 that holds every value of ``fmt`` (float32
        for bfloat16, float16 for FP8/FP6/FP4), which halves memory traffic; any
        numpy float dtype that holds them all; or ``fmt``'s own ml_dtypes type.

    Returns
    -------
    numpy.ndarray of float64, or a numpy.float64 for scalar input
        A 0-d array counts as a scalar, as in numpy's own functions (type
        checkers see an array there, as they do for numpy's). With ``dtype``, an
        array (or scalar) of that dtype; for a dask array, a dask array.

    Examples
    --------
    >>> round_to([1.0, 1 + 2**-9, 300.0], "bfloat16")
    array([  1.,   1., 300.])
    >>> round_to(1000.0, "float8_e4m3fn", overflow="saturate")
    np.float64(448.0)
    >>> round_to(np.float32([0.1, 3.0]), "float8_e4m3fn", dtype="narrow")
    array([0.10156, 3.     ], dtype=float16)
    """
    warn_custom_format(fmt)
    fmt = get_format(fmt)
    target = result_dtype(fmt, dtype)
    if is_dask(values):  # stochastic: each chunk its own stream, from rng and its position
        return map_elementwise(round_to, values, target, fmt, rounding, overflow=overflow,
                               rng=rng, dtype=dtype, seeded=rounding == "stochastic")  # fmt: skip
    if target != np.float64:
        return round_narrow(values, fmt, rounding, overflow, rng, target)
    return _shaped(K.round_values(values, fmt, rounding, overflow=overflow, rng=rng), values)


def _ulp_at(x: np.ndarray, fmt: Format) -> NDArray[np.float64]:
    """Spacing of ``fmt`` in the binade of each |x| (smallest subnormal at 0)."""
    spacing: NDArray[np.float64] = np.ldexp(1.0, K.spacing_exponents(x, fmt))
    spacing[~np.isfinite(x)] = np.nan
    return spacing


@overload
def ulp(values: _Scalar, fmt: FormatLike) -> np.float64: ...
@overload
def ulp(values: _Arrayish, fmt: FormatLike) -> NDArray[np.float64]: ...
@overload
def ulp(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]: ...
def ulp(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]:
    """The spacing (unit in the last place) of ``fmt`` at each value's magnitude.

    Examples
    --------
    >>> ulp([1.0, 3.0, 65504.0, 0.0], "float16")
    array([9.76562500e-04, 1.95312500e-03, 3.20000000e+01, 5.96046448e-08])
    """
    fmt = get_format(fmt)
    given = K.real_array(values)
    x = K.exact_float64(given, _FLOAT64, "toward_zero")  # keeps each integer's binade
    with np.errstate(invalid="ignore"):
        return _shaped(_ulp_at(np.atleast_1d(x), fmt).reshape(x.shape), values)


@overload
def next_up(values: _Scalar, fmt: FormatLike) -> np.float64: ...
@overload
def next_up(values: _Arrayish, fmt: FormatLike) -> NDArray[np.float64]: ...
@overload
def next_up(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]: ...
def next_up(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]:
    """The smallest representable value of ``fmt`` strictly above each value.

    From -inf that is -max in every format; from +inf (and above max) it is
    +inf where the format has infinities, else what overflow gives there: NaN
    in 'fn' formats, +max again in formats with neither (FP6, FP4).

    Examples
    --------
    >>> next_up([1.0, 65504.0, -0.0], "float16")
    array([1.00097656e+00,            inf, 5.96046448e-08])
    >>> next_up([-np.inf, np.inf], "float8_e4m3fn")
    array([-448.,   nan])
    """
    return _shaped(_step(values, get_format(fmt), up=True), values)


@overload
def next_down(values: _Scalar, fmt: FormatLike) -> np.float64: ...
@overload
def next_down(values: _Arrayish, fmt: FormatLike) -> NDArray[np.float64]: ...
@overload
def next_down(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]: ...
def next_down(values: ArrayLike, fmt: FormatLike) -> np.float64 | NDArray[np.float64]:
    """The largest representable value of ``fmt`` strictly below each value
    (``-next_up(-x)``).

    >>> next_down([np.inf, -448.0], "float8_e4m3fn")
    array([448.,  nan])
    """
    return _shaped(_step(values, get_format(fmt), up=False), values)


def _step(values: ArrayLike, fmt: Format, up: bool) -> NDArray[np.float64]:
    """next_up (``up``) or next_down of each value, exactly for every input dtype."""
    given = np.atleast_1d(K.real_array(values))
    if not fmt.is_signed:  # no -x to step from
        return _unsigned_step(K.as_float64(given), fmt, up=up).reshape(np.shape(values))
    code = K.round_codes(given, fmt, "up" if up else "down")
    on_grid = code == K.round_codes(given, fmt, "down" if up else "up")  # or inf, NaN
    high, low = (K.exact_float64(given, _FLOAT64, mode) for mode in ("up", "down"))
    with np.errstate(invalid="ignore"):  # beyond max: saturated, not on the grid
        on_grid &= ~(np.isfinite(high) & (high > fmt.max) | np.isfinite(low) & (low < -fmt.max))
    step = K.next_up_codes if up else K.next_down_codes
    code[on_grid] = step(code[on_grid], fmt)
    if not fmt.has_infinity and given.dtype.kind not in "iu":  # from an infinity
        x = K.as_float64(given)
        start, beyond = (-np.inf, np.inf) if up else (np.inf, -np.inf)
        code[x == start] = (fmt.sign_mask if up else 0) | fmt.max_code  # -max or +max
        edge = fmt.max_code if up else fmt.sign_mask | fmt.max_code  # what lies past it
        code[x == beyond] = step(np.array([edge], code.dtype), fmt)[0]
    values_out: NDArray[np.float64] = K.codes_to_values(code, fmt).reshape(np.shape(values))
    return values_out


def _unsigned_step(x: NDArray[np.float64], fmt: Format, *, up: bool) -> NDArray[np.float64]:
    """next_up / next_down in an unsigned format (E8M0), whose values start at zero
    or at its smallest value and which rounds negatives to NaN: the neighbour in
    the sorted list of its values; NaN where there is none (past the largest
    value, as overflow gives, or below the smallest)."""
    every = K.codes_to_values(np.arange(fmt.n_codes), fmt)
    ordered = np.unique(every[~np.isnan(every)])
    if up:
        index = np.searchsorted(ordered, x, side="right")
    else:
        index = np.searchsorted(ordered, x, side="left") - 1
    inside = (index >= 0) & (index < ordered.size) & ~np.isnan(x)
    return np.where(inside, ordered[np.clip(index, 0, ordered.size - 1)], np.nan)


@dataclass(frozen=True, eq=False)
class RepresentationError:
    """Errors made by storing ``values`` in ``format`` (arrays of float64).

    ``abs_error = |rounded - values|``; ``rel_error = abs_error / |values|``
    (0 where both are 0); ``ulp_error = abs_error / ulp(values)``, at most 0.5
    under round-to-nearest inside the format's range.
    """

    values: np.ndarray
    rounded: np.ndarray
    abs_error: np.ndarray
    rel_error: np.ndarray
    ulp_error: np.ndarray
    format: Format

    def summary(self) -> dict[str, float]:
        """Max and mean of each error over the finite entries."""
        finite = np.isfinite(self.abs_error)
        out = {}
        for name in ("abs_error", "rel_error", "ulp_error"):
            data = getattr(self, name)[finite]
            out[f"max_{name}"] = float(data.max()) if data.size else float("nan")
            out[f"mean_{name}"] = float(data.mean()) if data.size else float("nan")
        return out

    def __str__(self) -> str:
        """How many values, the largest and mean errors, and the first and last rows."""
        from ..render.summary import errors_table  # the documented upward import

        return str(errors_table(self))

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        from ..render.summary import errors_table

        return errors_table(self)._repr_html_()


def representation_error(
    values: Any, fmt: FormatLike, rounding: str = "nearest_even", *, overflow: str | None = None
) -> RepresentationError:
    """Absolute, relative and ULP error of storing ``values`` in ``fmt``.

    The absolute error is exact before its one rounding to float64 (the
    subtraction of two doubles is correctly rounded). float32 inputs are rounded
    on their own codes, widened a block at a time.
    A dask array gives a :class:`RepresentationError` of dask arrays, each chunk
    computed once for all four.
    """
    fmt = get_format(fmt)
    if is_dask(values):
        return RepresentationError(
            values, *lazy_rounding_errors(values, fmt, rounding, overflow), fmt
        )
    given = np.atleast_1d(K.real_array(values))
    x = K.as_float64(given)
    rounded, abs_error, rel_error, ulp_error = K.rounding_errors(
        given, fmt, rounding, overflow=overflow
    )
    shape = np.shape(values)
    x, rounded, abs_error, rel_error, ulp_error = (
        a.reshape(shape) for a in (x, rounded, abs_error, rel_error, ulp_error)
    )
    return RepresentationError(x, rounded, abs_error, rel_error, ulp_error, fmt)
