"""An input taken exactly: :class:`ExactReal`, and :func:`to_float`.

The type every exact path speaks: :mod:`~fpexplore.exact.parse` and
:mod:`~fpexplore.exact.decimal_input` make them, :mod:`~fpexplore.exact.rounding`
rounds them. Imports nothing of fpexplore at run time.

>>> from fractions import Fraction
>>> ExactReal(1, Fraction(3, 2)).value
Fraction(-3, 2)
>>> ExactReal(0, None, "inf").to_float()
inf
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # the stand-in's module makes ExactReals: a type-only reference
    from .decimal_input import StandIn

__all__ = ["ExactReal", "to_float"]


class ExactReal(NamedTuple):
    """An input taken exactly: sign bit, then a magnitude, ``inf`` or ``nan``.

    ``magnitude`` is a non-negative Fraction for finite inputs and None for
    inf/NaN. A NaN read from a float carries its ``payload`` (the 52 mantissa
    bits of float64); one spelled in text has payload None and gets the
    format's canonical pattern; ``quiet`` says whether it is a quiet NaN.
    """

    sign: int
    magnitude: Fraction | None
    special: str | None = None  # None, "inf" or "nan"
    payload: int | None = 0
    quiet: bool = True
    given: StandIn | None = None  # the decimal, where ``magnitude`` only stands in for it

    @property
    def is_finite(self) -> bool:
        return self.special is None

    def to_float(self) -> float:
        """The nearest float (inf past float64's range, NaN for NaN)."""
        if self.special == "nan":
            return math.nan
        if self.special == "inf" or self.magnitude is None:
            magnitude = math.inf
        else:
            magnitude = to_float(self.magnitude)
        return -magnitude if self.sign else magnitude

    @property
    def value(self) -> Fraction | None:
        """The signed exact value (None for inf/NaN). -0 is Fraction(0)."""
        if self.magnitude is None:
            return None
        return -self.magnitude if self.sign else self.magnitude


def to_float(x: Fraction) -> float:
    """``float(x)``, correctly rounded, with +-inf instead of OverflowError."""
    try:
        return float(x)
    except OverflowError:  # math.copysign(inf, x) would convert x too
        return math.inf if x > 0 else -math.inf
