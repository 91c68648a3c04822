"""The rules a :class:`~fpexplore.Format` must meet to be made: every function of
fpexplore handles a format that passes them, and one that fails is refused with a
message that says which rule it breaks (issue 13: a format the model cannot hold
must not give ``max == 0.0`` or a code of -1).

Examples
--------
>>> from fpexplore import Format
>>> Format("x", 4, 3, nan_encoding="fnuz", is_signed=False)
Traceback (most recent call last):
...
ValueError: unsigned format 'x' must use nan_encoding 'fn' (NaN at the top code, as E8M0: \
the result for the negative numbers it cannot hold), got 'fnuz'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the format module imports this one
    from .format import Format

__all__ = ["check_format"]


def check_format(fmt: Format) -> None:
    """Raise ValueError unless ``fmt`` (fields already type-checked) is a format
    every function handles: its encoding, its values, their range."""
    _check_encoding(fmt)
    _check_range(fmt)


def _check_encoding(fmt: Format) -> None:
    name = repr(fmt.name)
    if fmt.nan_encoding == "ieee" and (fmt.exponent_bits < 2 or fmt.mantissa_bits < 1):
        raise ValueError(
            "an IEEE-style format needs at least 2 exponent bits and 1 mantissa bit, "
            f"got exponent_bits={fmt.exponent_bits}, mantissa_bits={fmt.mantissa_bits}"
        )
    if not fmt.is_signed and fmt.nan_encoding != "fn":
        raise ValueError(
            f"unsigned format {name} must use nan_encoding 'fn' (NaN at the top code, "
            "as E8M0: the result for the negative numbers it cannot hold), "
            f"got {fmt.nan_encoding!r}"
        )
    if not fmt.has_subnormals and fmt.is_signed:
        raise ValueError(
            f"format {name} without subnormals has no zero; fpexplore supports that only "
            "in unsigned formats (is_signed=False, as E8M0), where no value crosses zero"
        )
    if fmt.max_code < int(fmt.has_zero):
        raise ValueError(
            f"format {name} has no finite nonzero value: its {fmt.nan_encoding!r} "
            "encoding spends every nonzero pattern on infinity or NaN"
        )
    if fmt.tabulated and fmt.bits > 16:
        raise ValueError(
            f"format {name} with {fmt.mantissa_bits} mantissa bits must be at most 16 "
            f"bits wide (it has {fmt.bits}): its {fmt.nan_encoding!r} encoding"
            f"{'' if fmt.is_signed else ', unsigned'} is computed from tables of every code"
        )


def _check_range(fmt: Format) -> None:
    lowest = fmt.emin - fmt.mantissa_bits if fmt.has_subnormals else fmt.emin
    floor = -1073 if fmt.tabulated else -1074  # tables keep midpoints exact
    if fmt.emax > (1022 if fmt.tabulated else 1023) or lowest < floor:
        raise ValueError(
            f"format {fmt.name!r} reaches beyond float64's range "
            f"(emax={fmt.emax}, smallest exponent {lowest}); "
            "fpexplore supports formats whose values all fit in float64"
        )
