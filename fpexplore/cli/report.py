"""``fpexplore report``: will this model survive these formats, and which tensors won't?

``fpexplore report PATH -f e4m3,mxfp4,bf16`` reads a checkpoint file with
:func:`fpexplore.open_checkpoint` (safetensors, npy/npz, Keras, ONNX, torch), runs
:func:`fpexplore.checkpoint_report` on it, and prints the worst rows (lowest SNR
first), then one summary line per (format, scaling). ``--json`` and ``--csv`` print
the records instead. A bad file, format or argument, and any other failure (out of
memory, a read error of the system, a library's own error): exit status 2 and one
line on stderr, never a traceback.

Examples
--------
>>> import numpy as np, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "w.npy")
>>> np.save(path, np.array([0.5, 1.0, -2.0, 448.0], np.float32))  # E4M3 values: stored exactly
>>> report_main([path, "-f", "e4m3", "--scaling", "none", "--csv"])
tensor,shape,dtype,size,axis,axis_source,format,scaling,block_format,scale,overflow,clipped,flushed_to_zero,subnormal,nonzero,median_rel_error,p99_rel_error,max_rel_error,snr_db,became_inf,became_nan,nonfinite_from,short_blocks,scale_rule
w,4,float32,4,0,last,float8_e4m3fn,none,,,0,0,0,0,4,0.0,0.0,0.0,inf,0,0,,False,
0
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from ..formats import custom_format_notice
from .formats import check_names
from .output import PROG, UsageError
from .report_args import SCALING_NAMES, build_report_parser

__all__ = ["build_report_parser", "report_main"]


def _names(specs: list[str], what: str) -> list[str]:
    names = [name.strip() for spec in specs for name in spec.split(",") if name.strip()]
    if not names:
        raise UsageError(f"empty {what}")
    return list(dict.fromkeys(names))


def _scalings(specs: list[str] | None) -> tuple[str, ...]:
    if specs is None:
        return SCALING_NAMES
    chosen = [name.lower().replace("-", "_") for name in _names(specs, "--scaling")]
    for name in chosen:
        if name not in SCALING_NAMES:
            raise UsageError(
                f"unknown --scaling {name!r}; expected some of {', '.join(SCALING_NAMES)}"
            )
    return tuple(chosen)


def _run(args: argparse.Namespace) -> int:
    from ..report.checkpoint import checkpoint_report, no_rows
    from ..report.tensor import parse_formats

    formats = _names(args.format, "-f/--format; expected format names such as e4m3,mxfp4")
    check_names(formats)
    for name in formats:
        if custom_format_notice(name):
            print(f"{PROG} report: warning: {custom_format_notice(name)}", file=sys.stderr)
    scalings = _scalings(args.scaling)
    rule = _scale_rule(args.scale_rule)
    try:
        parsed, asked = parse_formats(formats, scalings, rule)
    except ValueError as error:
        if rule is None:
            raise
        raise UsageError(f"--scale-rule {rule}: {error}") from None
    if not asked:  # checked before the file is read
        raise UsageError(
            f"-f {','.join(formats)} with --scaling {','.join(scalings)} gives no rows: "
            + no_rows(parsed)
        )
    if args.top is not None and args.top < 0:
        raise UsageError(f"--top must be 0 or more, got {args.top}")
    if not -1e3 <= args.min_snr <= 1e3:  # NaN too
        raise UsageError(f"--min-snr must be a number of dB, got {args.min_snr}")
    if args.min_size is not None and args.min_size < 0:
        raise UsageError(f"--min-size must be 0 or more, got {args.min_size}")
    report = checkpoint_report(
        args.path.strip(), formats, scalings=scalings, axis=_axis(args.axis),
        min_size=args.min_size, include=args.include, exclude=args.exclude,
        weights_only=True if args.weights_only else (False if args.constants else None),
        scheduler=args.scheduler,
        progress=False if args.no_progress else None, scale_rule=rule,
    )  # fmt: skip
    if args.json or args.csv:
        rows = report.worst(len(report.records) if args.top is None else args.top)
        sys.stdout.write((rows.to_json() + "\n") if args.json else rows.to_csv())
        return 0
    sizes = {r["tensor"]: r["size"] for r in report.records}
    typed = sum(why.startswith("dtype ") for _, why in report.skipped)
    skipped = f"; {typed} not floating point, left out" if typed else ""
    if len(report.skipped) > typed:
        skipped += f"; {len(report.skipped) - typed} left out by the filters"
    if report.nonfinite:
        names = list(report.nonfinite)
        listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        skipped += f"; NaN or inf (left out of the statistics) in {listed}"
    tensors, values = len(sizes), sum(sizes.values())
    print(f"{tensors} tensor{'s' * (tensors != 1)}, {values:,} value{'s' * (values != 1)}{skipped}")
    if not report.records:
        return 0
    print()
    print(report.table(10 if args.top is None else args.top))
    print()
    print(report.summary(args.min_snr))
    return 0


def _scale_rule(text: str | None) -> str | None:
    from ..scaling.tiles import SCALE_RULES

    if text is None:
        return None
    rule = text.strip().lower()
    if rule not in SCALE_RULES:
        raise UsageError(f"unknown --scale-rule {text!r}; expected one of {', '.join(SCALE_RULES)}")
    return rule


def _axis(text: str) -> str | int:
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"--axis must be auto or an integer, got {text!r}") from None


def _fail(message: str) -> int:
    line = " ".join(str(message).split())
    print(f"{PROG} report: error: {line}", file=sys.stderr)
    return 2


def report_main(argv: Sequence[str]) -> int:
    """Run ``fpexplore report`` with ``argv`` (the arguments after ``report``);
    return the exit status. Every failure is exit status 2 and one line on stderr."""
    path = ""
    try:
        args = build_report_parser().parse_args(list(argv))
        path = os.path.basename(args.path.strip()) or args.path
        with warnings.catch_warnings():  # said once, on stderr, by _run
            warnings.filterwarnings("ignore", "custom format", UserWarning)
            return _run(args)
    except SystemExit as done:  # --help
        return done.code if isinstance(done.code, int) else 0
    except (UsageError, ValueError, TypeError, OverflowError, KeyError) as err:
        return _fail(str(err))
    except BrokenPipeError:  # output piped into head and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as err:  # a file that cannot be read
        if err.filename:
            return _fail(f"{err.strerror or err}: {err.filename}")
        return _fail(f"{path}: {err.strerror or err or type(err).__name__}")
    except MemoryError as err:
        said = f" ({err})" if str(err) else ""
        return _fail(f"{path}: out of memory{said}")
    except Exception as err:  # a library's own error on a file it cannot read, and the like
        return _fail(f"{path}: {type(err).__name__}: {err}")
