"""The formats named by ``-f``: element formats, block formats, and what an alias means.

``-f`` takes names, aliases, comma-separated lists and ``all``; an unknown name is one
line that suggests the nearest names (block formats included) or, for a family name
such as ``fp8``, its members. Where a name is an alias (``e4m3``) or one that is easy to
confuse (``float8_e4m3``, ml_dtypes' IEEE-style E4M3), the output says which format it
is (:func:`alias_notes`).

Examples
--------
>>> [c.name for c in choose_formats(["e4m3,half", "fp32"])]
['float8_e4m3fn', 'float16', 'float32']
>>> [c.name for c in choose_formats(["mxfp4", "nvfp4"], allow_blocks=True)]
['mxfp4', 'nvfp4']
>>> alias_notes(choose_formats(["e4m3"]))
['e4m3 is float8_e4m3fn: 4 exponent and 3 mantissa bits, max 448, no infinity (overflow gives NaN)']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..formats import FORMATS, Format, get_format
from ..formats.names import IEEE_NAMED
from ..formats.suggest import unknown_format_message
from ..scaling.block_formats import BLOCK_FORMATS, BlockFormat, get_block_format
from .output import DEFAULT_FORMAT, UsageError

__all__ = [
    "Choice",
    "alias_notes",
    "check_names",
    "choose_formats",
    "describe_format",
    "with_notes",
]

_IEEE_STYLE = ("float8_e4m3", "float8_e3m4")  # easy to take for the OCP 'fn' formats

_SPECIALS = {
    "ieee": "with inf and NaN",
    "fn": "no infinity (overflow gives NaN)",
    "none": "no infinity and no NaN (overflow saturates)",
    "fnuz": "no infinity, no -0, one NaN",
    "p3109": "with inf, one NaN, no -0",
}


@dataclass(frozen=True)
class Choice:
    """One format named by ``-f``: as typed, and what it is."""

    spec: str
    format: Format | None = None
    block: BlockFormat | None = None

    @property
    def name(self) -> str:
        chosen = self.block if self.block is not None else self.format
        assert chosen is not None
        return chosen.name


def _block(name: str) -> BlockFormat | None:
    try:
        return get_block_format(name)
    except ValueError:  # not a block format's name
        return None


def _element(name: str) -> Format:
    try:
        return get_format(name)
    except ValueError as err:
        if not str(err).startswith("unknown format"):
            raise
        hint = _block_family(name)
        if hint:
            raise UsageError(f"unknown format {name.strip()!r}; {hint}") from None
        raise UsageError(unknown_format_message(name, extra_names=BLOCK_FORMATS)) from None


def _block_family(name: str) -> str:
    """What a beginning of block format names means (``mx``, ``mxfp``, ``nv``): the
    formats it begins, or the one it begins; ``""`` for anything else."""
    key = name.strip().lower()
    members = [b for b in BLOCK_FORMATS.values() if len(key) > 1 and b.name.startswith(key)]
    if len(members) == 1:
        return f"did you mean {members[0].name}?"
    if not members:
        return ""
    labels = ", ".join(f"{b.name} ({b.element} elements)" for b in members)
    return f"{name.strip()} is a family of block formats: {labels}; name one of them"


def check_names(names: list[str]) -> None:
    """Refuse a name that is neither a format nor a block format with the words of
    ``-f``: the nearest names, or the members of a family (``fp8``, ``mx``)."""
    for name in names:
        if _block(name) is None:
            _element(name)


def choose_formats(specs: list[str] | None, *, allow_blocks: bool = False) -> list[Choice] | None:
    """The formats of the ``-f`` options, in order, once each; None for ``all``;
    float32 without ``-f``. Block formats only where ``allow_blocks``, never mixed
    with element formats."""
    if not specs:
        return [Choice(DEFAULT_FORMAT, get_format(DEFAULT_FORMAT))]
    names = [name.strip() for spec in specs for name in spec.split(",") if name.strip()]
    if any(name.lower() == "all" for name in names):
        return None
    if not names:
        raise UsageError("empty -f/--format; expected a format name such as float32")
    chosen: list[Choice] = []
    for name in names:
        block = _block(name)
        choice = Choice(name, block=block) if block else Choice(name, _element(name))
        if choice.name not in [c.name for c in chosen]:
            chosen.append(choice)
    blocks = [c.name for c in chosen if c.block is not None]
    if blocks and not allow_blocks:
        raise UsageError(
            f"block format {blocks[0]} quantizes values as a block (fpexplore 0.1 0.5 3 -f "
            f"{blocks[0]}); it does not apply to this command"
        )
    if blocks and len(blocks) < len(chosen):
        elements = [c.name for c in chosen if c.block is None]
        raise UsageError(
            f"block formats and element formats cannot be mixed: {', '.join(blocks)} with "
            f"{', '.join(elements)}; run them one command each"
        )
    return chosen


def formats_of(chosen: list[Choice] | None) -> list[Format]:
    """The element formats chosen (the whole catalogue for ``all``)."""
    if chosen is None:
        return list(FORMATS.values())
    return [c.format for c in chosen if c.format is not None]


def describe_format(fmt: Format) -> str:
    """Widths, max and special values in a few words."""
    if not fmt.is_signed:
        specials = "unsigned powers of two, no zero, one NaN"
    else:
        specials = _SPECIALS[fmt.nan_encoding]
    return (
        f"{fmt.exponent_bits} exponent and {fmt.mantissa_bits} mantissa bits, "
        f"max {fmt.max:g}, {specials}"
    )


def alias_notes(chosen: list[Choice] | None) -> list[str]:
    """One line for each name that is an alias, or easy to confuse: what format it is."""
    notes = []
    for choice in chosen or []:
        fmt = choice.format
        if fmt is None:
            continue
        if fmt.name in _IEEE_STYLE:
            notes.append(
                f"{fmt.name} is ml_dtypes' IEEE-style FP8: {describe_format(fmt)} "
                f"(not {fmt.name}fn)"
            )
        elif fmt.name not in FORMATS:  # eXmY: made on the spot (a typo of e4m3?)
            notes.append(
                f"{choice.spec} is a custom IEEE-like format (not in the catalogue): "
                f"{describe_format(fmt)}{_same_values(fmt)}"
            )
        elif choice.spec.lower() != fmt.name:
            notes.append(f"{choice.spec} is {fmt.name}: {describe_format(fmt)}")
    return notes


def _same_values(fmt: Format) -> str:
    """`` (the values of float32)`` where a named format has the same values."""
    for name in [*FORMATS, *IEEE_NAMED]:
        other = get_format(name)
        same = (other.exponent_bits, other.mantissa_bits, other.bias, other.nan_encoding) == (
            fmt.exponent_bits, fmt.mantissa_bits, fmt.bias, fmt.nan_encoding
        )  # fmt: skip
        if same:
            return f" (the values of {name})"
    return ""


def with_notes(text: str, notes: list[str]) -> str:
    """``text`` with a ``format`` line for each note after its title line."""
    if not notes:
        return text
    title, _, rest = text.partition("\n")
    lines = [f"  format    {note}" for note in notes]
    return "\n".join([title, *lines, rest]) if rest else "\n".join([title, *lines])
