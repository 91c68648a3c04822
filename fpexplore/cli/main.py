"""The ``fpexplore`` command: a number's bits, errors and neighbours in a terminal.

``main(argv)`` parses the arguments, runs one command and returns the exit
status: 0 on success, 2 for bad input (one line on stderr, never a traceback),
1 when the installation lacks the course or a file cannot be written (also
one line). ``python -m fpexplore`` runs the same thing.

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
import sys
from collections.abc import Sequence
from typing import Any

from ..core.decode import decode, from_bits
from ..formats import FORMATS, Format, get_format
from ..render.text import parts_text
from .course import CourseNotFoundError, copy_course, index_notebook
from .expression import parse_expression
from .output import UsageError
from .parser import DEFAULT_FORMAT, PROG, build_parser, protect_negative_numbers

__all__ = ["DEFAULT_FORMAT", "UsageError", "build_parser", "main"]


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
    if command in ("bits", "count", "list_formats", "plot", "course") and (
        args.rounding or args.saturate
    ):
        raise UsageError(f"--rounding and --saturate do not apply to {flag}")
    if command in ("plot", "course") and args.json:
        raise UsageError(f"--json does not apply to {flag}")
    if command == "course" and args.format:
        raise UsageError("-f/--format does not apply to --course")
    if command != "plot" and (args.output or args.range):
        raise UsageError("--output and --range go with --plot NAME")
    if command not in ("plot", "course") and args.force:
        raise UsageError("--force goes with --plot or --course")


def _show(data: Any, *, as_json: bool) -> None:
    """Print text, or data as JSON (strict: NaN and inf must already be strings)."""
    print(json.dumps(data, indent=2, allow_nan=False) if as_json else data)


def _run(args: argparse.Namespace) -> int:
    from .output import count_record, count_text, parts_record, use_color

    _check_combination(args)
    if args.course is not None:
        return _course(args.course.strip(), force=args.force)
    formats = _formats(args.format)
    if args.list_formats:
        from ..render.comparison import format_table

        table = format_table(formats if args.format else None)
        _show(table.to_records() if args.json else table, as_json=args.json)
        return 0
    if args.count:
        lo, hi = (bound.strip() for bound in args.count)
        records = [count_record(lo, hi, fmt) for fmt in formats or FORMATS.values()]
        if args.json:
            _show(records if len(records) > 1 else records[0], as_json=True)
        else:
            _show(count_text(records), as_json=False)
        return 0
    if args.plot:
        from .plot import save_plot

        value = None if args.value is None else args.value.strip()
        span = None if args.range is None else tuple(bound.strip() for bound in args.range)
        chosen = None if not args.format else formats or list(FORMATS.values())
        path = save_plot(args.plot, value, chosen, args.output, span=span, force=args.force)
        print(f"wrote {path}")
        return 0
    if args.bits:
        parts = from_bits(" ".join(args.bits).strip(), _one_format(formats, "--bits"))
    elif args.value is None:
        raise UsageError(
            "missing VALUE; expected a number such as 3.14159 or -1e-8, "
            "or one of --bits, --count, --list-formats, --plot, --course (see --help)"
        )
    elif (expression := parse_expression(args.value.strip())) is not None:
        return _arithmetic(args, formats, *expression)
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
        _show(parts_record(parts), as_json=True)
    else:
        _show(parts_text(parts, color=use_color(args.color, sys.stdout)), as_json=False)
    return 0


def _arithmetic(
    args: argparse.Namespace, formats: list[Format] | None, op: str, operands: tuple[str, ...]
) -> int:
    from ..render.arithmetic import operation_text
    from .arithmetic import compute, operation_record, operation_table

    rounding = args.rounding or "nearest_even"
    overflow = "saturate" if args.saturate else None
    if formats is not None and len(formats) == 1:
        result = compute(op, operands, formats[0], rounding, overflow)
        _show(operation_record(result) if args.json else operation_text(result), as_json=args.json)
        return 0
    results, refused = [], []
    for fmt in formats or list(FORMATS.values()):
        try:
            results.append(compute(op, operands, fmt, rounding, overflow))
        except ValueError as err:  # an invalid operation in a format without NaN
            refused.append({"format": fmt.name, "error": str(err)})
    if args.json:
        _show([operation_record(r) for r in results] + refused, as_json=True)
        return 0
    table = operation_table(results)
    table.notes.extend(f"{r['format']}: {r['error']}" for r in refused)
    _show(table, as_json=False)
    return 0


def _compare(args: argparse.Namespace, formats: list[Format] | None) -> int:
    from ..render.comparison import compare

    if args.saturate:
        raise UsageError("--saturate works with one format; compare tables follow each format")
    chosen = list(FORMATS.values()) if formats is None else formats
    table = compare(args.value.strip(), chosen, rounding=args.rounding or "nearest_even")
    _show(table.to_records() if args.json else table, as_json=args.json)
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
    if arguments[:1] == ["report"]:  # the report command has a parser of its own
        from .report import report_main

        return report_main(arguments[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(protect_negative_numbers(arguments))
        return _run(args)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except (UsageError, ValueError, OverflowError) as err:
        return _fail(str(err))
    except BrokenPipeError:  # output piped into head and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as err:  # a file or folder that cannot be written
        _fail(f"{err.strerror or err}: {err.filename}" if err.filename else str(err))
        return 1
