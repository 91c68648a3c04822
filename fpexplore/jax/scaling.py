"""Per-tensor scaling of JAX arrays, as FP8 training does it, inside ``jit``.

The same rules as :mod:`fpexplore.scaling.per_tensor`, as pure functions of arrays: a
tensor's amax (:func:`amax_of`), the scale ``max / amax / 2**margin`` stored as
float32 (:func:`compute_scale`), and :func:`scale_per_tensor`, which multiplies by
the scale, rounds into the format and divides again, each product and quotient
exact before its one rounding. The delayed recipe reads an *amax history*, an
array that lives in the training step's state: :func:`record_amax` returns it with
the newest amax in front, and ``recipe="delayed"`` scales by its largest entry.

Examples
--------
>>> import jax.numpy as jnp
>>> x = jnp.array([0.001, 0.5, 3.0])
>>> t = scale_per_tensor(x, "float8_e4m3fn")
>>> float(t.scale), float(t.amax)  # 448 / 3, as float32
(149.3333282470703, 3.0)
>>> t.values.tolist()  # round(x * s) / s, rounded once to float32
[0.0010463170474395156, 0.4821428656578064, 3.0]
>>> history = record_amax(jnp.zeros(4), x)
>>> history.tolist()
[3.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..exact import check_overflow, check_rounding
from ..formats import FormatLike, get_format
from ..scaling.per_tensor import RECIPES, fraction_to_float, history_amax
from ..scaling.per_tensor import compute_scale as exact_scale
from ._bits import INF, MAGNITUDE, SIGN, compose, decompose, divide, multiply, u32
from ._core import Spec, float_bits, round_normalized, spec_for, specials
from ._dtypes import (
    as_array,
    check_fits,
    from_float32_bits,
    input_dtype,
    is_number,
    to_float32_bits,
)
from ._random import key_words, random_bits
from ._rounding import round_count
from ._unscale import unscale

__all__ = ["ScaledTensor", "amax_of", "compute_scale", "record_amax", "scale_per_tensor"]

_ONE = float_bits(1.0)


class ScaledTensor(NamedTuple):
    """The result of :func:`scale_per_tensor` (a pytree of JAX arrays).

    ``values``: the unscaled result ``round(x * scale) / scale`` in the dtype of
    ``x``; ``scaled``: the stored values ``round(x * scale)`` (float32); ``scale``
    and ``amax``: float32 scalars.
    """

    values: Any
    scaled: Any
    scale: Any
    amax: Any


_ROWS = 16


def _finite_amax_bits(x: Any) -> Any:
    """The float32 bits of the largest finite magnitude of a float32, bfloat16 or
    float16 array (0 if there is none).

    XLA's CPU backend reduces integers one element at a time, but takes the
    elementwise maximum of two arrays many lanes at once: a large array is cut
    into 16 rows, their elementwise maximum taken, and only that row reduced.
    Each row is read as bits on its own, so that no bit copy of ``x`` is made."""

    def finite(part: Any) -> Any:
        magnitude = to_float32_bits(part) & u32(MAGNITUDE)
        return jnp.where(magnitude < u32(INF), magnitude, u32(0))

    flat = jnp.ravel(x)
    cols = flat.shape[0] // _ROWS
    if cols < 64:
        return jnp.max(finite(flat), initial=np.uint32(0))
    widest = finite(flat[:cols])
    for i in range(1, _ROWS):
        widest = jnp.maximum(widest, finite(flat[i * cols : (i + 1) * cols]))
    largest = jnp.max(widest)
    if flat.shape[0] > _ROWS * cols:
        largest = jnp.maximum(largest, jnp.max(finite(flat[_ROWS * cols :])))
    return largest


def amax_of(x: Any) -> Any:
    """The largest finite magnitude of a float32, bfloat16 or float16 array, as a
    float32 scalar (0.0 if it has none).

    >>> import jax.numpy as jnp
    >>> float(amax_of(jnp.array([1.0, -7.5, jnp.inf, jnp.nan])))
    7.5
    """
    input_dtype(x)
    bits = _finite_amax_bits(as_array(x))
    return jax.lax.bitcast_convert_type(bits, jnp.float32)


def _scale_bits(amax_bits: Any, fmt_max: float, margin: int, power_of_two: bool) -> Any:
    """The float32 bits of ``fmt_max / amax / 2**margin`` (rounded to nearest even,
    or down to a power of two) clamped to ``[2**-127, 2**127]``; 1.0 for an amax of
    0, inf or NaN."""
    q_sig, q_e = divide(*decompose(u32(float_bits(fmt_max))), *decompose(amax_bits), bits=26)
    q_e = q_e - margin
    if power_of_two:  # 2**floor(log2(q)) (clamped below)
        bits = compose(u32(1), jnp.maximum(q_e, -149))
    else:
        count, qe = round_count(q_sig, q_e, False, mantissa_bits=23, emin=-126,
                                rounding="nearest_even")  # fmt: skip
        bits = compose(count, qe)
    bits = jnp.where(q_e >= 127, u32(float_bits(2.0**127)), bits)
    bits = jnp.where(q_e < -127, u32(float_bits(2.0**-127)), bits)  # as numpy's clamp
    return jnp.where((amax_bits == 0) | (amax_bits >= u32(INF)), u32(_ONE), bits)


def compute_scale(
    amax: Any, fmt: FormatLike, *, margin: int = 0, power_of_two: bool = False
) -> Any:  # fmt: skip
    """The per-tensor scale ``max / amax / 2**margin`` as a float32 JAX scalar, as
    :func:`fpexplore.compute_scale` computes it: in ``[2**-127, 2**127]``; 1.0 for an
    amax of 0; ``power_of_two=True`` rounds it down to a power of two, so that
    scaling and unscaling are exact.

    A number (Python, Fraction, Decimal, numpy scalar or 0-d array) is taken
    exactly, as there, and one that is negative, inf or NaN raises ValueError. An
    array of float32, bfloat16 or float16 gives a scale per element and cannot
    raise inside jit: its magnitude is read, and inf or NaN gives 1.0.

    >>> import jax.numpy as jnp
    >>> float(compute_scale(jnp.float32(3.0), "float8_e4m3fn")), float(
    ...     compute_scale(3.0, "float8_e4m3fn", power_of_two=True))
    (149.3333282470703, 128.0)
    >>> float(compute_scale(0.3, "float8_e4m3fn"))  # 448 / 0.3, not 448 / float32(0.3)
    1493.3333740234375
    """
    f = get_format(fmt)
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"margin must be an int, got {margin!r}")
    if is_number(amax):
        scale = exact_scale(amax, f, margin=margin, power_of_two=power_of_two)
        return jnp.asarray(np.float32(scale))  # a float32 value: exact
    if getattr(amax, "dtype", None) is None:
        raise TypeError(
            f"amax must be a real number or an array, got {type(amax).__name__} {amax!r}"
        )
    input_dtype(amax)
    bits = to_float32_bits(as_array(amax)) & u32(MAGNITUDE)  # |amax|
    return jax.lax.bitcast_convert_type(_scale_bits(bits, f.max, margin, power_of_two),
                                        jnp.float32)  # fmt: skip


def record_amax(amax_history: Any, x: Any) -> Any:
    """The amax history with ``amax_of(x)`` in front and the oldest entry dropped:
    the state update of the delayed recipe, after a step has used the history.

    >>> import jax.numpy as jnp
    >>> record_amax(jnp.array([4.0, 2.0, 1.0]), jnp.array([-0.5])).tolist()
    [0.5, 4.0, 2.0]
    """
    history = jnp.asarray(amax_history, jnp.float32)
    if history.ndim != 1 or history.shape[0] == 0:
        raise ValueError(f"amax_history must be a non-empty 1-d array, got shape {history.shape}")
    return jnp.roll(history, 1).at[0].set(amax_of(x))


def scale_per_tensor(
    x: Any,
    fmt: FormatLike,
    rounding: str = "nearest_even",
    *,
    recipe: str = "current",
    amax_history: Any = None,
    margin: int = 0,
    power_of_two: bool = False,
    overflow: str | None = "saturate",
    key: Any = None,
) -> ScaledTensor:
    """Scale ``x`` by its amax, round it into ``fmt``, unscale it, inside ``jit``.

    Equal to :func:`fpexplore.scale_per_tensor` on float32 inputs: ``scale``,
    ``amax`` and ``scaled`` bit for bit, ``values`` its float64 values rounded once
    to float32 (bfloat16 and float16 inputs: into their dtype).

    Parameters
    ----------
    x : JAX or numpy array of float32, bfloat16 or float16
    fmt : a format whose values float32 holds
    rounding : rounding mode of the scaled values; ``stochastic`` needs ``key``.
    recipe : "current" or "delayed"
        ``current`` takes the amax of ``x``; ``delayed`` the largest entry of
        ``amax_history``.
    amax_history : 1-d array, optional
        For ``recipe="delayed"`` (required there): a float32 array of the amaxes
        of previous steps, kept up to date with :func:`record_amax`, which cannot
        raise inside jit: its magnitudes are read, inf and NaN skipped. A list of
        numbers or a numpy array is taken exactly and checked as the numpy
        function takes it (every entry finite and >= 0).
    margin, power_of_two : see :func:`compute_scale`.
    overflow : "saturate" (default, as FP8 training casts) or None (the format's
        own convention: inf or NaN).
    key : jax.random key, optional

    Returns
    -------
    ScaledTensor
        ``values``, ``scaled``, ``scale``, ``amax``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> step = jax.jit(lambda x, h: scale_per_tensor(x, "float8_e4m3fn", recipe="delayed",
    ...                                              amax_history=h))
    >>> t = step(jnp.array([1.0, 50.0]), jnp.array([10.0, 20.0]))
    >>> float(t.amax), t.values.tolist()  # 50 grew past the history: it saturates
    (20.0, [0.9821428656578064, 20.0])
    """
    dtype = input_dtype(x)
    f = get_format(fmt)
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(RECIPES)}")
    check_rounding(rounding)
    check_overflow(overflow)
    check_fits(f, np.dtype(np.float32))
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"margin must be an int, got {margin!r}")
    history, known = None, False
    if recipe == "delayed":
        shape = getattr(amax_history, "shape", None)
        if amax_history is None or (shape is not None and (len(shape) != 1 or shape[0] == 0)):
            raise ValueError("the delayed recipe needs a non-empty 1-d amax_history")
        if isinstance(amax_history, jax.Array):  # traced, or as inside jit
            history = jnp.asarray(amax_history, jnp.float32)
        else:
            history, known = _known_history(amax_history, f, margin, power_of_two), True
    if rounding == "stochastic":
        key_words(key)
    return _scale(as_array(x), history, key if rounding == "stochastic" else None,
                  spec=spec_for(f, overflow), fmt_max=f.max, margin=margin,
                  power_of_two=power_of_two, rounding=rounding, dtype_name=dtype.name,
                  known=known)  # fmt: skip


def _known_history(amax_history: Any, f: Any, margin: int, power_of_two: bool) -> Any:
    """The float32 bits of the amax and the scale of a history that is no JAX array
    (a list of numbers, a numpy array), taken exactly and checked as
    :func:`fpexplore.scale_per_tensor` takes it: ``[amax, scale]`` (uint32)."""
    values = amax_history
    if getattr(values, "dtype", None) is not None:
        values = np.asarray(values)
        if values.dtype.kind not in "fiu":  # bfloat16: exact in float32
            values = values.astype(np.float32)
    exact = history_amax(values)
    scale = exact_scale(exact, f, margin=margin, power_of_two=power_of_two)
    with np.errstate(over="ignore"):  # an amax beyond float32's range is inf there
        pair = np.array([fraction_to_float(exact), scale], np.float32)
    return jnp.asarray(pair.view(np.uint32))


@partial(jax.jit, static_argnames=("spec", "fmt_max", "margin", "power_of_two", "rounding",
                                   "dtype_name", "known"))  # fmt: skip
def _scale(x: Any, history: Any, key: Any, *, spec: Spec, fmt_max: float, margin: int,
           power_of_two: bool, rounding: str, dtype_name: str,
           known: bool = False) -> ScaledTensor:  # fmt: skip
    bits = to_float32_bits(x)
    if known:  # the bits of the amax and scale, computed exactly from a known history
        amax, scale = history[0], history[1]
    else:
        amax = _finite_amax_bits(x if history is None else history)
        scale = _scale_bits(amax, fmt_max, margin, power_of_two)
    s_sig, s_e = decompose(scale)
    magnitude = bits & u32(MAGNITUDE)
    negative = (bits & u32(SIGN)) != 0
    product = multiply(*decompose(jnp.minimum(magnitude, u32(INF - 1))), s_sig, s_e)  # exact
    random = random_bits(key, x.shape) if rounding == "stochastic" else None
    scaled = round_normalized(*product, negative, spec, rounding, random)
    scaled = _specials_of_inputs(scaled, bits, spec)
    values = unscale(scaled, scale, spec, dtype_name)  # exact, one rounding
    as_float = partial(jax.lax.bitcast_convert_type, new_dtype=jnp.float32)
    return ScaledTensor(from_float32_bits(values, np.dtype(dtype_name)), as_float(scaled),
                        as_float(scale), as_float(amax))  # fmt: skip


def _specials_of_inputs(scaled: Any, bits: Any, spec: Spec) -> Any:
    """inf and NaN inputs: their product with the scale is inf or NaN, rounded by the
    format's rules (saturating to max, by default)."""
    return specials(scaled, bits, bits & u32(MAGNITUDE), (bits & u32(SIGN)) != 0, spec)
