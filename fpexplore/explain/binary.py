"""Numbers written in binary for the explanations: ``+1.0110 x 2^-3``, cut where
rounding cuts them, long strings abbreviated by one rule.

Every string here states an exact equation about its number: ``binary(x, e, k)``
is ``|x| / 2**e`` truncated to ``k`` bits after the point, followed by ``...``
exactly when the bits left out are not all zero. A string longer than 72
characters keeps its first 40 and last 20 characters and says how many it
leaves out: ``1.0110...(47 bits)...0101`` (the bits that rounding drops, past 24
characters, keep 10 and 10).

Examples
--------
>>> from fractions import Fraction
>>> sci(Fraction(-3, 8), -2, 4)
'-1.1000 x 2^-2'
>>> binary(Fraction(1, 3), 0, 6)
'0.010101...'
>>> split_bits(Fraction(11, 8), 0, 2, None)
('1.01', '1')
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["LIMIT", "abbreviate", "binary", "log2_floor", "sci", "split_bits"]

LIMIT = 72
"""The longest binary string shown in full."""


def log2_floor(x: Fraction) -> int:
    """``floor(log2(x))`` for ``x > 0``, exactly."""
    p, q = x.numerator, x.denominator
    e = p.bit_length() - q.bit_length()
    return e - 1 if (p << max(-e, 0)) < (q << max(e, 0)) else e


def abbreviate(text: str, limit: int = LIMIT, head: int = 40, tail: int = 20) -> str:
    """``text`` itself, or its first ``head`` and last ``tail`` characters around a
    count of the characters left out, when it is longer than ``limit``."""
    if len(text) <= limit:
        return text
    return f"{text[:head]}...({len(text) - head - tail} bits)...{text[-tail:]}"


def _full(x: Fraction, exponent: int, frac_bits: int | None) -> str:
    scaled = abs(x) / Fraction(2) ** exponent
    if frac_bits is None:  # every bit of a dyadic number
        frac_bits = scaled.denominator.bit_length() - 1
    whole, rest = divmod(scaled.numerator << frac_bits, scaled.denominator)
    text = f"{whole >> frac_bits:b}"
    if frac_bits:
        text += "." + format(whole & ((1 << frac_bits) - 1), f"0{frac_bits}b")
    return text + ("..." if rest else "")


def binary(x: Fraction, exponent: int, frac_bits: int | None = None) -> str:
    """``|x| / 2**exponent`` in binary: all its bits (``x`` dyadic) or ``frac_bits``
    of them, then ``...`` when the rest are not all zero; abbreviated when long."""
    return abbreviate(_full(x, exponent, frac_bits))


def sci(x: Fraction, exponent: int, frac_bits: int | None = None, sign: bool = True) -> str:
    """``x`` as ``+b.bbb x 2^exponent`` (see :func:`binary`); ``0`` for zero."""
    mark = ("-" if x < 0 else "+") if sign else ""
    return f"{mark}{binary(x, exponent, frac_bits)} x 2^{exponent}"


def split_bits(x: Fraction, exponent: int, keep: int, frac_bits: int | None) -> tuple[str, str]:
    """``|x| / 2**exponent`` in binary cut after ``keep`` bits past the point: the
    kept part (with its point) and the dropped part, each abbreviated on its own
    (the dropped part beyond 24 characters: what rounding reads is its start)."""
    text = _full(x, exponent, frac_bits)
    if "." not in text:
        text += "."
    point = text.index(".")
    if frac_bits is None:  # every bit shown: pad with zeros up to the cut
        text = text.ljust(point + 1 + keep, "0")
    cut = point + 1 + keep
    return abbreviate(text[:cut]), abbreviate(text[cut:], 24, 10, 10)
