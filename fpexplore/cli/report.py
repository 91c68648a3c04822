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
from typing import NoReturn

from ..formats import custom_format_notice
from .formats import check_names
from .output import PROG, UsageError

__all__ = ["build_report_parser", "report_main"]

SCALING_NAMES = ("none", "per_tensor", "block")

DESCRIPTION = """\
Will this model survive these formats? Each floating-point tensor of the file is
stored in each format (plain, scaled by its own largest magnitude, and in blocks)
and measured: overflow, clipping, values flushed to zero, relative errors and the
signal-to-noise ratio. Prints the worst tensors first, then one summary line per
format and scaling."""

EPILOG = """\
PATH: .safetensors (bfloat16 and FP8 too), .npy, .npz, .keras, .weights.h5,
.onnx (needs onnx), .pt/.pth/.bin (a PyTorch state_dict; needs torch), or a
folder of sharded .safetensors with its *.safetensors.index.json (or that index).

FORMAT: plain formats (e4m3, e5m2, bf16, float16...) give the rows none,
per_tensor and block (in the MX format of that element type, when there is
one); block formats (mxfp4, mxfp6_e2m3, mxfp8_e4m3, nvfp4...) give a block row.

Blocks run along each tensor's summed axis (--axis auto): the axis column
says which and where it came from (graph, layer, layout, last, given); "short"
marks an axis shorter than a block. --scale-rule sets the rule of MX block
scales (floor, rceil, ceil, even). Scalars (--min-size 2) and ONNX constants
(a -1e9 attention mask, an epsilon broadcast to a shape: --constants reports
them) are left out, and every other tensor is reported unless --include,
--exclude or --weights-only say otherwise; a filter that leaves nothing is an
error (exit 2).

A tensor passes a (format, scaling) when no value overflows and its SNR is at
least --min-snr dB (20 by default).

--json prints a list of records, one per (tensor, format, scaling), worst
first (all of them, or the --top N worst): numbers are JSON numbers; inf, -inf
and NaN, which JSON cannot write, are the strings "inf", "-inf" and "nan";
shape is a list. --csv prints the same records as CSV (shape as 4x5).

examples:
  fpexplore report model.safetensors -f e4m3,mxfp4
  fpexplore report model.keras -f e4m3,e5m2,mxfp4,nvfp4,bf16
  fpexplore report model.onnx -f nvfp4 --weights-only --top 20
  fpexplore report model.safetensors -f mxfp4 --exclude '*norm*' --min-size 1024
  fpexplore report model.onnx -f bf16 --scaling none --json

exit status: 0 done, 2 a bad file, format or argument (one line on stderr)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_report_parser() -> argparse.ArgumentParser:
    """The argument parser of ``fpexplore report``."""
    parser = _Parser(
        prog=f"{PROG} report",
        usage=f"{PROG} report PATH -f FORMAT[,FORMAT...] [--scaling SCALING[,...]] "
        "[--axis auto|N] [--scale-rule RULE] [--min-size N] [--include GLOB] "
        "[--exclude GLOB] [--weights-only | --constants] [--scheduler ADDRESS] [--top N] "
        "[--min-snr DB] [--json | --csv] [--no-progress]",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        help="the checkpoint file, or a folder of sharded safetensors (or its *.index.json)",
    )
    parser.add_argument(
        "-f",
        "--format",
        action="append",
        required=True,
        metavar="FORMAT",
        help="formats to report, comma-separated or repeated, e.g. e4m3,e5m2,mxfp4,nvfp4,bf16",
    )
    parser.add_argument(
        "--scaling",
        action="append",
        metavar="SCALING",
        help="none, per_tensor and/or block, comma-separated (default: all three)",
    )
    parser.add_argument(
        "--axis",
        default="auto",
        metavar="auto|N",
        help="the block axis: auto (the default) blocks each tensor along the axis its layer "
        "sums over (the ONNX graph, the Keras layer, PyTorch's layout), else its last; N: "
        "axis N of every tensor that has it",
    )
    parser.add_argument(
        "--scale-rule",
        metavar="RULE",
        help="the rule of MX (power-of-two) block scales: floor (OCP, the default), rceil "
        "(rounded up so that no element saturates: the MXFP8 pretraining recipe), ceil, even",
    )
    parser.add_argument(
        "--min-size",
        type=int,
        metavar="N",
        help="leave out tensors of fewer than N values (default 2: scalars, such as an "
        "epsilon of shape (1,), are left out; 0 reports them)",
    )
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help="report only the tensors whose names match (repeatable), e.g. '*.weight'",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        help="leave out the tensors whose names match (repeatable), e.g. '*norm*'",
    )
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--weights-only",
        action="store_true",
        help="only the layers' weights: ONNX initializers of Conv/Gemm/MatMul/Gather, "
        "trainable Keras variables, else tensors of rank 2 or more (default: every tensor "
        "but the constants)",
    )
    chosen.add_argument(
        "--constants",
        action="store_true",
        help="report the constants too: ONNX Constant node outputs and initializers filled "
        "with one value other than 0 or 1 (a -1e9 mask, an epsilon) that only elementwise ops "
        "consume; left out by default, as they would fill the worst rows (--include NAME "
        "reports one)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a dask.distributed cluster, e.g. tcp://10.0.0.5:8786 (needs distributed)",
    )
    parser.add_argument(
        "--top",
        type=int,
        metavar="N",
        help="show the N worst rows (default 10; with --json or --csv: every row)",
    )
    parser.add_argument(
        "--min-snr",
        type=float,
        default=20.0,
        metavar="DB",
        help="the SNR a tensor needs to pass, in dB (default 20)",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the records as JSON")
    out.add_argument("--csv", action="store_true", help="print the records as CSV")
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (one is shown on a terminal's stderr only)",
    )
    return parser


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
