"""Where a format keeps its special values: the codes of zero, infinity, NaN and
the largest finite value, and how many codes of each kind there are.

Five encodings are modelled (the ``nan_encoding`` of a :class:`~fpexplore.Format`):

``"ieee"``
    IEEE 754: the all-ones exponent field holds +-inf (mantissa 0) and NaNs
    (mantissa not 0); +0 and -0.
``"fn"``
    Finite with NaN (OCP FP8 E4M3, ``float8_e4m3fn``): no infinities; only the
    all-ones pattern of each sign is NaN. Unsigned E8M0 (``float8_e8m0fnu``)
    uses it too: its one NaN is ``0xFF``.
``"none"``
    Every pattern is a finite number (OCP MX FP6 and FP4).
``"fnuz"``
    Finite, NaN, unsigned zero (``float8_e4m3fnuz``, ``float8_e5m2fnuz``,
    ``float8_e4m3b11fnuz``): no infinities, no negative zero; the code of -0
    (sign bit alone, ``0x80``) is the single NaN.
``"p3109"``
    IEEE P3109 binary8 (extended domain): one NaN at the code of -0 (``0x80``),
    no negative zero, +inf and -inf at the top codes of each sign (``0x7F``,
    ``0xFF``).

Examples
--------
>>> from fpexplore import get_format
>>> fnuz = get_format("float8_e4m3fnuz")
>>> hex(fnuz.nan_code), fnuz.inf_code, fnuz.has_negative_zero, fnuz.n_finite
('0x80', None, False, 255)
>>> p3 = get_format("p3109_p3")
>>> hex(p3.inf_code), hex(p3.max_code), p3.n_nan, p3.n_inf
('0x7f', '0x7e', 1, 2)
"""

from __future__ import annotations

from typing import Literal

__all__ = ["NAN_ENCODINGS", "Encoding", "NanEncoding"]

NanEncoding = Literal["ieee", "fn", "none", "fnuz", "p3109"]
NAN_ENCODINGS = ("ieee", "fn", "none", "fnuz", "p3109")

_NAN_AT_MINUS_ZERO = ("fnuz", "p3109")


class Encoding:
    """The special-value rules of a format, computed from its parameters.

    A mixin of :class:`~fpexplore.Format`, which supplies ``exponent_bits``,
    ``mantissa_bits``, ``nan_encoding``, ``is_signed`` and ``has_subnormals``.
    """

    exponent_bits: int
    mantissa_bits: int
    nan_encoding: str
    is_signed: bool
    has_subnormals: bool

    # -- widths -------------------------------------------------------------------
    @property
    def bits(self) -> int:
        """Total width: sign bit (if any) + exponent + mantissa (float16: 16)."""
        return int(self.is_signed) + self.exponent_bits + self.mantissa_bits

    @property
    def _magnitude_codes(self) -> int:
        """Number of patterns of the exponent and mantissa fields together."""
        return 1 << (self.exponent_bits + self.mantissa_bits)

    # -- what exists ----------------------------------------------------------------
    @property
    def has_infinity(self) -> bool:
        """Whether +-inf are encoded (IEEE and P3109 formats)."""
        return self.nan_encoding in ("ieee", "p3109")

    @property
    def has_nan(self) -> bool:
        """Whether any NaN pattern exists (not in OCP MX FP6/FP4)."""
        return self.nan_encoding != "none"

    @property
    def has_zero(self) -> bool:
        """Whether zero is a value (not in E8M0, whose lowest code is ``2**-127``).

        A format without subnormals has no zero: its lowest exponent field holds
        normal numbers."""
        return self.has_subnormals

    @property
    def has_negative_zero(self) -> bool:
        """Whether -0 is encoded (not in unsigned, fnuz and P3109 formats)."""
        return self.is_signed and self.has_zero and self.nan_encoding not in _NAN_AT_MINUS_ZERO

    # -- codes ----------------------------------------------------------------------
    @property
    def sign_mask(self) -> int:
        """Code with only the sign bit set (0 in unsigned formats)."""
        return 1 << (self.bits - 1) if self.is_signed else 0

    @property
    def max_code(self) -> int:
        """Code of +max (the largest finite value)."""
        top = self._magnitude_codes - 1  # all ones below the sign bit
        if self.nan_encoding == "ieee":
            return top - (1 << self.mantissa_bits)  # the exponent field below all ones
        if self.nan_encoding in ("fn", "p3109"):
            return top - 1  # the all-ones pattern is NaN (fn) or inf (p3109)
        return top

    @property
    def max_exponent_field(self) -> int:
        """Biased exponent field of +max."""
        return self.max_code >> self.mantissa_bits

    @property
    def max_mantissa(self) -> int:
        """Mantissa field of +max (all ones in IEEE formats, one less in 'fn' ones)."""
        return self.max_code & ((1 << self.mantissa_bits) - 1)

    @property
    def inf_code(self) -> int | None:
        """Code of +inf, or None when the format has no infinities."""
        if self.nan_encoding == "ieee":
            return ((1 << self.exponent_bits) - 1) << self.mantissa_bits
        if self.nan_encoding == "p3109":
            return self._magnitude_codes - 1
        return None

    @property
    def nan_code(self) -> int | None:
        """Code of the canonical (quiet, positive) NaN, or None when there is none."""
        if self.nan_encoding == "ieee":
            return self.inf_code | (1 << (self.mantissa_bits - 1))  # type: ignore[operator]
        if self.nan_encoding == "fn":
            return self._magnitude_codes - 1
        if self.nan_encoding in _NAN_AT_MINUS_ZERO:
            return self.sign_mask
        return None

    # -- counts ---------------------------------------------------------------------
    @property
    def n_codes(self) -> int:
        """Number of bit patterns: ``2**bits``."""
        return 1 << self.bits

    @property
    def n_nan(self) -> int:
        """Number of NaN bit patterns (both signs)."""
        signs = 2 if self.is_signed else 1
        if self.nan_encoding == "ieee":
            return signs * ((1 << self.mantissa_bits) - 1)
        if self.nan_encoding == "fn":
            return signs
        return 1 if self.nan_encoding in _NAN_AT_MINUS_ZERO else 0

    @property
    def n_inf(self) -> int:
        """Number of infinite bit patterns (2 or 0)."""
        return (2 if self.is_signed else 1) if self.has_infinity else 0

    @property
    def n_finite_codes(self) -> int:
        """Number of bit patterns holding finite values (+0 and -0 both counted)."""
        return self.n_codes - self.n_nan - self.n_inf

    @property
    def n_finite(self) -> int:
        """Number of distinct finite values (zero counted once)."""
        return self.n_finite_codes - int(self.has_negative_zero)

    @property
    def n_positive(self) -> int:
        """Number of positive finite values (codes 1..max_code, or 0..max_code
        without zero)."""
        return self.max_code + int(not self.has_zero)

    # -- fields ---------------------------------------------------------------------
    def field_exponent(self, field: int) -> int:
        """The power of two of the leading bit for a biased exponent field:
        ``field - bias``, and ``1 - bias`` for field 0 where it holds subnormals."""
        bias: int = self.bias  # type: ignore[attr-defined]
        return (max(field, 1) if self.has_subnormals else field) - bias

    def split_bits(self, code: int) -> tuple[str, str, str]:
        """The sign, exponent and mantissa fields of ``code`` as strings of 0/1
        (the sign is empty in an unsigned format, the mantissa with no mantissa bits).

        Examples
        --------
        >>> from fpexplore import get_format
        >>> get_format("float8_e4m3fn").split_bits(0x38)
        ('0', '0111', '000')
        >>> get_format("float8_e8m0fnu").split_bits(0x7F)
        ('', '01111111', '')
        """
        bits = format(code, f"0{self.bits}b")
        s, e = int(self.is_signed), self.exponent_bits
        return bits[:s], bits[s : s + e], bits[s + e :]

    def special_rule(self, kind: str) -> str:
        """Where this format keeps its infinities (``kind="inf"``) or NaNs (``"nan"``),
        in words.

        Examples
        --------
        >>> from fpexplore import get_format
        >>> get_format("float8_e4m3fnuz").special_rule("nan")
        'sign 1 and every other bit 0, the pattern of -0: the one NaN'
        """
        if self.nan_encoding == "ieee":
            if kind == "inf":
                return "exponent all ones, mantissa 0: infinity"
            return "exponent all ones, mantissa not 0: NaN"
        if self.nan_encoding == "p3109" and kind == "inf":
            return "every bit after the sign 1: infinity"
        if self.nan_encoding in _NAN_AT_MINUS_ZERO:
            return "sign 1 and every other bit 0, the pattern of -0: the one NaN"
        if self.is_signed:
            return "every bit after the sign 1: the one NaN pattern of each sign"
        return "every bit 1: the one NaN"

    @property
    def ties_to_even_code(self) -> bool:
        """Whether ``nearest_even`` breaks a tie by the parity of the code (P3109, as
        gfloat does) rather than of the significand (IEEE 754). The two differ only
        with no mantissa bits, where every significand is 1: P3109 p=1 then goes to
        the even code, E8M0 (as ml_dtypes) to the larger value."""
        return self.nan_encoding == "p3109"

    @property
    def tabulated(self) -> bool:
        """Whether the kernels read this format through tables of all its codes
        (small formats whose encoding the bit-twiddling kernels do not model:
        fnuz, P3109, unsigned, no subnormals, no mantissa bits)."""
        return (
            self.nan_encoding in _NAN_AT_MINUS_ZERO
            or not self.is_signed
            or not self.has_subnormals
            or self.mantissa_bits == 0
        )
