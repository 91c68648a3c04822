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
import math
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..core.decode import decode, from_bits
from ..course.copying import CourseNotFoundError, copy_course, index_notebook
from ..exact import FLAGS, parse_real
from ..formats import Format
from ..render.text import parts_text
from .bits import bit_patterns
from .expression import number_value, operand_value, parse_expression
from .formats import Choice, alias_notes, choose_formats, formats_of, with_notes
from .jsonout import dumps
from .output import UsageError
from .parser import DEFAULT_FORMAT, PROG, build_parser, protect_negative_numbers

__all__ = ["DEFAULT_FORMAT", "UsageError", "build_parser", "main"]

_COMMANDS = ("bits", "count", "list_formats", "plot", "course")


def _one_format(chosen: list[Choice] | None, option: str) -> Format:
    if chosen is None or len(chosen) != 1 or chosen[0].format is None:
        given = "all" if chosen is None else ", ".join(c.name for c in chosen)
        raise UsageError(f"{option} works in one format; got -f {given}; expected a single -f")
    return chosen[0].format


def _check_combination(args: argparse.Namespace) -> None:
    """Refuse options that the chosen command would silently ignore."""
    command = next((name for name in _COMMANDS if getattr(args, name)), None)
    flag = f"--{command.replace('_', '-')}" if command else "a VALUE"
    if args.value and command in ("bits", "count", "list_formats", "course"):
        raise UsageError(f"{flag} takes no VALUE, got {args.value[0].strip()!r}")
    if command == "plot" and len(args.value) > 1:
        raise UsageError(f"--plot takes at most one VALUE, got {len(args.value)}")
    if command in _COMMANDS and (args.rounding or args.saturate):
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
    """Print text, or data as JSON by the one rule of :mod:`fpexplore.cli.jsonout`."""
    print(dumps(data) if as_json else data)


def _run(args: argparse.Namespace) -> int:
    _check_combination(args)
    values = [value.strip() for value in args.value]
    if args.course is not None:
        return _course(args.course.strip(), force=args.force)
    if args.list_formats:
        return _list_formats(args)
    if args.count:
        return _count(args)
    if args.plot:
        return _plot(args, values[0] if values else None)
    if args.bits:
        return _bits(args)
    if not values:
        raise UsageError(
            "missing VALUE; expected a number such as 3.14159 or -1e-8, "
            "or one of --bits, --count, --list-formats, --plot, --course (see --help)"
        )
    chosen = choose_formats(args.format, allow_blocks=True)
    if chosen is not None and chosen[0].block is not None:
        return _blocks(args, values, chosen)
    if len(values) > 1:
        raise UsageError(
            f"several values go with a block format (-f mxfp4, nvfp4...), which quantizes "
            f"them as one block; got {len(values)} values for -f "
            f"{'all' if chosen is None else ', '.join(c.name for c in chosen)}"
        )
    expression = parse_expression(values[0])
    if expression is not None and expression[0] != "value":
        return _arithmetic(args, chosen, *expression)
    x = values[0] if expression is None else operand_value(values[0])
    if chosen is None or len(chosen) > 1:
        return _compare(args, chosen, values[0], x)
    fmt = _one_format(chosen, "a VALUE")
    parts = decode(x, fmt, args.rounding or "nearest_even", overflow=_overflow(args))
    if expression is not None:  # a power: its exact value, shown as typed
        parts = replace(parts, input=values[0])
    return _parts(args, [parts], chosen)


def _overflow(args: argparse.Namespace) -> str | None:
    return "saturate" if args.saturate else None


def _parts(args: argparse.Namespace, parts: list[Any], chosen: list[Choice] | None) -> int:
    if args.json:
        from .output import parts_record

        records = [parts_record(p) for p in parts]
        _show(records if len(records) > 1 else records[0], as_json=True)
        return 0
    from .output import use_color

    color = use_color(args.color, sys.stdout)
    notes = alias_notes(chosen)
    texts = [with_notes(parts_text(p, color=color), notes) for p in parts]
    _show("\n\n".join(texts), as_json=False)
    return 0


def _bits(args: argparse.Namespace) -> int:
    chosen = choose_formats(args.format)
    fmt = _one_format(chosen, "--bits")
    patterns = bit_patterns([piece.strip() for piece in args.bits], fmt)
    return _parts(args, [from_bits(p, fmt) for p in patterns], chosen)


def _list_formats(args: argparse.Namespace) -> int:
    from ..render.comparison import format_table
    from .output import wrap_columns

    chosen = choose_formats(args.format) if args.format else None
    table = format_table(formats_of(chosen) if chosen is not None else None)
    if args.json:
        _show(table.transpose("format").to_records(), as_json=True)
    else:
        _show(wrap_columns(table, shutil.get_terminal_size().columns), as_json=False)
    return 0


def _count(args: argparse.Namespace) -> int:
    from .output import count_record, count_text

    lo, hi = (bound.strip() for bound in args.count)
    exact = [number_value(bound, "--count bound") for bound in (lo, hi)]
    formats = formats_of(choose_formats(args.format))
    records = [count_record(lo, hi, fmt, exact=exact) for fmt in formats]
    if args.json:
        _show(records if len(records) > 1 else records[0], as_json=True)
        return 0
    low, high = (_ordered(parse_real(bound)) for bound in exact)
    empty = f"\nthe range is empty: LO = {lo} is not below HI = {hi} (LO <= v < HI)"
    _show(count_text(records) + (empty if low >= high else ""), as_json=False)
    return 0


def _ordered(x: Any) -> Any:
    """An exact number (or +-inf) as something that compares by value."""
    magnitude = math.inf if x.special == "inf" else x.magnitude
    return -magnitude if x.sign else magnitude


def _plot(args: argparse.Namespace, value: str | None) -> int:
    from .plot import save_plot

    span = None if args.range is None else tuple(bound.strip() for bound in args.range)
    chosen = formats_of(choose_formats(args.format)) if args.format else None
    path = save_plot(args.plot, value, chosen, args.output, span=span, force=args.force)
    print(f"wrote {path}")
    return 0


def _blocks(args: argparse.Namespace, values: list[str], chosen: list[Choice]) -> int:
    from .blocks import block_record, block_text, quantize

    if args.saturate:
        raise UsageError("--saturate does not apply to block formats: their elements saturate")
    blocks = [c.block for c in chosen if c.block is not None]
    quantized = [quantize(values, b, args.rounding or "nearest_even") for b in blocks]
    if args.json:
        records = [block_record(q) for q in quantized]
        _show(records if len(records) > 1 else records[0], as_json=True)
    else:
        _show("\n\n".join(block_text(q, values) for q in quantized), as_json=False)
    return 0


def _arithmetic(
    args: argparse.Namespace, chosen: list[Choice] | None, op: str, operands: tuple[str, ...]
) -> int:
    from ..explain.arithmetic import operation_text
    from .arithmetic import check_operands, compute, compute_all, operation_record, operation_table

    rounding = args.rounding or "nearest_even"
    if chosen is not None and len(chosen) == 1:
        check_operands(operands)
        result = compute(op, operands, _one_format(chosen, "VALUE"), rounding, _overflow(args))
        if args.json:
            _show(operation_record(result), as_json=True)
        else:
            _show(with_notes(operation_text(result), alias_notes(chosen)), as_json=False)
        return 0
    formats = formats_of(chosen)
    results, refused = compute_all(op, operands, formats, rounding, _overflow(args))
    if args.json:
        order = [fmt.name for fmt in formats]  # the records in the order of -f
        records = [operation_record(r) for r in results] + refused
        _show(sorted(records, key=lambda r: order.index(r["format"])), as_json=True)
        return 0
    table = operation_table(results)
    table.title = with_notes(table.title or "", alias_notes(chosen))
    table.notes.extend(f"{r['format']}: {r['error']}" for r in refused)
    _show(table, as_json=False)
    return 0


def _compare(args: argparse.Namespace, chosen: list[Choice] | None, value: str, x: Any) -> int:
    """``value`` as typed; ``x`` what it stands for (the text, or a power's exact value)."""
    from ..render.comparison import compare

    if args.saturate:
        raise UsageError("--saturate works with one format; compare tables follow each format")
    formats = formats_of(chosen)
    rounding = args.rounding or "nearest_even"
    if parse_real(x).special == "nan" and not any(fmt.has_nan for fmt in formats):
        names = [fmt.name for fmt in formats]
        listed = f"{', '.join(names[:-1])} and {names[-1]} have" if len(names) > 1 else "has"
        raise UsageError(f"no chosen format can store {value}: {listed} no NaN encoding")
    table = compare(x, formats, rounding)
    table.title = f"{value} stored in {(table.title or '').partition(' stored in ')[2]}"
    if not args.json:
        table.title = with_notes(table.title or "", alias_notes(chosen))
        _show(table, as_json=False)
        return 0
    records = table.to_records()
    for record, fmt in zip(records, formats, strict=True):
        flags = frozenset() if record["flag"] == "no NaN" else decode(x, fmt, rounding).flags
        record["flags"] = [f for f in FLAGS if f in flags]
    _show(records, as_json=True)
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
        print(
            "JupyterLab is not installed here; from a clone of fpexplore (not yet on PyPI), "
            'get it with: pip install -e ".[notebooks]"'
        )
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
        args = parser.parse_intermixed_args(protect_negative_numbers(arguments))
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
