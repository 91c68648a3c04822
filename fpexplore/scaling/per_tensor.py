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

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import codes as K
from ..formats import Format, FormatLike, get_format

__all__ = ["DelayedScaling", "ScaledTensor", "amax_of", "compute_scale", "scale_per_tensor"]

RECIPES = ("current", "delayed")
_F32_MAX_POW2 = 2.0**127


def amax_of(x: Any) -> float:
    """The largest finite magnitude of ``x`` (0.0 if it has none)."""
    a = np.abs(K._real_array(x))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size else 0.0


def compute_scale(
    amax: float, fmt: FormatLike, *, margin: int = 0, power_of_two: bool = False
) -> float:  # fmt: skip
    """The per-tensor scale ``max / amax / 2**margin`` as a float32 value.

    1.0 for an amax of 0 or a non-finite amax (nothing to scale by); at most
    ``2**127`` for a tiny amax. ``power_of_two=True`` rounds the scale down to a
    power of two, so that scaling and unscaling are exact.

    >>> compute_scale(3.0, "float8_e4m3fn", power_of_two=True)
    128.0
    """
    fmt = get_format(fmt)
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"margin must be an int, got {margin!r}")
    if not np.isfinite(amax) or amax < 0:
        raise ValueError(f"amax must be finite and >= 0, got {amax!r}")
    if amax == 0:
        return 1.0
    scale = min(fmt.max / amax * 2.0**-margin, _F32_MAX_POW2)
    if power_of_two:
        return float(2.0 ** (np.frexp(scale)[1] - 1))
    return float(np.float32(scale))


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
) -> ScaledTensor:
    """Scale ``x`` by its amax, round it into ``fmt``, unscale it.

    Parameters
    ----------
    x : array_like of real numbers
    fmt : format spec
    rounding : rounding mode of the scaled values.
    recipe : "current" or "delayed"
        ``current`` takes the amax of ``x``; ``delayed`` the largest of
        ``amax_history`` (the amaxes of previous steps).
    margin, power_of_two : see :func:`compute_scale`.
    overflow : "saturate" (default, as FP8 training casts) or None (the format's
        own convention: inf or NaN).

    Notes
    -----
    ``x * scale`` is computed in float64: exact for float32 ``x`` (24 by 24
    significand bits), so a float32 tensor is rounded once. ``values`` is
    the float64 quotient ``scaled / scale``, correctly rounded.

    >>> t = scale_per_tensor([1.0, 50.0], "float8_e4m3fn", recipe="delayed",
    ...                      amax_history=[10.0, 20.0])
    >>> t.amax, t.values[1]  # 50 grew past the history: it saturates at 448 / s
    (20.0, np.float64(20.000000340597975))
    """
    fmt = get_format(fmt)
    arr = K._real_array(x)
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(RECIPES)}")
    if recipe == "current":
        amax = amax_of(arr)
    else:
        history = [float(a) for a in (amax_history or [])]
        if not history:
            raise ValueError("the delayed recipe needs a non-empty amax_history")
        amax = max(history)
    scale = compute_scale(amax, fmt, margin=margin, power_of_two=power_of_two)
    with np.errstate(over="ignore", invalid="ignore"):
        product = arr.astype(np.float64) * scale
    scaled = K.round_values(product, fmt, rounding, overflow=overflow)
    return ScaledTensor(fmt, recipe, amax, scale, arr, scaled, scaled / scale)


class DelayedScaling:
    """The delayed recipe over training steps: each call scales a tensor by the
    amax history of the calls before it, then records the tensor's own amax.

    >>> d = DelayedScaling("float8_e4m3fn", history_len=2)
    >>> [float(d(np.array([a])).amax) for a in (1.0, 4.0, 2.0, 0.5)]
    [1.0, 1.0, 4.0, 4.0]
    """

    def __init__(self, fmt: FormatLike, *, history_len: int = 16, margin: int = 0) -> None:
        if isinstance(history_len, bool) or not isinstance(history_len, int) or history_len < 1:
            raise ValueError(f"history_len must be a positive int, got {history_len!r}")
        self.format = get_format(fmt)
        self.margin = margin
        self.history: deque[float] = deque(maxlen=history_len)

    def __call__(self, x: Any) -> ScaledTensor:
        """Scale ``x`` by the history (by its own amax on the first call)."""
        current = amax_of(x)
        history = list(self.history) or [current]
        result = scale_per_tensor(
            x, self.format, recipe="delayed", amax_history=history, margin=self.margin
        )
        self.history.append(current)
        return result
