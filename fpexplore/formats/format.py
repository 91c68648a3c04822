"""Binary floating-point formats as data.

A :class:`Format` holds a handful of primary parameters (exponent and mantissa
widths, bias, how infinities and NaNs are encoded); every other quantity is
derived from them and named as :class:`numpy.finfo` names it, so the two can
be compared attribute by attribute. One job, the model and what follows from it,
which makes the module longer than most.

Examples
--------
>>> from fpexplore import get_format
>>> f16 = get_format("half")
>>> f16.bits, f16.bias, f16.max, f16.eps
(16, 15, 65504.0, 0.0009765625)
>>> get_format("e4m3").max
448.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal

__all__ = ["Format", "NanEncoding"]

NanEncoding = Literal["ieee", "fn", "none"]
_NAN_ENCODINGS = ("ieee", "fn", "none")


@dataclass(frozen=True, init=False)
class Format:
    """A binary floating-point format: 1 sign bit, exponent bits, mantissa bits.

    Parameters
    ----------
    name : str
        Catalogue name, e.g. ``"float16"``.
    exponent_bits : int
        Width of the biased exponent field (1 to 11).
    mantissa_bits : int
        Width of the stored fraction field (0 to 52); the significand has one
        more (implicit) bit.
    bias : int, optional
        Exponent bias; defaults to the IEEE value ``2**(exponent_bits - 1) - 1``.
    nan_encoding : {"ieee", "fn", "none"}
        ``"ieee"``: the all-ones exponent holds the infinities (mantissa 0) and
        the NaNs (mantissa != 0), as in IEEE 754.
        ``"fn"`` (finite, NaN): no infinities; only the all-ones pattern
        ``S.1111.111`` is NaN and the rest of the top binade holds finite
        values (OCP FP8 E4M3, ``float8_e4m3fn``).
        ``"none"``: every pattern is a finite number (OCP MX FP6 and FP4).

    Notes
    -----
    Every value of every supported format is exactly representable as a
    float64, which is what lets the vectorized kernels work on float64 arrays.
    Codes are laid out sign | exponent | mantissa, most significant bit first.
    """

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int  # resolved from None to the IEEE value by the constructor
    nan_encoding: NanEncoding = "ieee"

    def __init__(
        self,
        name: str,
        exponent_bits: int,
        mantissa_bits: int,
        bias: int | None = None,
        nan_encoding: NanEncoding = "ieee",
    ) -> None:
        values = (name, exponent_bits, mantissa_bits, bias, nan_encoding)
        for field, value in zip(fields(self), values, strict=True):
            object.__setattr__(self, field.name, value)  # frozen: set as the dataclass would
        self.__post_init__()  # checks the fields and resolves bias=None

    def __post_init__(self) -> None:
        for field in ("exponent_bits", "mantissa_bits"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{field} must be an int, got {value!r}")
        if not 1 <= self.exponent_bits <= 11:
            raise ValueError(f"exponent_bits must be in 1..11, got {self.exponent_bits}")
        if not 0 <= self.mantissa_bits <= 52:
            raise ValueError(f"mantissa_bits must be in 0..52, got {self.mantissa_bits}")
        if self.nan_encoding not in _NAN_ENCODINGS:
            raise ValueError(
                f"nan_encoding must be one of {_NAN_ENCODINGS}, got {self.nan_encoding!r}"
            )
        if self.bias is None:  # None until resolved here
            object.__setattr__(self, "bias", 2 ** (self.exponent_bits - 1) - 1)
        elif not isinstance(self.bias, int) or isinstance(self.bias, bool):
            raise TypeError(f"bias must be an int, got {self.bias!r}")
        if self.nan_encoding == "ieee" and (self.exponent_bits < 2 or self.mantissa_bits < 1):
            raise ValueError(
                "an IEEE-style format needs at least 2 exponent bits and 1 mantissa bit, "
                f"got exponent_bits={self.exponent_bits}, mantissa_bits={self.mantissa_bits}"
            )
        if self.nan_encoding == "fn" and self.exponent_bits + self.mantissa_bits < 2:
            raise ValueError("a finite-NaN ('fn') format needs at least 2 non-sign bits")
        if self.emax > 1023 or self.emin - self.mantissa_bits < -1074:
            raise ValueError(
                f"format {self.name!r} reaches beyond float64's range "
                f"(emax={self.emax}, smallest exponent {self.emin - self.mantissa_bits}); "
                "fpexplore supports formats whose values all fit in float64"
            )

    # -- constructors -------------------------------------------------------------
    @classmethod
    def ieee_like(cls, exponent_bits: int, mantissa_bits: int, name: str | None = None) -> Format:
        """An IEEE 754-style format with infinities, NaNs and subnormals.

        Examples
        --------
        >>> from fpexplore import get_format
        >>> Format.ieee_like(5, 10) == get_format("float16")._replace(name="e5m10")
        True
        >>> Format.ieee_like(3, 4).max
        15.5
        >>> Format.ieee_like(4, 3).name  # "e4m3" is the alias of float8_e4m3fn
        'ieee_e4m3'
        >>> get_format("ieee_e4m3").max
        240.0
        """
        if name is None:
            from .catalogue import _ALIASES, FORMATS  # the catalogue is built from this class

            name = f"e{exponent_bits}m{mantissa_bits}"
            known = FORMATS.get(_ALIASES.get(name, name))
            if known is not None:  # "e5m2" is float8_e5m2; "e4m3" means float8_e4m3fn
                same = known == cls(known.name, exponent_bits, mantissa_bits)
                name = known.name if same else f"ieee_{name}"
        return cls(name, exponent_bits, mantissa_bits)

    def _replace(self, **changes: Any) -> Format:
        params: dict[str, Any] = {
            "name": self.name,
            "exponent_bits": self.exponent_bits,
            "mantissa_bits": self.mantissa_bits,
            "bias": self.bias,
            "nan_encoding": self.nan_encoding,
        }
        params.update(changes)
        return Format(**params)

    # -- widths -------------------------------------------------------------------
    @property
    def bits(self) -> int:
        """Total width: ``1 + exponent_bits + mantissa_bits`` (float16: 16)."""
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def nexp(self) -> int:
        """Exponent field width, as numpy.finfo names it."""
        return self.exponent_bits

    @property
    def nmant(self) -> int:
        """Mantissa field width, as numpy.finfo names it."""
        return self.mantissa_bits

    @property
    def has_infinity(self) -> bool:
        """Whether +-inf are encoded (IEEE formats only)."""
        return self.nan_encoding == "ieee"

    @property
    def has_nan(self) -> bool:
        """Whether any NaN pattern exists (not in OCP MX FP6/FP4)."""
        return self.nan_encoding != "none"

    # -- exponents ----------------------------------------------------------------
    @property
    def max_exponent_field(self) -> int:
        """Largest biased exponent field of a finite value."""
        top = (1 << self.exponent_bits) - 1
        return top - 1 if self.nan_encoding == "ieee" else top

    @property
    def emax(self) -> int:
        """Unbiased exponent of the largest binade (float32: 127)."""
        return self.max_exponent_field - self.bias

    @property
    def emin(self) -> int:
        """Unbiased exponent of the smallest normal binade: ``1 - bias`` (float32: -126)."""
        return 1 - self.bias

    @property
    def maxexp(self) -> int:
        """Smallest positive power of two that overflows: ``emax + 1`` (float16: 16)."""
        return self.emax + 1

    @property
    def minexp(self) -> int:
        """Exponent of the smallest normal number: ``emin`` (float16: -14)."""
        return self.emin

    @property
    def machep(self) -> int:
        """Exponent of eps: ``-mantissa_bits`` (float64: -52)."""
        return max(0, self.emin) - self.mantissa_bits

    @property
    def negep(self) -> int:
        """Exponent of epsneg: ``-mantissa_bits - 1`` (see epsneg)."""
        return max(-1, self.emin) - self.mantissa_bits

    # -- values -------------------------------------------------------------------
    @property
    def eps(self) -> float:
        """Gap between 1.0 and the next larger value: ``2**-mantissa_bits`` (float64: 2**-52)."""
        return math.ldexp(1.0, max(0, self.emin) - self.mantissa_bits)

    @property
    def epsneg(self) -> float:
        """Gap between 1.0 and the next smaller value: ``2**-(mantissa_bits+1)``, or
        ``eps`` when 1.0 is the smallest normal (float6_e2m3fn, float4_e2m1fn)."""
        return math.ldexp(1.0, max(-1, self.emin) - self.mantissa_bits)

    @property
    def max_mantissa(self) -> int:
        """Mantissa field of the largest finite value (one less in 'fn' formats)."""
        top = (1 << self.mantissa_bits) - 1
        return top - 1 if self.nan_encoding == "fn" else top

    @property
    def max(self) -> float:
        """Largest finite value (float16: 65504.0; float8_e4m3fn: 448.0)."""
        significand = (1 << self.mantissa_bits) + self.max_mantissa
        return math.ldexp(significand, self.emax - self.mantissa_bits)

    @property
    def min(self) -> float:
        """Most negative finite value: ``-max``."""
        return -self.max

    @property
    def smallest_normal(self) -> float:
        """Smallest positive normal value: ``2**emin`` (float32: 2**-126). Alias ``tiny``."""
        return math.ldexp(1.0, self.emin)

    tiny = smallest_normal

    @property
    def smallest_subnormal(self) -> float:
        """Smallest positive value: ``2**(emin - mantissa_bits)`` (float16: 2**-24)."""
        return math.ldexp(1.0, self.emin - self.mantissa_bits)

    @property
    def precision(self) -> int:
        """Approximate decimal digits of precision, as numpy.finfo: ``floor(-log10(eps))``."""
        return math.floor(-math.log10(self.eps))

    @property
    def resolution(self) -> float:
        """``10**-precision``, as numpy.finfo."""
        return 10.0**-self.precision

    # -- codes and counts ---------------------------------------------------------
    @property
    def sign_mask(self) -> int:
        """Code with only the sign bit set."""
        return 1 << (self.bits - 1)

    @property
    def max_code(self) -> int:
        """Code of +max."""
        return (self.max_exponent_field << self.mantissa_bits) | self.max_mantissa

    @property
    def inf_code(self) -> int | None:
        """Code of +inf, or None when the format has no infinities."""
        if not self.has_infinity:
            return None
        return ((1 << self.exponent_bits) - 1) << self.mantissa_bits

    @property
    def nan_code(self) -> int | None:
        """Code of the canonical (quiet, positive) NaN, or None when there is none."""
        top = (1 << self.exponent_bits) - 1
        if self.nan_encoding == "ieee":
            return (top << self.mantissa_bits) | (1 << (self.mantissa_bits - 1))
        if self.nan_encoding == "fn":
            return (top << self.mantissa_bits) | ((1 << self.mantissa_bits) - 1)
        return None

    @property
    def n_codes(self) -> int:
        """Number of bit patterns: ``2**bits``."""
        return 1 << self.bits

    @property
    def n_nan(self) -> int:
        """Number of NaN bit patterns (both signs)."""
        if self.nan_encoding == "ieee":
            return 2 * ((1 << self.mantissa_bits) - 1)
        return 2 if self.nan_encoding == "fn" else 0

    @property
    def n_inf(self) -> int:
        """Number of infinite bit patterns (2 or 0)."""
        return 2 if self.has_infinity else 0

    @property
    def n_finite_codes(self) -> int:
        """Number of bit patterns holding finite values (+0 and -0 both counted)."""
        return self.n_codes - self.n_nan - self.n_inf

    @property
    def n_finite(self) -> int:
        """Number of distinct finite values (zero counted once)."""
        return self.n_finite_codes - 1

    # -- rendering ----------------------------------------------------------------
    def __str__(self) -> str:
        return self.name

    def _repr_html_(self) -> str:
        from ..render.comparison import format_html  # the documented upward import

        return format_html(self)
