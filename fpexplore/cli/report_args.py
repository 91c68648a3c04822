"""The arguments of ``fpexplore report``: its parser, description and help.

:func:`build_report_parser` is the parser :mod:`fpexplore.cli.report` runs; a usage
error raises :class:`~fpexplore.cli.output.UsageError` (exit 2, one line), never
argparse's own exit.
"""

from __future__ import annotations

import argparse

from .output import PROG, UsageParser

__all__ = ["SCALING_NAMES", "build_report_parser"]

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


def build_report_parser() -> argparse.ArgumentParser:
    """The argument parser of ``fpexplore report``."""
    parser = UsageParser(
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
        "epsilon of one value, are left out; 0 reports them)",
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
