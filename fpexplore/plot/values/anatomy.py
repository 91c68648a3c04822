"""The book's figure: a float's bits as boxes, coloured by field, with each field's integer."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from fpexplore.core.decode import FloatParts, decode
from fpexplore.formats import FormatLike
from fpexplore.render.html import contrast_text_color

from .._style import FIELD_COLORS, LABEL_SIZE, TITLE_SIZE

__all__ = ["bits"]

_GAP = 0.35  # space between fields, in box widths
_DIFFERS = "#000000"  # outline of the bits that differ from compare_to


def _formula(parts: FloatParts) -> str:
    """The value formula in mathtext, with the numbers filled in."""
    fmt = parts.format
    kind = parts.kind.value
    if kind in ("inf", "nan"):
        return fmt.special_rule(kind)
    normal = kind == "normal"
    lead, exp_field = ("1", parts.exponent) if normal else ("0", 1)
    m = fmt.mantissa_bits
    math = (
        rf"$(-1)^{{{parts.sign}}} \times 2^{{{exp_field}-{fmt.bias}}} \times "
        rf"({lead} + {parts.mantissa}/2^{{{m}}})$"
    )
    return f"{math} = {parts.value!r}"


def _as_parts(x: Any, fmt: FormatLike) -> FloatParts:
    return x if isinstance(x, FloatParts) else decode(x, fmt)


def bits(
    x: Any,
    fmt: FormatLike = "float32",
    ax: Axes | None = None,
    *,
    label: str | None = None,
    compare_to: Any = None,
) -> Axes:
    """Draw a value's bits as boxes coloured by field, with sign, exponent and mantissa below.

    This is the textbook's figure of pi in float32 (claims 8 and 9): sign 0,
    exponent 128, mantissa 4788187, and the formula that turns them into the value.

    Parameters
    ----------
    x : FloatParts or number
        A decoded value (from :func:`fpexplore.decode` or
        :func:`fpexplore.from_bits`), or anything :func:`fpexplore.decode`
        accepts, which is then rounded into ``fmt``.
    fmt : format spec, default "float32"
        Used only when ``x`` is not already a FloatParts.
    ax : matplotlib Axes, optional
        Drawn on when given; otherwise a new figure sized to the format.
    label : str, optional
        What ``x`` stands for, e.g. ``"pi"``: the title then reads "pi in float32:
        stored as 3.1415927410125732, ...", naming the number meant, not only the
        value stored.
    compare_to : FloatParts or number, optional
        Another value of the same format (a number is rounded into it): the bits in
        which the two codes differ get a thick outline, and the title says how many.

    Returns
    -------
    matplotlib.axes.Axes
        One Rectangle patch per bit (in ``ax.patches``, most significant
        first); the fields' integers are text objects of their own. With
        ``compare_to``, the patches of the differing bits have gid ``"differs"``.

    Examples
    --------
    >>> from fpexplore import from_bits
    >>> ax = bits(from_bits(0x40490FDB, "float32"))
    >>> len(ax.patches), "4788187" in [t.get_text() for t in ax.texts]
    (32, True)
    >>> import math
    >>> ax = bits(math.pi, label="pi", compare_to=3.14159)
    >>> ax.get_title().startswith("pi in float32")
    True
    >>> sum(patch.get_gid() == "differs" for patch in ax.patches)
    3
    """
    parts = _as_parts(x, fmt)
    fmt = parts.format
    other = None if compare_to is None else _as_parts(compare_to, fmt)
    if other is not None and other.format != fmt:
        raise ValueError(
            f"compare_to must be a value of {fmt.name}, the format drawn; got one of "
            f"{other.format.name}"
        )
    differs = [] if other is None else [a != b for a, b in zip(parts.bits, other.bits, strict=True)]
    n = fmt.bits
    width = 1 + 2 * _GAP + n
    if ax is None:
        fig_width = min(16.0, max(6.5, 0.34 * n + 2.0))
        _, ax = plt.subplots(figsize=(fig_width, 3.4), layout="constrained")
    fig = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure  # a subfigure's root
    fig_width_in = fig.get_size_inches()[0] * ax.get_position().width
    box_points = 72 * fig_width_in / (width + 1)
    bit_size = max(6.0, min(22.0, 0.75 * box_points))

    fields = [
        ("sign", int(fmt.is_signed), parts.sign),  # no sign bit in E8M0
        ("exponent", fmt.exponent_bits, parts.exponent),
        ("mantissa", fmt.mantissa_bits, parts.mantissa),
    ]
    left = 0.0
    position = 0
    for field, count, value in fields:
        if count == 0:
            continue
        color = FIELD_COLORS[field]
        text_color = contrast_text_color(color)
        for i in range(count):
            bit = parts.bits[position + i]
            box = Rectangle(
                (left + i, 0), 1, 1, facecolor=color, edgecolor="white", lw=1.5, label=field
            )
            if differs and differs[position + i]:
                box.set(edgecolor=_DIFFERS, lw=4, gid="differs", zorder=3)
            ax.add_patch(box)
            ax.text(
                left + i + 0.5,
                0.5,
                bit,
                ha="center",
                va="center",
                color=text_color,
                fontsize=bit_size,
                fontweight="bold",
                family="monospace",
            )
        centre = left + count / 2
        ax.plot([left + 0.05, left + count - 0.05], [-0.18, -0.18], color=color, lw=3)
        name = f"{field} ({count} bits)" if count >= 6 else field
        ax.text(centre, -0.32, name, ha="center", va="top", fontsize=LABEL_SIZE, color=color)
        ax.text(
            centre,
            -0.82,
            str(value),
            ha="center",
            va="top",
            fontsize=LABEL_SIZE + 4,
            fontweight="bold",
            color=color,
        )
        position += count
        left += count + _GAP
    ax.text(width / 2 - 0.5, -1.55, _formula(parts), ha="center", va="top", fontsize=LABEL_SIZE + 1)
    ax.set_xlim(-0.5, width)
    ax.set_ylim(-2.05, 1.1)
    ax.set_axis_off()
    title = f"{parts.value!r} in {fmt.name}: bits {parts.hex} ({parts.kind.value})"
    if label is not None:
        title = f"{label} in {fmt.name}: stored as {parts.value!r}, bits {parts.hex}"
    if other is not None:
        n = sum(differs)
        title += f"\n{n} bit{'s' if n != 1 else ''} (outlined) differ from {other.hex}"
    ax.set_title(title, fontsize=TITLE_SIZE)
    return ax
