"""Which rows a report computes: the formats asked for, as (scaling, format) rows.

A plain format (``"e4m3"``, ``"bfloat16"``, a dtype) gives the rows ``none`` and
``per_tensor``, and ``block`` in the MX format of its element type where there is
one (:data:`MX_OF_ELEMENT`); a block format (``"mxfp4"``, ``"nvfp4"``, a
:class:`~fpexplore.BlockFormat` of one's own) its ``block`` row. A format named twice
gives its rows once; ``scale_rule`` goes to the block rows of power-of-two scales.

>>> [(row.scaling, row.label) for row in parse_formats(["bf16", "nvfp4"])[1]]
[('none', 'bfloat16'), ('per_tensor', 'bfloat16'), ('block', 'nvfp4')]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..formats import Format, get_format, warn_custom_format
from ..scaling.blocks import BLOCK_FORMATS, BlockFormat, get_block_format
from ..scaling.tiles import SCALE_RULES
from .routes.rows import Row

__all__ = ["MX_OF_ELEMENT", "SCALINGS", "parse_formats", "pow2_row"]

SCALINGS = ("none", "per_tensor", "block")
MX_OF_ELEMENT = {spec.element: spec for spec in BLOCK_FORMATS.values() if spec.name != "nvfp4"}
"""The MX block format of each element format (the ``block`` row of a plain format)."""


def parse_formats(
    formats: Any, scalings: Iterable[str] = SCALINGS, scale_rule: Any = None
) -> tuple[list[Format | BlockFormat], list[Row]]:
    """The formats asked for, and the report's rows (those of ``scalings``; block
    rows of power-of-two scales with ``scale_rule``)."""
    wanted = _check_scalings(scalings)
    rule = _check_rule(scale_rule)
    if isinstance(formats, str | Format | BlockFormat) or not hasattr(formats, "__iter__"):
        formats = [formats]
    parsed: list[Format | BlockFormat] = []
    rows: list[Row] = []
    for spec in formats:  # a format named twice (e4m3, float8_e4m3fn) gives its rows once
        if isinstance(spec, BlockFormat) or (isinstance(spec, str) and _is_block(spec)):
            block = get_block_format(spec)
            if block not in parsed:
                parsed.append(block)
                rows.append(Row("block", block.element_format, block, block.name))
            continue
        warn_custom_format(spec, stacklevel=4)
        fmt = get_format(spec)
        if fmt in parsed:
            continue
        parsed.append(fmt)
        rows += [Row("none", fmt, None, fmt.name), Row("per_tensor", fmt, None, fmt.name)]
        if fmt.name in MX_OF_ELEMENT and fmt == get_format(fmt.name):
            rows.append(Row("block", fmt, MX_OF_ELEMENT[fmt.name], fmt.name))
    if not parsed:
        raise ValueError("tensor_report needs at least one format")
    rows = [row for row in rows if row.scaling in wanted]
    if scale_rule is None:
        return parsed, rows
    if not any(pow2_row(row) for row in rows):
        names = ", ".join(dict.fromkeys(row.label for row in rows)) or "none"
        raise ValueError(
            f"scale_rule={scale_rule!r} applies to the block rows of power-of-two scales "
            f"(MX formats: mxfp8_e4m3, mxfp4...; float32_pow2), and no row has one (rows of "
            f"{names} with scalings {', '.join(wanted)})"
        )
    return parsed, [row._replace(rule=rule) if pow2_row(row) else row for row in rows]


def pow2_row(row: Row) -> bool:
    return row.block is not None and row.block.scale in ("e8m0", "float32_pow2")


def _check_rule(scale_rule: Any) -> str:
    if scale_rule is None:
        return "floor"
    if not isinstance(scale_rule, str):
        raise TypeError(
            f"scale_rule must be a str, one of {', '.join(SCALE_RULES)}, got {scale_rule!r}"
        )
    if scale_rule not in SCALE_RULES:
        raise ValueError(
            f"unknown scale_rule {scale_rule!r}; expected one of {', '.join(SCALE_RULES)}"
        )
    return scale_rule


def _check_scalings(scalings: Iterable[str]) -> tuple[str, ...]:
    if isinstance(scalings, str):
        scalings = (scalings,)
    wanted = tuple(scalings)
    for s in wanted:
        if s not in SCALINGS:
            raise ValueError(f"unknown scaling {s!r}; expected some of {', '.join(SCALINGS)}")
    if not wanted:
        raise ValueError(f"scalings is empty; expected some of {', '.join(SCALINGS)}")
    return wanted


def _is_block(name: str) -> bool:
    try:
        get_block_format(name)
    except ValueError:
        return False
    return True
