"""fpexplore: an educational floating-point explorer.

Decode float16/32/64, bfloat16, TF32, FP8, FP6, FP4 and custom formats into
sign, exponent and mantissa; round any real number exactly; measure
representation error; count the values between two numbers.

>>> import fpexplore as fpx
>>> p = fpx.decode(3.14159, "float32")
>>> (p.sign, p.exponent, p.mantissa)
(0, 128, 4788176)
"""

from .codes import Kind
from .core.arrays import ArrayParts, decode_array
from .core.census import Census, float_census
from .core.decode import FloatParts, decode, from_bits
from .core.density import Binade, BinadeTable, binade_table, count_between, values_between
from .core.error import RepresentationError, next_down, next_up, representation_error, round_to, ulp
from .exact import ROUNDING_MODES
from .formats import FORMATS, Format, FormatLike, format_names, get_format
from .render.comparison import compare, format_table

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "ROUNDING_MODES",
    "ArrayParts",
    "Binade",
    "BinadeTable",
    "Census",
    "FloatParts",
    "Format",
    "FormatLike",
    "Kind",
    "RepresentationError",
    "__version__",
    "binade_table",
    "compare",
    "count_between",
    "decode",
    "decode_array",
    "float_census",
    "format_names",
    "format_table",
    "from_bits",
    "get_format",
    "next_down",
    "next_up",
    "representation_error",
    "round_to",
    "ulp",
    "values_between",
]
