"""The argument parser of the ``fpexplore`` command (see :mod:`fpexplore.cli`).

Examples
--------
>>> args = build_parser().parse_args(protect_negative_numbers(["-1e-8", "-f", "half"]))
>>> [value.strip() for value in args.value], args.format
(['-1e-8'], ['half'])
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Sequence

from .. import __version__
from ..exact import ROUNDING_MODES
from .jsonout import JSON_RULE
from .output import DEFAULT_FORMAT, PROG, UsageParser
from .plot import MIXED_PLOT_NAMES, PLOT_NAMES

__all__ = ["DEFAULT_FORMAT", "PROG", "build_parser", "protect_negative_numbers"]


EPILOG = f"""\
VALUE is read exactly as written: 0.1 means one tenth, so its error is the
error of storing one tenth. Also accepted: -1e-8, inf, -inf, nan, hex floats
(0x1.8p1), ratios (1/3) and integer powers, computed exactly: 2**-24, or
2^-24 (^ means the same as **), here and in --count and --range. Without -f
the format is {DEFAULT_FORMAT}.

VALUE may also be one operation, computed in the format and explained step
by step: "a + b", "a - b", "a * b", "a / b", sqrt(a), fma(a, b, c),
remainder(a, b) (also add, sub, mul, div, neg, abs with parentheses). Each
operand is rounded into the format first, then the exact result is rounded
once. A ratio of integers on its own ("1/3") stays the exact value one third;
write div(1, 3) or 1 / 3.0 to divide in the format. A power is an exact
number, not an operation: "1e-3 * 2**10" multiplies 1e-3 by 1024.

Several VALUEs go with a block format (mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2,
mxfp6_e2m3, mxfp4, mxint8, nvfp4): they are quantized as one array, block by
block, and each block is explained (its scale, codes and errors).

FORMAT: a name (float16), an alias (half, bf16, e4m3 = float8_e4m3fn), eXmY
for a custom IEEE-like format, or a family (fp8, or mx for the MX block
formats) to see its members; the output says what an alias stands for.
Flags are IEEE 754's: overflow, underflow (tiny after rounding and inexact),
inexact, invalid.

{textwrap.fill(f"JSON (--json): {JSON_RULE}.", 78)}

examples:
  fpexplore 3.14159                      breakdown of 3.14159 in {DEFAULT_FORMAT}
  fpexplore -2.5 -f half                 negative values work as they are
  fpexplore 500 -f e4m3                  overflow: above e4m3's largest value, 448
  fpexplore 0.1 -f float32 -f bfloat16   one value compared across formats
  fpexplore 0.1 -f all --json            ... across every format, as JSON
  fpexplore "0.1 + 0.2" -f bfloat16      the sum in bfloat16, step by step
  fpexplore "sqrt(2)" -f all             one operation in every format
  fpexplore "2**-24" -f half             an exact power: float16's smallest subnormal
  fpexplore 0.1 0.5 3 100 -f mxfp4       four values quantized as one MXFP4 block
  fpexplore --bits 0x40490FDB            decode a bit pattern (also 0b..., or 0/1 digits)
  fpexplore --bits 0x3C00 0x7C00 -f half  several patterns, one after another
  fpexplore --count 3 4 -f float32       how many float32 values lie in [3, 4)
  fpexplore --list-formats               the formats and their limits
  fpexplore --plot density -f e4m3 -o density.png
  fpexplore --course my-course           copy the notebook course, then open it

exit status: 0 done, 2 bad input (one line on stderr), 1 cannot read or write."""

USAGE = """\
fpexplore VALUE [-f FORMAT ...] [--rounding MODE] [--saturate] [--json] [--color WHEN]
       fpexplore "A + B" | "sqrt(A)" | "fma(A, B, C)" [-f FORMAT ...] [--rounding MODE] [--json]
       fpexplore VALUE VALUE ... -f BLOCK_FORMAT [--rounding MODE] [--json]
       fpexplore --bits PATTERN [PATTERN ...] [-f FORMAT] [--json] [--color WHEN]
       fpexplore --count LO HI [-f FORMAT ...] [--json]
       fpexplore --list-formats [-f FORMAT ...] [--json]
       fpexplore --plot NAME [VALUE] [-f FORMAT ...] [--range LO HI] -o FILE [--force]
       fpexplore --course DIR [--force]
       fpexplore report PATH -f FORMAT[,FORMAT...] [--json | --csv]   (see report --help)
       fpexplore --version | --help"""

DESCRIPTION = """\
Take floating-point numbers apart: sign, exponent and mantissa, the rounding
error and the neighbouring values, in float64, float32, float16, bfloat16,
tf32, FP8, FP6, FP4 and custom eXmY formats."""

# A token such as "-1e-8", "-.5" or "-inf" is a number, not an option.
_NEGATIVE_NUMBER = re.compile(r"-(?:\d|\.\d|inf|nan|snan|qnan|0x)", re.IGNORECASE)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fpexplore`` command."""
    parser = UsageParser(
        prog=PROG,
        usage=USAGE,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "value",
        nargs="*",
        metavar="VALUE",
        help='the number to decode, or one operation to compute such as "0.1 + 0.2"; '
        "several numbers with a block format",
    )
    parser.add_argument(
        "-f",
        "--format",
        action="append",
        metavar="FORMAT",
        help=f"target format (default {DEFAULT_FORMAT}): a name such as float16, an alias "
        "such as half, bf16, e4m3, eXmY, or a block format such as mxfp4; repeat it (or "
        "give a comma-separated list, or 'all' for every catalogue format) to compare formats",
    )
    modes = ROUNDING_MODES[:-1]  # stochastic rounding needs arrays and randomness
    parser.add_argument(
        "--rounding",
        choices=modes,
        metavar="MODE",
        help=f"rounding mode: {', '.join(modes)} (default nearest_even)",
    )
    parser.add_argument(
        "--saturate", action="store_true", help="clamp overflow to +-max instead of inf/NaN"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        metavar="WHEN",
        help="colour the bit fields: auto (default: on a terminal, unless NO_COLOR is set), "
        "always or never",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--bits",
        nargs="+",
        metavar="PATTERN",
        help="decode bit patterns instead of a VALUE: each PATTERN is one (0x3C00, 0b..., "
        "0/1 digits); words that continue one are read with it, as if quoted: 0x3C 00, or "
        "groups of 0/1 digits that fill the format's width (0 01111 0000000000 in float16)",
    )
    mode.add_argument(
        "--count",
        nargs=2,
        metavar=("LO", "HI"),
        help="count the values v with LO <= v < HI in each format",
    )
    mode.add_argument(
        "--list-formats", action="store_true", help="list the formats and their limits"
    )

    mode.add_argument(
        "--plot",
        choices=PLOT_NAMES + MIXED_PLOT_NAMES,
        metavar="NAME",
        help=f"draw a figure to --output: {', '.join(PLOT_NAMES)}; "
        f"float16 failures: {', '.join(MIXED_PLOT_NAMES)}",
    )
    mode.add_argument("--course", metavar="DIR", help="copy the notebook course into DIR")
    parser.add_argument(
        "--range",
        nargs=2,
        metavar=("LO", "HI"),
        help="window of --plot number_line, relative_error, absolute_error, spacing; "
        "for error_histogram, the range of its uniform random values",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write the --plot to")
    parser.add_argument("--force", action="store_true", help="overwrite --output or --course")
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {__version__}")
    return parser


def protect_negative_numbers(argv: Sequence[str]) -> list[str]:
    """Prefix number-like tokens that start with '-' with a space, which argparse
    takes as a value rather than an option; values are stripped when used."""
    return [f" {token}" if _NEGATIVE_NUMBER.match(token) else token for token in argv]
