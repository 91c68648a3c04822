"""Bit patterns as users type them: ints, ``"0x..."``, ``"0b..."``, bits with spaces.

>>> from fpexplore import get_format
>>> hex(parse_code("0 10000000 10010010000111111011011", get_format("float32")))
'0x40490fdb'
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..formats import Format

__all__ = ["parse_code"]

_BIN_SPACES = re.compile(r"[\s_]")


def parse_code(code: Any, fmt: Format) -> int:
    """Read a bit pattern: an int, ``"0x..."``, ``"0b..."`` or a string of
    exactly ``fmt.bits`` 0/1 digits (spaces and underscores allowed)."""
    if isinstance(code, bool | np.bool_):
        raise TypeError(f"expected a bit pattern (int or str), got the bool {code!r}")
    if isinstance(code, int | np.integer):
        value = int(code)
    elif isinstance(code, str):
        text = _BIN_SPACES.sub("", code.strip()).lower()
        try:
            if text.startswith(("0x", "0b")) and len(text) > 2:
                value = int(text, 0)
            elif text and set(text) <= {"0", "1"}:
                if len(text) != fmt.bits:
                    raise ValueError(
                        f"bit string {code!r} has {len(text)} bits; {fmt.name} needs "
                        f"exactly {fmt.bits} (or prefix it with 0b)"
                    )
                value = int(text, 2)
            else:
                raise ValueError
        except ValueError as err:
            if "bit string" in str(err):
                raise
            raise ValueError(
                f"could not read {code!r} as a bit pattern; expected '0x...', '0b...' "
                f"or {fmt.bits} binary digits"
            ) from None
    else:
        raise TypeError(
            f"expected a bit pattern (int, or str such as '0x3C00'), "
            f"got {type(code).__name__}: {code!r}"
        )
    if not 0 <= value < fmt.n_codes:
        raise ValueError(
            f"bit pattern {code!r} is out of range for {fmt.name}; "
            f"expected 0 <= code < 2**{fmt.bits} ({fmt.n_codes - 1:#x} at most)"
        )
    return value
