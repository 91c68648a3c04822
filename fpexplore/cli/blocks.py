"""Block formats on the command line: ``fpexplore 0.1 0.5 3 100 -f mxfp4``.

The values are one array, quantized block by block (:func:`fpexplore.quantize_blocks`)
and explained per block by :mod:`fpexplore.explain.blocks`: the amax, the shared scale,
each element's code, value and error, and which elements the scale flushed to zero.
Block scaling works on float64 arrays, so each value is first read as its nearest
float64 (the output says so where that changes it).

Examples
--------
>>> from fpexplore.cli.formats import choose_formats
>>> (choice,) = choose_formats(["mxfp4"], allow_blocks=True)
>>> record = block_record(quantize(["0.1", "0.5", "3", "100"], choice.block))
>>> record["values"], record["blocks"][0]["scale"]
([0.0, 0.0, 0.0, 96.0], 16.0)
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from ..core.decode import decode
from ..explain.blocks import block_table
from ..render.text import short_repr
from ..scaling.blocks import BlockFormat, QuantizedBlocks, quantize_blocks
from .expression import operand_value, parse_expression
from .output import UsageError

__all__ = ["block_record", "block_text", "quantize"]


def quantize(
    values: list[str], spec: BlockFormat, rounding: str = "nearest_even"
) -> QuantizedBlocks:
    """The values (as typed; each read as its nearest float64) quantized as one array."""
    x = np.array([_float64(v).value for v in values], dtype=np.float64)
    return quantize_blocks(x, spec, rounding)


def _float64(text: str) -> Any:
    expression = parse_expression(text)
    if expression is not None and expression[0] != "value":
        raise UsageError(
            f"a block format quantizes numbers, and {text!r} is an operation: compute it in "
            "an element format (-f float4_e2m1fn, -f e4m3...)"
        )
    return decode(operand_value(text), "float64")


def _smallest_element(q: QuantizedBlocks) -> float:
    element = q.element_format
    return 2.0**-6 if element is None else element.smallest_subnormal  # MXINT8: 1/64


def _notes(q: QuantizedBlocks, typed: list[str]) -> list[str]:
    notes = []
    moved = [v for v in typed if "inexact" in _float64(v).flags]  # not NaN: kept as NaN
    if moved:
        shown = ", ".join(short_repr(v)[1:-1] for v in moved[:4]) + (", ..." * (len(moved) > 4))
        notes.append(f"read as the nearest float64 (block scaling works on float64 arrays): "
                     f"{shown}")  # fmt: skip
    for b in range(q.scales.size):
        info = q.block(b)
        flushed = [float(x) for x, v in zip(info["input"], info["values"], strict=True)
                   if x != 0 and v == 0]  # fmt: skip
        if flushed:
            smallest = _smallest_element(q) * info["scale"]
            shown = ", ".join(repr(x) for x in flushed[:6]) + (", ..." * (len(flushed) > 6))
            notes.append(
                f"block {b}: {len(flushed)} of {len(info['input'])} values flushed to zero "
                f"({shown}): with amax {info['amax']!r}, the smallest nonzero value of the "
                f"block is {_smallest_element(q)!r} x {info['scale']!r} = {smallest!r}"
            )
    return notes


def block_text(q: QuantizedBlocks, typed: list[str]) -> str:
    """Every block of ``q`` as a table, then the notes."""
    element = q.format.element
    lines = [
        f"{len(typed)} value{'s' if len(typed) != 1 else ''} in {q.format.name} "
        f"(elements {element}, {q.block_size} a block, "
        f"{'E8M0 shared scale' if q.format.scale == 'e8m0' else 'E4M3 block scale'})"
    ]
    for b in range(q.scales.size):
        lines += ["", str(block_table(q, b))]
    notes = [textwrap.fill(note, 88, subsequent_indent="  ") for note in _notes(q, typed)]
    return "\n".join([*lines, "", *notes]).rstrip()


def block_record(q: QuantizedBlocks) -> dict[str, Any]:
    """A JSON-friendly dict: the elements' inputs, codes and values, each block's scale."""
    blocks = []
    for b in range(q.scales.size):
        info = q.block(b)
        blocks.append({key: info[key] for key in ("amax", "scale_code", "scale")} | {"index": b})
    return {
        "format": q.format.name,
        "element": q.format.element,
        "block_size": q.block_size,
        "tensor_scale": q.tensor_scale,
        "inputs": q.input.astype(np.float64).tolist(),
        "codes": q.codes.tolist(),
        "values": q.values.tolist(),
        "abs_errors": np.abs(q.values - q.input).tolist(),
        "blocks": blocks,
    }
