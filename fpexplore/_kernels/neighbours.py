"""The codes of the neighbouring values of codes: IEEE nextUp and nextDown."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..formats import FormatLike, get_format
from .dtypes import check_codes, code_dtype
from .fields import KIND_CODES, Kind, classify
from .tables import tables


def next_up_codes(codes: Any, fmt: FormatLike) -> np.ndarray:
    """The code of the next value above each code's value (IEEE nextUp).

    +-0 go to the smallest subnormal, -smallest subnormal to -0, +inf and NaN
    stay, -inf goes to -max. Above +max: +inf in IEEE formats, NaN in 'fn'
    formats (what overflow gives there), +max again in formats with neither.
    The tabulated formats follow the same rule: fnuz and E8M0 go to their NaN
    past their last value (below E8M0's smallest too), P3109 to its infinity.
    """
    fmt = get_format(fmt)
    if fmt.tabulated:
        return tables(fmt).next_up[check_codes(codes, fmt)]
    c = check_codes(codes, fmt).astype(np.uint64)
    sign_mask = np.uint64(fmt.sign_mask)
    negative = (c & sign_mask) != 0
    magnitude = c & ~sign_mask
    kind = classify(c, fmt)
    nan = kind == KIND_CODES[Kind.NAN]
    inf = kind == KIND_CODES[Kind.INF]
    result = np.where(negative, c - np.uint64(1), c + np.uint64(1))
    result[magnitude == 0] = 1  # both zeros
    top = (magnitude == np.uint64(fmt.max_code)) & ~negative
    if fmt.has_infinity:
        result[top] = fmt.inf_code
    elif fmt.has_nan:
        result[top] = fmt.nan_code
    else:
        result[top] = fmt.max_code
    result[inf & ~negative] = c[inf & ~negative]
    result[inf & negative] = sign_mask | np.uint64(fmt.max_code)
    result[nan] = c[nan]
    return result.astype(code_dtype(fmt))


def next_down_codes(codes: Any, fmt: FormatLike) -> np.ndarray:
    """The code of the next value below each code's value: ``-next_up(-x)``."""
    fmt = get_format(fmt)
    if fmt.tabulated:  # no sign to flip in unsigned formats, and -0 is NaN in fnuz ones
        return tables(fmt).next_down[check_codes(codes, fmt)]
    flip = code_dtype(fmt).type(fmt.sign_mask)
    return next_up_codes(check_codes(codes, fmt) ^ flip, fmt) ^ flip
