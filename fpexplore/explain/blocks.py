"""One block of a block-scaled array, explained: its amax, the shared scale, and
each element's code, value and error, as text and HTML tables.

>>> import numpy as np
>>> from fpexplore.scaling.blocks import quantize_blocks
>>> q = quantize_blocks(np.array([0.3, -1.7, 5.9, 100.0]), "mxfp4")
>>> print(block_table(q, 0).title)
mxfp4 block 0 of 1: amax = 100.0, shared scale X = 2**(6 - 2) = 16.0 (E8M0 code 0x83)
"""

from __future__ import annotations

import math
from typing import Any

from ..render.table import Table

__all__ = ["block_table", "blocks_html", "blocks_text"]

_SHOWN = 8  # elements shown in a block's table before "..."


def _scale_text(q: Any, info: dict[str, Any]) -> str:
    spec = q.format
    if spec.scale == "e8m0":
        code = info["scale_code"]
        if code == 0xFF:
            return "shared scale X = NaN (E8M0 code 0xff: the block holds inf or NaN)"
        k = code - 127
        rule = getattr(q, "scale_rule", None) or "floor"
        if rule != "floor":
            return (
                f"shared scale X = 2**{k} ({rule} rule) = {info['scale']!r} (E8M0 code {code:#04x})"
            )
        if info["amax"] > 0 and k > -127:
            e = math.frexp(info["amax"])[1] - 1
            rule = f"2**({e} - {spec.emax_elem})"
        else:
            rule = f"2**{k}"
        return f"shared scale X = {rule} = {info['scale']!r} (E8M0 code {code:#04x})"
    if spec.scale in ("float32", "float32_pow2"):
        kind = "a float32 power of two" if spec.scale == "float32_pow2" else "float32, amax / max"
        return f"block scale X = {info['scale']!r} ({kind}, bits {info['scale_code']:#010x})"
    block_scale = info["scale"] / q.tensor_scale if q.tensor_scale else math.nan
    return (
        f"block scale s = {block_scale!r} (E4M3 code {info['scale_code']:#04x}) times "
        f"per-tensor scale {q.tensor_scale!r}"
    )


def block_table(q: Any, index: int | tuple[int, ...] = 0, *, limit: int | None = None) -> Table:
    """One block as a :class:`Table`: each element's input, code, element value,
    dequantized value and absolute error."""
    info = q.block(index)
    flat = q.scales.size
    number = index if isinstance(index, int) else info["index"]
    title = f"{q.format.name} block {number} of {flat}: amax = {info['amax']!r}, "
    title += _scale_text(q, info)
    width = 2 if q.format.element != "float4_e2m1fn" else 1
    rows = []
    count = len(info["input"]) if limit is None else min(limit, len(info["input"]))
    for i in range(count):
        rows.append([
            i, float(info["input"][i]), f"{int(info['codes'][i]):#0{width + 2}x}",
            float(info["element_values"][i]), float(info["values"][i]),
            float(info["abs_error"][i]),
        ])  # fmt: skip
    notes = [f"element format {q.format.element}; value = element value * scale; "
             f"{q.block_size} elements a block"]  # fmt: skip
    if count < len(info["input"]):
        notes.append(f"{len(info['input']) - count} more elements not shown")
    columns = ["element", "input", "code", "element value", "value", "abs error"]
    # every digit of a value (NVFP4's two-level scale makes 99.99999904632568 of 100)
    return Table(columns, rows, title=title, notes=notes, formatters={"value": repr})


def _summary(q: Any) -> str:
    return (
        f"{q.format.name}: {q.codes.size} elements along axis {q.axis} in {q.scales.size} "
        f"blocks of {q.block_size}"
        + (f", per-tensor scale {q.tensor_scale!r}" if q.tensor_scale is not None else "")
        + _short_note(q)
    )


def _short_note(q: Any) -> str:
    """What a block axis shorter than a block means (each such axis named, with its
    length: 1-D blocks and 2-D tiles alike), or nothing."""
    short = getattr(q, "short_axes", ())
    if not short:
        return ""
    if len(getattr(q, "axes", ())) < 2:  # 1-D blocks
        ((axis, length, size),) = short
        return (
            f"; axis {axis} holds {length} value{'s' if length != 1 else ''}, fewer than a "
            f"block of {size}: each block holds {length} (block along the summed axis with "
            "axis=)"
        )
    shape = q.codes.shape
    default = q.format.block_size
    sizes = q.block_shape or (default if isinstance(default, tuple) else (default,))
    lengths = {axis: length for axis, length, _ in short}
    held = " x ".join(str(min(int(shape[a]), int(s))) for a, s in zip(q.axes, sizes, strict=False))
    said = "; ".join(
        f"axis {axis} holds {length} value{'s' if length != 1 else ''}, fewer than the "
        f"tile's {size}"
        for axis, length, size in short
    )
    most = "" if len(lengths) == len(q.axes) else "at most "
    return f"; {said}: each tile holds {most}{held}"


def blocks_text(q: Any) -> str:
    """A summary line and the first block, as text."""
    if q.scales.size == 0:
        return _summary(q)
    return _summary(q) + "\n\n" + str(block_table(q, 0, limit=_SHOWN))


def blocks_html(q: Any) -> str:
    """A summary line and the first block, as HTML."""
    if q.scales.size == 0:
        return f"<p>{_summary(q)}</p>"
    return f"<p>{_summary(q)}</p>" + block_table(q, 0, limit=_SHOWN)._repr_html_()
