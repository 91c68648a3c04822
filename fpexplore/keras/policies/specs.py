"""How one kind of operand is rounded (:class:`OperandSpec`), and the checks that
turn a policy's arguments into catalogue names or a clear error naming the bad value.

>>> OperandSpec("float8_e4m3fn", "delayed", "nearest_even").describe()
'float8_e4m3fn, delayed scaling (amax history of 16), nearest even'
>>> check_scaling("mxfp8", "scaling")  # an alias of a block format
'mxfp8_e4m3'
"""

from __future__ import annotations

import contextlib
import contextvars
import numbers
from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass
from typing import Any

import numpy as np

from ... import BLOCK_FORMATS, ROUNDING_MODES, Format, get_block_format, get_format
from ...formats import warn_custom_format

__all__ = [
    "SCALE_RULES",
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


SCALE_RULES = ("floor", "rceil", "ceil", "even")
"""How a block's power-of-two scale is chosen (``scale_rule``; ``None``: the block
format's own rule, OCP's floor for MX)."""


@dataclass(frozen=True)
class OperandSpec:
    """How one operand of a GEMM is quantized: format, scaling, rounding, blocks.

    Parameters
    ----------
    format : str
        The element format (any ``fpexplore`` format float32 holds), or a block
        format's name (``"nvfp4"``, ``"mxfp8_e4m3"``...), which sets ``scaling`` to it
        and ``format`` to its element format.
    scaling : str
        One of :data:`SCALINGS` or a block format's name (``format`` is then its
        element format).
    rounding : str
        Any of ``fpexplore.ROUNDING_MODES``; ``"stochastic"`` draws fresh bits at
        every step.
    block_size : int, pair of ints or None
        For a block scaling only: the block's length along the operand's summed axis
        (``None``: the block format's own, 32 for MX, 16 for NVFP4), or a 2-D tile
        ``(along the summed axis, along the other axis of the GEMM)``, e.g. ``(16, 16)``
        for NVFP4 weights, which makes ``W`` in fprop and ``Wᵀ`` in dgrad the same
        quantized matrix.
    scale_rule : str or None
        For a block scaling with power-of-two scales: one of :data:`SCALE_RULES`.
    hadamard : int or None
        The size (a power of two) of the random Hadamard transform applied along the
        summed axis before quantizing; only for the wgrad operands, where it leaves
        ``xᵀ dY`` unchanged in exact arithmetic.
    history_len : int
        Steps remembered by ``"delayed"`` scaling (a policy sets it from its
        ``amax_history_len``).

    Examples
    --------
    >>> OperandSpec("nvfp4", block_size=(16, 16))
    OperandSpec(format='float4_e2m1fn', scaling='nvfp4', rounding='nearest_even', \
block_size=(16, 16), scale_rule=None, hadamard=None, history_len=16)
    >>> OperandSpec("float8_e4m3fn", block_size=32)
    Traceback (most recent call last):
    ...
    ValueError: block_size: 32 needs a block scaling; scaling is 'none' (expected a block \
format's name: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4, mxint8, nvfp4)
    """

    format: str
    scaling: str = "none"
    rounding: str = "nearest_even"
    _: KW_ONLY
    block_size: int | tuple[int, int] | None = None
    scale_rule: str | None = None
    hadamard: int | None = None
    history_len: int = 16

    def __post_init__(self) -> None:
        put = object.__setattr__
        fmt: str | None = self.format
        scaling = check_scaling(self.scaling, "scaling")
        if isinstance(fmt, str) and scaling == "none":
            try:
                scaling = get_block_format(fmt).name  # a block format named as the format
                fmt = None
            except ValueError:
                pass
        resolved = _element(check_format(fmt, "format"), scaling, "format")
        if resolved is None:
            raise ValueError("format: None is float32; give a format (a role of None is float32)")
        if _NOTICES.get():  # "e4m4": a custom format, or e4m3? (said once, where it is given)
            warn_custom_format(self.format, stacklevel=4)
        check_rounding(self.rounding, "rounding")
        put(self, "format", resolved)
        put(self, "scaling", scaling)
        put(self, "block_size", _check_block_size(self.block_size, scaling))
        if self.scale_rule is not None:
            if self.scale_rule not in SCALE_RULES:
                allowed = ", ".join(repr(r) for r in SCALE_RULES)
                raise ValueError(
                    f"scale_rule: unknown rule {self.scale_rule!r}; expected None or one of "
                    f"{allowed}"
                )
            if scaling in SCALINGS or BLOCK_FORMATS[scaling].scale != "e8m0":
                raise ValueError(
                    f"scale_rule: {self.scale_rule!r} chooses a power-of-two block scale; "
                    f"scaling {scaling!r} has none (expected an MX block format)"
                )
        if self.hadamard is not None:
            size = self.hadamard
            if not _is_int(size) or size < 2 or size & (size - 1):
                raise ValueError(
                    f"hadamard: expected None or a power of two of at least 2, got {size!r}"
                )
            put(self, "hadamard", int(size))

    @property
    def is_block(self) -> bool:
        """True when the scaling is a block format (a scale per block of values)."""
        return self.scaling not in SCALINGS

    @property
    def is_2d(self) -> bool:
        """True for 2-D tiles (``block_size`` a pair)."""
        return isinstance(self.block_size, tuple)

    def short(self) -> str:
        """A few words: ``float8_e4m3fn delayed``, ``float4_e2m1fn nvfp4 16x16 stochastic``."""
        words = [self.format]
        if self.scaling != "none":
            words.append(self.scaling)
        if self.block_size is not None:
            size = self.block_size
            words.append("x".join(map(str, size)) if isinstance(size, tuple) else f"1x{size}")
        if self.scale_rule is not None:
            words.append(self.scale_rule)
        if self.rounding != "nearest_even":
            words.append(self.rounding)
        if self.hadamard is not None:
            words.append(f"hadamard {self.hadamard}")
        return " ".join(words)

    def describe(self) -> str:
        """One line: ``float8_e4m3fn, per-tensor scaling, nearest even``."""
        if self.is_block:
            scaled = f"{self.scaling} blocks"
            if self.block_size is not None:
                size = self.block_size
                shape = "x".join(map(str, size)) if isinstance(size, tuple) else f"1x{size}"
                scaled = f"{self.scaling} {shape} blocks"
            if self.scale_rule is not None:
                scaled += f" ({self.scale_rule} scales)"
        elif self.scaling == "none":
            scaled = "no scaling"
        elif self.scaling == "delayed":
            scaled = f"delayed scaling (amax history of {self.history_len})"
        else:
            scaled = "per-tensor scaling"
        text = f"{self.format}, {scaled}, {self.rounding.replace('_', ' ')}"
        if self.hadamard is not None:
            text += f", Hadamard {self.hadamard}"
        return text


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_block_size(size: Any, scaling: str) -> int | tuple[int, int] | None:
    if size is None:
        return None
    if scaling in SCALINGS:
        raise ValueError(
            f"block_size: {size!r} needs a block scaling; scaling is {scaling!r} (expected a "
            f"block format's name: {', '.join(BLOCK_FORMATS)})"
        )
    if _is_int(size) and size >= 1:
        return int(size)
    if (
        isinstance(size, tuple | list)
        and len(size) == 2
        and all(_is_int(s) and s >= 1 for s in size)
    ):
        return (int(size[0]), int(size[1]))
    raise ValueError(
        f"block_size: expected None, a positive int (1-D blocks) or a pair of positive "
        f"ints (2-D tiles), got {size!r}"
    )


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


_NOTICES = contextvars.ContextVar("operand_spec_notices", default=True)


@contextlib.contextmanager
def quiet_notices() -> Iterator[None]:
    """No custom-format notice from the specs made inside: made from a name that the
    caller has already said the notice of (a policy's ``forward``, a role's string)."""
    token = _NOTICES.set(False)
    try:
        yield
    finally:
        _NOTICES.reset(token)


def operand(fmt: str | None, scaling: str, rounding: str, what: str, history: int):
    """The resolved (format, scaling) of one operand kind, or None for float32."""
    fmt = _element(fmt, scaling, what)
    if fmt is None:
        return None
    with quiet_notices():
        return OperandSpec(fmt, scaling, rounding, history_len=history)


def _element(fmt: str | None, scaling: str, what: str) -> str | None:
    """The element format of an operand scaled by ``scaling`` (None: float32)."""
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
    return fmt


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
