"""Exact arithmetic on real inputs: parse any real number exactly, round it once.

:mod:`~fpexplore.exact.parse` turns ints, floats (at their exact binary value),
strings, Fractions, Decimals and numpy scalars into an exact :class:`ExactReal`;
:mod:`~fpexplore.exact.rounding` rounds one into a format with integer
arithmetic. This is the reference that the vectorized kernels are tested against.
Imports only :mod:`fpexplore.formats`.

>>> from fpexplore.exact import parse_real, round_real
>>> hex(round_real(parse_real("3.14159"), "float32"))
'0x40490fd0'
"""

from .flags import conversion_flags
from .ops import ARITY, FLAGS, ExactResult, check_arithmetic_format, code_to_real, exact_op
from .parse import (
    DECIMAL_PLACES,
    MAX_DECIMAL_EXPONENT,
    ExactReal,
    StandIn,
    parse_real,
    quotient,
    ratio,
    to_float,
)
from .rounding import (
    OVERFLOW_MODES,
    ROUNDING_MODES,
    ROUNDING_NAMES,
    check_overflow,
    check_rng,
    check_rounding,
    overflow_code,
    round_magnitude,
    round_real,
    tiny_after_rounding,
    ulp_exponent,
)
from .rounding import magnitude_mode as magnitude_mode

__all__ = [
    "ARITY",
    "DECIMAL_PLACES",
    "FLAGS",
    "MAX_DECIMAL_EXPONENT",
    "OVERFLOW_MODES",
    "ROUNDING_MODES",
    "ROUNDING_NAMES",
    "ExactReal",
    "ExactResult",
    "StandIn",
    "check_arithmetic_format",
    "check_overflow",
    "check_rng",
    "check_rounding",
    "code_to_real",
    "conversion_flags",
    "exact_op",
    "overflow_code",
    "parse_real",
    "quotient",
    "ratio",
    "round_magnitude",
    "round_real",
    "tiny_after_rounding",
    "to_float",
    "ulp_exponent",
]
