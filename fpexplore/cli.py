"""The ``fpexplore`` command: a number's bits, errors and neighbours in a terminal.

``main(argv)`` parses the arguments, runs one command and returns the exit
status: 0 on success, 2 for bad input (one line on stderr, never a traceback),
1 when the installation lacks something it needs. ``python -m fpexplore``
runs the same thing.

Examples
--------
>>> main(["--count", "3", "4", "-f", "float32"])
4194304 values of float32 lie in [3, 4)
each normal binade of float32 holds 2**23 = 8388608 values; this is 0.5 times that
0
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from .cli_output import UsageError
from .course import CourseNotFoundError, copy_course, index_notebook
from .decode import decode, from_bits
from .display import parts_text
from .exact import ROUNDING_MODES
from .formats import FORMATS, Format, get_format

__all__ = ["DEFAULT_FORMAT", "UsageError", "build_parser", "main"]

DEFAULT_FORMAT = "float32"
"""The format used without ``-f``: the book's examples (pi, claim 9) are float32."""

PROG = "fpexplore"

EPILOG = f"""\
VALUE is read exactly as written: 0.1 means one tenth, so its error is the
error of storing one tenth. Also accepted: -1e-8, inf, -inf, nan, hex floats
(0x1.8p1) and ratios (1/3). Without -f the format is {DEFAULT_FORMAT}.

examples:
  fpexplore 3.14159                    breakdown of 3.14159 in {DEFAULT_FORMAT}
  fpexplore -2.5 -f half               negative values work as they are
  fpexplore 0.1 -f float32 -f bfloat16 one value compared across formats
  fpexplore 0.1 -f all --json          ... across every format, as JSON
  fpexplore --bits 0x40490FDB          decode a bit pattern (also 0b..., or 0/1 digits)
  fpexplore --count 3 4 -f float32     how many float32 values lie in [3, 4)
  fpexplore --list-formats             the formats and their limits
  fpexplore --plot density -f e4m3 -o density.png
  fpexplore --course my-course         copy the notebook course, then open it

exit status: 0 done, 2 bad input (one line on stderr), 1 something missing."""

# A token such as "-1e-8", "-.5" or "-inf" is a number, not an option.
_NEGATIVE_NUMBER = re.compile(r"-(?:\d|\.\d|inf|nan|snan|qnan|0x)", re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fpexplore`` command."""
    parser = _Parser(
        prog=PROG,
        description="Take floating-point numbers apart: sign, exponent, mantissa, "
        "rounding error and neighbours, in float64/32/16, bfloat16, tf32, FP8, FP6, FP4 "
        "and custom eXmY formats.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("value", nargs="?", metavar="VALUE", help="the number to decode")
    parser.add_argument(
        "-f",
        "--format",
        action="append",
        metavar="FORMAT",
        help=f"target format (default {DEFAULT_FORMAT}): a name such as float16, an alias "
        "such as half, bf16, e4m3, or eXmY; repeat it (or give a comma-separated list, "
        "or 'all' for every catalogue format) to compare formats",
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
        help="colour the bit fields: auto (default) on a terminal unless NO_COLOR is set",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--bits", nargs="+", metavar="PATTERN", help="decode a bit pattern instead of a VALUE"
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
    from .cli_plot import PLOT_NAMES

    mode.add_argument(
        "--plot",
        choices=PLOT_NAMES,
        metavar="NAME",
        help=f"draw a figure to --output: {', '.join(PLOT_NAMES)}",
    )
    mode.add_argument("--course", metavar="DIR", help="copy the notebook course into DIR")
    parser.add_argument(
        "--range",
        nargs=2,
        metavar=("LO", "HI"),
        help="x range of the plots number_line, relative_error, absolute_error",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write the --plot to")
    parser.add_argument("--force", action="store_true", help="overwrite --output or --course")
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {__version__}")
    return parser


def _protect_negative_numbers(argv: Sequence[str]) -> list[str]:
    """Prefix number-like tokens that start with '-' with a space, which argparse
    takes as a value rather than an option; values are stripped when used."""
    return [f" {token}" if _NEGATIVE_NUMBER.match(token) else token for token in argv]


def _formats(specs: list[str] | None) -> list[Format] | None:
    """The formats named by the -f options; None means the whole catalogue."""
    if not specs:
        return [get_format(DEFAULT_FORMAT)]
    names = [name.strip() for spec in specs for name in spec.split(",") if name.strip()]
    if any(name.lower() == "all" for name in names):
        return None
    if not names:
        raise UsageError("empty -f/--format; expected a format name such as float32")
    formats: list[Format] = []
    for name in names:
        fmt = get_format(name)
        if fmt not in formats:
            formats.append(fmt)
    return formats


def _one_format(formats: list[Format] | None, option: str) -> Format:
    if formats is None or len(formats) != 1:
        given = "all" if formats is None else ", ".join(f.name for f in formats)
        raise UsageError(f"{option} works in one format; got -f {given}; expected a single -f")
    return formats[0]


def _check_combination(args: argparse.Namespace) -> None:
    """Refuse options that the chosen command would silently ignore."""
    command = next(
        (
            name
            for name in ("bits", "count", "list_formats", "plot", "course")
            if getattr(args, name)
        ),
        None,
    )
    flag = f"--{command.replace('_', '-')}" if command else "a VALUE"
    if args.value is not None and command in ("bits", "count", "list_formats", "course"):
        raise UsageError(f"{flag} takes no VALUE, got {args.value.strip()!r}")
    if command in ("bits", "list_formats", "course") and (args.rounding or args.saturate):
        raise UsageError(f"--rounding and --saturate do not apply to {flag}")
    if command in ("plot", "course") and args.json:
        raise UsageError(f"--json does not apply to {flag}")
    if command == "course" and args.format:
        raise UsageError("-f/--format does not apply to --course")
    if command != "plot" and (args.output or args.range):
        raise UsageError("--output and --range go with --plot NAME")
    if command not in ("plot", "course") and args.force:
        raise UsageError("--force goes with --plot or --course")


def _emit(data: Any) -> None:
    print(json.dumps(data, indent=2, allow_nan=False))


def _run(args: argparse.Namespace) -> int:
    from .cli_output import count_record, count_text, parts_record, use_color

    _check_combination(args)
    if args.course is not None:
        return _course(args.course.strip(), force=args.force)
    formats = _formats(args.format)
    if args.list_formats:
        from .tables import format_table

        table = format_table(formats if args.format else None)
        _emit(table.to_records()) if args.json else print(table)
        return 0
    if args.count:
        lo, hi = (bound.strip() for bound in args.count)
        records = [count_record(lo, hi, fmt) for fmt in formats or FORMATS.values()]
        _emit(records if len(records) > 1 else records[0]) if args.json else print(
            count_text(records)
        )
        return 0
    if args.plot:
        from .cli_plot import save_plot

        value = None if args.value is None else args.value.strip()
        span = None if args.range is None else tuple(bound.strip() for bound in args.range)
        save_plot(args.plot, value, formats, args.output, span=span, force=args.force)
        return 0
    if args.bits:
        parts = from_bits(" ".join(args.bits).strip(), _one_format(formats, "--bits"))
    elif args.value is None:
        raise UsageError(
            "missing VALUE; expected a number such as 3.14159 or -1e-8, "
            "or one of --bits, --count, --list-formats, --plot, --course (see --help)"
        )
    elif formats is None or len(formats) > 1:
        return _compare(args, formats)
    else:
        overflow = "saturate" if args.saturate else None
        parts = decode(
            args.value.strip(),
            formats[0],
            rounding=args.rounding or "nearest_even",
            overflow=overflow,
        )
    if args.json:
        _emit(parts_record(parts))
    else:
        print(parts_text(parts, color=use_color(args.color, sys.stdout)))
    return 0


def _compare(args: argparse.Namespace, formats: list[Format] | None) -> int:
    from .tables import compare

    if args.saturate:
        raise UsageError("--saturate works with one format; compare tables follow each format")
    chosen = list(FORMATS.values()) if formats is None else formats
    table = compare(args.value.strip(), chosen, rounding=args.rounding or "nearest_even")
    _emit(table.to_records()) if args.json else print(table)
    return 0


def _course(dest: str, *, force: bool) -> int:
    try:
        copied = copy_course(dest, force=force)
    except CourseNotFoundError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except FileExistsError as err:
        raise UsageError(str(err)) from None
    first = index_notebook(dest)
    notebooks = sum(path.suffix == ".ipynb" for path in copied)
    print(f"copied {notebooks} notebooks ({len(copied)} files) into {dest}")
    print("open the course in JupyterLab with:")
    print(f"  jupyter lab {first if first is not None else dest}")
    from importlib.util import find_spec

    if find_spec("jupyterlab") is None:
        print('JupyterLab is not installed here; get it with: pip install "fpexplore[notebooks]"')
    return 0


def _fail(message: str) -> int:
    line = " ".join(str(message).split())
    print(f"{PROG}: error: {line}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``fpexplore`` command; return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments without the program name; ``sys.argv[1:]`` by default.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(_protect_negative_numbers(arguments))
        return _run(args)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except (UsageError, ValueError, OverflowError, FileExistsError) as err:
        return _fail(str(err))
    except BrokenPipeError:  # output piped into head and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
