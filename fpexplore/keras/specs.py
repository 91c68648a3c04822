"""How one kind of operand is rounded (:class:`OperandSpec`), and the checks that
turn a policy's arguments into catalogue names or a clear error naming the bad value.

>>> OperandSpec("float8_e4m3fn", "delayed", "nearest_even").describe()
'float8_e4m3fn, delayed scaling (amax history of 16), nearest even'
>>> check_scaling("mxfp8", "scaling")  # an alias of a block format
'mxfp8_e4m3'
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import BLOCK_FORMATS, ROUNDING_MODES, Format, get_block_format, get_format

__all__ = [
    "SCALINGS",
    "WEIGHT_ROUNDINGS",
    "OperandSpec",
    "backward_block",
    "check_format",
    "check_rounding",
    "check_scaling",
    "is_positive",
    "operand",
]

SCALINGS = ("none", "per_tensor", "delayed")
"""The per-tensor scalings; a block format's name (``BLOCK_FORMATS``) is the other kind."""
WEIGHT_ROUNDINGS = ("nearest_even", "stochastic")
_F32 = np.finfo(np.float32)


@dataclass(frozen=True)
class OperandSpec:
    """How one kind of operand is rounded: its format, scaling and rounding mode.

    ``scaling`` is one of :data:`SCALINGS` or a block format's name; for a block
    format, ``format`` is its element format.
    """

    format: str
    scaling: str
    rounding: str
    history_len: int = 16

    @property
    def is_block(self) -> bool:
        """True when the scaling is a block format (a scale per block of values)."""
        return self.scaling not in SCALINGS

    def short(self) -> str:
        """A few words: ``float8_e4m3fn delayed``, ``float4_e2m1fn nvfp4 stochastic``."""
        words = [self.format]
        if self.scaling != "none":
            words.append(self.scaling)
        if self.rounding != "nearest_even":
            words.append(self.rounding)
        return " ".join(words)

    def describe(self) -> str:
        """One line: ``float8_e4m3fn, per-tensor scaling, nearest even``."""
        if self.is_block:
            scaled = f"{self.scaling} blocks"
        elif self.scaling == "none":
            scaled = "no scaling"
        elif self.scaling == "delayed":
            scaled = f"delayed scaling (amax history of {self.history_len})"
        else:
            scaled = "per-tensor scaling"
        return f"{self.format}, {scaled}, {self.rounding.replace('_', ' ')}"


def check_format(value: Any, what: str) -> str | None:
    """The catalogue name of a format spec, checked to fit in float32."""
    if value is None:
        return None
    try:
        fmt: Format = get_format(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what}: unknown format {value!r} ({error})") from None
    fits = (
        fmt.nmant <= 23
        and fmt.max <= float(_F32.max)
        and fmt.smallest_subnormal >= float(_F32.smallest_subnormal)
    )
    if not fits:
        raise ValueError(
            f"{what}: {fmt.name} has values that float32 cannot hold; training is "
            "emulated in float32, so the format must fit in it"
        )
    return fmt.name


def check_scaling(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {value!r}")
    if value in SCALINGS:
        return value
    try:
        return get_block_format(value).name
    except ValueError:
        expected = ", ".join(repr(s) for s in (*SCALINGS, *BLOCK_FORMATS))
        raise ValueError(f"{what}: unknown scaling {value!r}; expected one of {expected}") from None


def check_rounding(value: Any, what: str, allowed: tuple[str, ...] = ROUNDING_MODES) -> str:
    if value not in allowed:
        expected = ", ".join(repr(m) for m in allowed)
        raise ValueError(f"{what}: unknown rounding mode {value!r}; expected one of {expected}")
    return str(value)


def operand(fmt: str | None, scaling: str, rounding: str, what: str, history: int):
    """The resolved (format, scaling) of one operand kind, or None for float32."""
    if scaling not in SCALINGS:
        element = BLOCK_FORMATS[scaling].element
        if element == "int8":
            raise ValueError(f"{what}: {scaling} has integer elements; choose a float block format")
        if fmt is None:
            fmt = get_format(element).name
        elif fmt != get_format(element).name:
            raise ValueError(
                f"{what}: format {fmt!r} is not the element format of {scaling!r} ({element})"
            )
    elif fmt is None:
        if scaling != "none":
            raise ValueError(f"{what}: scaling {scaling!r} needs a format to scale into")
        return None
    return OperandSpec(fmt, scaling, rounding, history)


def backward_block(scaling: str, backward: str | None) -> str:
    """The block format of ``scaling``'s family whose elements are ``backward``."""
    if backward is None or BLOCK_FORMATS[scaling].element == backward:
        return scaling
    family = BLOCK_FORMATS[scaling]
    for block in BLOCK_FORMATS.values():
        same = (block.block_size, block.scale) == (family.block_size, family.scale)
        if same and block.element == backward:
            return block.name
    raise ValueError(
        f"backward_scaling: {scaling!r} has no sibling with {backward} elements; "
        "pass backward_scaling explicitly"
    )


def is_positive(value: Any) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, numbers.Real)
        and bool(np.isfinite(float(value)))
        and float(value) > 0
    )
