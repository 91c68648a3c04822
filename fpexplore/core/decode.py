"""decode() and from_bits(): a number's sign, exponent and mantissa, as :class:`FloatParts`.

The scalar functions round exactly (:mod:`fpexplore.exact`) to a bit pattern,
then read that pattern through the same vectorized kernels
(:mod:`fpexplore.codes`) that :func:`~fpexplore.core.arrays.decode_array` uses on
whole arrays. The module is longer than 300 lines because :class:`FloatParts` is one
job: a value's fields, exact value, errors, flags and neighbours, read together.

Examples
--------
>>> p = decode(3.14159, "float32")
>>> p.sign, p.exponent, p.mantissa
(0, 128, 4788176)
>>> from_bits(0x40490FDB, "float32").value
3.1415927410125732
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from .. import codes as K
from ..codes import Kind
from ..exact import (
    ExactReal,
    StandIn,
    check_overflow,
    check_rounding,
    conversion_flags,
    parse_real,
    quotient,
    ratio,
    round_real,
    to_float,
    ulp_exponent,
)
from ..formats import Format, FormatLike, get_format
from .bits import parse_code

__all__ = ["FloatParts", "decode", "from_bits"]

_KINDS = tuple(Kind)


@dataclass(frozen=True)
class FloatParts:
    """One value of a format, taken apart.

    Attributes
    ----------
    sign, exponent, mantissa : int
        The three bit fields: sign bit, biased exponent field, stored fraction.
    code : int
        The whole bit pattern; ``bits`` is it as a string of 0/1.
    kind : Kind
        ``"zero"``, ``"subnormal"``, ``"normal"``, ``"inf"`` or ``"nan"``.
    value : float
        The stored value as a Python float (exact: every format fits in float64).
    exact : Fraction or None
        The stored value exactly; None for inf and NaN.
    input, input_exact
        The input as given, and its exact value (None for inf/NaN). A float is
        taken at its exact binary value: ``decode(0.1, "float64")`` has zero
        error, ``decode("0.1", "float64")`` about 5.55e-18.
    abs_error, rel_error, ulp_error : float
        ``|stored - input|``, that over ``|input|``, and that in units of the
        format's spacing at the input (at most 0.5 under round-to-nearest).
    flags : frozenset of str
        The IEEE 754 flags of this rounding, by the arithmetic's rules (see
        :mod:`fpexplore.exact.flags`): ``overflow``, ``underflow``, ``inexact``, and
        ``invalid`` where the format has no value for the input; empty for ``from_bits``.
    """

    code: int
    format: Format
    input: Any = None
    input_exact: Fraction | None = None
    rounding: str | None = "nearest_even"  # None: made by from_bits
    _input_special: str | None = field(default=None, repr=False)
    _input_sign: int = field(default=0, repr=False)
    _input_given: StandIn | None = field(default=None, repr=False)

    # -- fields -------------------------------------------------------------------
    @cached_property
    def _fields(self) -> tuple[int, int, int, int]:
        return K.split_code(self.code, self.format)

    @property
    def sign(self) -> int:
        return self._fields[0]

    @property
    def exponent(self) -> int:
        """The biased exponent field as stored (float32 pi: 128)."""
        return self._fields[1]

    @property
    def mantissa(self) -> int:
        """The stored fraction field as an integer (float32 pi: 4788187)."""
        return self._fields[2]

    @property
    def kind(self) -> Kind:
        return _KINDS[self._fields[3]]

    @property
    def bits(self) -> str:
        return format(self.code, f"0{self.format.bits}b")

    @property
    def hex(self) -> str:
        return f"0x{self.code:0{(self.format.bits + 3) // 4}X}"

    @property
    def is_finite(self) -> bool:
        return self.kind not in (Kind.INF, Kind.NAN)

    @property
    def unbiased_exponent(self) -> int | None:
        """The power of two of the leading bit: ``exponent - bias`` (``1 - bias`` for
        subnormals and zero); None for inf/NaN."""
        if not self.is_finite:
            return None
        return self.format.field_exponent(self.exponent)

    @property
    def significand(self) -> Fraction | None:
        """``1.mantissa`` (normal) or ``0.mantissa`` (subnormal) as a Fraction."""
        if not self.is_finite:
            return None
        lead = 1 if self.kind == Kind.NORMAL else 0
        return lead + Fraction(self.mantissa, 2**self.format.mantissa_bits)

    @property
    def quiet(self) -> bool | None:
        """For a NaN: whether it is quiet (top mantissa bit set, IEEE); else None."""
        if self.kind != Kind.NAN:
            return None
        if self.format.nan_encoding != "ieee":
            return True
        return bool(self.mantissa >> (self.format.mantissa_bits - 1))

    @property
    def nan_payload(self) -> int | None:
        """For a NaN: the mantissa bits below the quiet bit; else None."""
        if self.kind != Kind.NAN:
            return None
        if self.format.nan_encoding != "ieee":
            return 0
        return self.mantissa & ((1 << (self.format.mantissa_bits - 1)) - 1)

    # -- values -------------------------------------------------------------------
    @cached_property
    def exact(self) -> Fraction | None:
        significand, exponent = self.significand, self.unbiased_exponent
        if significand is None or exponent is None:  # inf or NaN
            return None
        magnitude = significand * Fraction(2) ** exponent
        return -magnitude if self.sign else magnitude

    @property
    def value(self) -> float:
        if self.kind == Kind.NAN:
            return math.nan
        if self.kind == Kind.INF:
            return -math.inf if self.sign else math.inf
        assert self.exact is not None  # finite
        return -float(abs(self.exact)) if self.sign else float(abs(self.exact))

    @property
    def ulp(self) -> float:
        """Spacing of the format at the stored value (upwards in magnitude);
        the smallest subnormal at zero; NaN for inf/NaN."""
        if not self.is_finite:
            return math.nan
        exponent = self.format.field_exponent(self.exponent) - self.format.mantissa_bits
        return math.ldexp(1.0, exponent)

    # -- errors -------------------------------------------------------------------
    @cached_property
    def error(self) -> Fraction | None:
        """Signed exact error ``stored - input``; None unless both are finite."""
        if self.exact is None or self.input_exact is None:
            return None
        return self.exact - self.input_exact

    @property
    def abs_error(self) -> float:
        if self.error is not None:
            return to_float(abs(self.error))
        if self.kind == Kind.NAN or self._input_special == "nan":
            return math.nan
        if self.kind == Kind.INF and self._input_special == "inf":
            return 0.0 if self.sign == self._input_sign else math.inf
        return math.inf

    @property
    def rel_error(self) -> float:
        if self.error is None or self.input_exact is None:
            return self.abs_error if self.abs_error != 0 else 0.0
        if self.input_exact == 0:
            return 0.0 if self.error == 0 else math.inf
        given = self._input_given
        if given is not None and given.kind == "long":  # x lies in (t, t + 10**-2200)
            return given.relative(abs(self.exact or Fraction(0)), abs(self.input_exact))
        return ratio(self.error, self.input_exact)

    @property
    def ulp_error(self) -> float:
        if self.error is None or self.input_exact is None:
            return self.abs_error if self.abs_error != 0 else 0.0
        given = self._input_given
        if given is not None and given.kind == "huge":  # |x - stored| ~ x: far beyond max
            return given.ulps(self.format.mantissa_bits)
        if self.input_exact == 0:
            shift = self.format.emin - self.format.mantissa_bits
        else:
            shift = ulp_exponent(abs(self.input_exact), self.format)
        error = abs(self.error)
        return quotient(error.numerator << max(-shift, 0), error.denominator << max(shift, 0))

    @cached_property
    def flags(self) -> frozenset[str]:
        if self.rounding is None:  # a bit pattern: nothing was rounded
            return frozenset()
        magnitude = None if self.input_exact is None else abs(self.input_exact)
        given = ExactReal(self._input_sign, magnitude, self._input_special)
        return conversion_flags(given, self.code, self.format, self.rounding)

    # -- neighbours ---------------------------------------------------------------
    def next_up(self) -> FloatParts:
        """The next representable value above (IEEE nextUp); see
        :func:`fpexplore.codes.next_up_codes` for the edges. From an infinite input
        that the format cannot hold, the step starts at the input (as
        :func:`fpexplore.next_up` does): from -inf it is -max."""
        return self._step(K.next_up_codes, 1)

    def next_down(self) -> FloatParts:
        """The next representable value below (IEEE nextDown); from +inf, +max."""
        return self._step(K.next_down_codes, 0)

    def _step(self, step: Any, start_sign: int) -> FloatParts:
        fmt, code = self.format, self.code
        if self._input_special == "inf" and not fmt.has_infinity:
            from .error import next_down, next_up  # the rule of the values (E8M0's -inf too)

            given = -math.inf if self._input_sign else math.inf
            value = (next_up if start_sign else next_down)(given, fmt)
            code = int(K.round_codes([float(value)], fmt)[0])
        else:
            code = int(step([code], fmt)[0])
        return from_bits(code, fmt)

    # -- rendering ----------------------------------------------------------------
    def __str__(self) -> str:
        from ..render.text import parts_text

        return parts_text(self)

    def __repr__(self) -> str:
        return (
            f"FloatParts({self.format.name}, sign={self.sign}, exponent={self.exponent}, "
            f"mantissa={self.mantissa}, {self.hex}, {self.kind.value}, value={self.value!r})"
        )

    def _repr_html_(self) -> str:
        from ..render.html import parts_html

        return parts_html(self)


def decode(
    x: Any,
    fmt: FormatLike = "float64",
    rounding: str = "nearest_even",
    *,
    overflow: str | None = None,
) -> FloatParts:
    """Round ``x`` exactly into ``fmt`` and take the result apart.

    Parameters
    ----------
    x : int, float, str, Fraction, Decimal or numpy scalar
        Taken exactly: a float at its binary value, a string such as ``"0.1"``
        at its decimal value, with no rounding before the one into ``fmt``.
    fmt : str, Format or dtype
        Target format (see :func:`fpexplore.get_format`).
    rounding : str
        ``nearest_even`` (default), ``nearest_away``, ``toward_zero``, ``up``
        or ``down``.
    overflow : None or "saturate"
        None follows the format (IEEE: inf; float8_e4m3fn: NaN; FP6/FP4:
        saturate); ``"saturate"`` clamps to +-max.

    Examples
    --------
    >>> decode("0.1", "float32").abs_error
    1.4901161193847657e-09
    >>> decode(0.1, "float64").abs_error
    0.0
    >>> decode(70000, "float16").kind, sorted(decode(70000, "float16").flags)
    (<Kind.INF: 'inf'>, ['inexact', 'overflow'])
    >>> decode("0.1", "float16", "up").value  # rounding: positional or keyword
    0.10003662109375
    """
    fmt = get_format(fmt)
    check_rounding(rounding, allow_stochastic=False)
    check_overflow(overflow)
    exact = parse_real(x)
    code = round_real(exact, fmt, rounding, overflow)
    return FloatParts(code, fmt, x, exact.value, rounding, exact.special, exact.sign, exact.given)


def from_bits(code: Any, fmt: FormatLike) -> FloatParts:
    """Decode a bit pattern of ``fmt``.

    Examples
    --------
    >>> p = from_bits("0 10000000 10010010000111111011011", "float32")
    >>> p.sign, p.exponent, p.mantissa
    (0, 128, 4788187)
    >>> from_bits("0x7E00", "float16").kind
    <Kind.NAN: 'nan'>
    """
    fmt = get_format(fmt)
    value = parse_code(code, fmt)
    parts = FloatParts(value, fmt)
    exact = parts.exact
    special = None if exact is not None else parts.kind.value
    return FloatParts(value, fmt, code, exact, None, special, parts.sign)
