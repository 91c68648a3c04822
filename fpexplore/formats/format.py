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
from typing import Any

from .encoding import NAN_ENCODINGS, Encoding, NanEncoding
from .names import ALIASES, CATALOGUE, Params, dtype_of
from .validation import check_format

__all__ = ["Format", "NanEncoding"]


@dataclass(frozen=True, init=False)
class Format(Encoding):
    """A binary floating-point format: a sign bit (or none), exponent bits, mantissa bits.

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
    nan_encoding : {"ieee", "fn", "none", "fnuz", "p3109"}
        Where the special values live (see :mod:`fpexplore.formats.encoding`):
        ``"ieee"`` inf and NaNs in the all-ones exponent field; ``"fn"`` no
        inf, only the all-ones pattern is NaN (``float8_e4m3fn``); ``"none"``
        every pattern finite (FP6, FP4); ``"fnuz"`` no inf, no -0, one NaN at
        the code of -0 (``float8_e4m3fnuz``); ``"p3109"`` like fnuz with +-inf
        at the top codes (IEEE P3109 binary8).
    is_signed : bool
        False for a format with no sign bit (E8M0, ``float8_e8m0fnu``); its
        negative inputs round to NaN, so it needs ``nan_encoding="fn"``.
    has_subnormals : bool
        False for a format whose lowest exponent field holds normal numbers, so
        that it has no zero (E8M0: code 0 is ``2**-127``). Only unsigned formats
        may lack subnormals (a signed one would have values on both sides of a
        missing zero).

    Raises
    ------
    ValueError
        For parameters that make no format every function handles: fields out
        of range, no finite nonzero value, values beyond float64's range, a
        tabulated encoding (fnuz, P3109, unsigned, no subnormals or no mantissa
        bits) wider than 16 bits. The message says which rule failed.

    Notes
    -----
    Every value of every supported format is exactly representable as a
    float64, which is what lets the vectorized kernels work on float64 arrays.
    Codes are laid out sign | exponent | mantissa, most significant bit first.

    The derived properties are named as :class:`numpy.finfo` names them, and
    agree with numpy and ml_dtypes attribute by attribute, with one deliberate
    difference: ``precision`` is ``floor(-log10(eps))``, numpy's definition, so
    it is 0 for every FP8 format, where ``ml_dtypes.finfo`` reports 1 (and
    ``resolution`` follows ``precision``).

    Examples
    --------
    >>> e8m0 = Format("e8m0", 8, 0, 127, "fn", is_signed=False, has_subnormals=False)
    >>> e8m0.bits, e8m0.min, e8m0.max == 2.0**127, e8m0.has_zero
    (8, 5.877471754111438e-39, True, False)
    >>> Format("s8m0", 8, 0, 127, "fn").max == 2.0**127  # signed, zero and 2**-126 ...
    True
    >>> Format("x", 1, 0, nan_encoding="fn")
    Traceback (most recent call last):
    ...
    ValueError: format 'x' has no finite nonzero value: its 'fn' encoding spends every \
nonzero pattern on infinity or NaN
    """

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int  # resolved from None to the IEEE value by the constructor
    nan_encoding: NanEncoding = "ieee"
    is_signed: bool = True
    has_subnormals: bool = True

    def __init__(
        self,
        name: str,
        exponent_bits: int,
        mantissa_bits: int,
        bias: int | None = None,
        nan_encoding: NanEncoding = "ieee",
        is_signed: bool = True,
        has_subnormals: bool = True,
    ) -> None:
        values = (name, exponent_bits, mantissa_bits, bias, nan_encoding, is_signed, has_subnormals)
        for field, value in zip(fields(self), values, strict=True):
            object.__setattr__(self, field.name, value)  # frozen: set as the dataclass would
        self.__post_init__()  # checks the fields and resolves bias=None

    def __post_init__(self) -> None:
        for field in ("exponent_bits", "mantissa_bits"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{field} must be an int, got {value!r}")
        for field in ("is_signed", "has_subnormals"):
            if not isinstance(getattr(self, field), bool):
                raise TypeError(f"{field} must be True or False, got {getattr(self, field)!r}")
        if not 1 <= self.exponent_bits <= 11:
            raise ValueError(f"exponent_bits must be in 1..11, got {self.exponent_bits}")
        if not 0 <= self.mantissa_bits <= 52:
            raise ValueError(f"mantissa_bits must be in 0..52, got {self.mantissa_bits}")
        if self.nan_encoding not in NAN_ENCODINGS:
            raise ValueError(
                f"nan_encoding must be one of {NAN_ENCODINGS}, got {self.nan_encoding!r}"
            )
        if self.bias is None:  # None until resolved here
            object.__setattr__(self, "bias", 2 ** (self.exponent_bits - 1) - 1)
        elif not isinstance(self.bias, int) or isinstance(self.bias, bool):
            raise TypeError(f"bias must be an int, got {self.bias!r}")
        check_format(self)

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
            name = f"e{exponent_bits}m{mantissa_bits}"
            known = ALIASES.get(name, name)
            if known in CATALOGUE:  # "e5m2" is float8_e5m2; "e4m3" means float8_e4m3fn
                same = CATALOGUE[known] == cls(known, exponent_bits, mantissa_bits).params
                name = known if same else f"ieee_{name}"
        return cls(name, exponent_bits, mantissa_bits)

    def _replace(self, **changes: Any) -> Format:
        params: dict[str, Any] = {
            "name": self.name,
            "exponent_bits": self.exponent_bits,
            "mantissa_bits": self.mantissa_bits,
            "bias": self.bias,
            "nan_encoding": self.nan_encoding,
            "is_signed": self.is_signed,
            "has_subnormals": self.has_subnormals,
        }
        params.update(changes)
        return Format(**params)

    @property
    def params(self) -> Params:
        """The primary parameters after the name, in the constructor's order
        (``Format(name, *fmt.params) == fmt``).

        >>> from fpexplore import get_format
        >>> get_format("e4m3").params
        (4, 3, 7, 'fn', True, True)
        """
        return (
            self.exponent_bits,
            self.mantissa_bits,
            self.bias,
            self.nan_encoding,
            self.is_signed,
            self.has_subnormals,
        )

    # -- widths -------------------------------------------------------------------
    @property
    def nexp(self) -> int:
        """Exponent field width, as numpy.finfo names it."""
        return self.exponent_bits

    iexp = nexp

    @property
    def nmant(self) -> int:
        """Mantissa field width, as numpy.finfo names it."""
        return self.mantissa_bits

    # -- exponents ----------------------------------------------------------------
    @property
    def emax(self) -> int:
        """Unbiased exponent of the largest binade (float32: 127)."""
        return self.max_exponent_field - self.bias

    @property
    def emin(self) -> int:
        """Unbiased exponent of the smallest normal binade: ``1 - bias`` (float32: -126);
        ``-bias`` in a format without subnormals (E8M0: -127)."""
        return self.field_exponent(0 if not self.has_subnormals else 1)

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
    def max(self) -> float:
        """Largest finite value (float16: 65504.0; float8_e4m3fn: 448.0)."""
        significand = (1 << self.mantissa_bits) + self.max_mantissa
        return math.ldexp(significand, self.emax - self.mantissa_bits)

    @property
    def min(self) -> float:
        """Most negative finite value: ``-max``; in an unsigned format the smallest
        value (0, or E8M0's ``2**-127``), as ml_dtypes.finfo and gfloat give it."""
        if self.is_signed:
            return -self.max
        return self.smallest_subnormal if not self.has_zero else 0.0

    @property
    def smallest_normal(self) -> float:
        """Smallest positive normal value: ``2**emin`` (float32: 2**-126). Alias ``tiny``."""
        return math.ldexp(1.0, self.emin)

    tiny = smallest_normal

    @property
    def smallest_subnormal(self) -> float:
        """Smallest positive value: ``2**(emin - mantissa_bits)`` (float16: 2**-24);
        ``smallest_normal`` in a format without subnormals, as ml_dtypes.finfo."""
        if not self.has_subnormals:
            return self.smallest_normal
        return math.ldexp(1.0, self.emin - self.mantissa_bits)

    @property
    def precision(self) -> int:
        """Approximate decimal digits of precision, as numpy.finfo: ``floor(-log10(eps))``.

        A deliberate difference from ``ml_dtypes.finfo``, which reports 1 for every
        FP8 format (and E8M0): by numpy's definition they have 0 (eps 0.125 gives
        ``-log10(eps)`` = 0.9), and ``resolution`` follows.
        """
        return math.floor(-math.log10(self.eps))

    @property
    def resolution(self) -> Any:
        """``10**-precision``, as numpy.finfo gives it: rounded to the format's own
        dtype where there is one (numpy or ml_dtypes; see :attr:`dtype`), else a float.

        Examples
        --------
        >>> from fpexplore import get_format
        >>> get_format("float16").resolution
        np.float16(0.001)
        >>> get_format("tf32").resolution
        0.001
        """
        dtype = self.dtype
        value = 10.0**-self.precision
        return value if dtype is None else dtype.type(value)

    @property
    def dtype(self) -> Any:
        """The numpy or ml_dtypes dtype that stores this format, or None.

        numpy's float16/32/64 always; ml_dtypes' types (bfloat16, every FP8, FP6,
        FP4 and E8M0) when ml_dtypes is installed. Only the catalogue's own formats
        have one (a custom format named ``"float16"`` with other fields has none).

        Examples
        --------
        >>> from fpexplore import get_format
        >>> get_format("float32").dtype
        dtype('float32')
        >>> print(get_format("tf32").dtype)
        None
        """
        return dtype_of(self.name, self.params)

    # -- rendering ----------------------------------------------------------------
    def __str__(self) -> str:
        return self.name

    def _repr_html_(self) -> str:
        # Lazy, the one upward import of formats/: render/ is built on formats/, core/ and
        # exact/, so importing it at the top would make the bottom layer import them all.
        from ..render.comparison import format_html

        return format_html(self)
