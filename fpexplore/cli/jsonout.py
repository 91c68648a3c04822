"""The command line's one JSON rule, for every command that prints ``--json``.

Numbers are JSON numbers. ``inf``, ``-inf`` and NaN, which JSON has no way to write,
are the strings ``"inf"``, ``"-inf"`` and ``"nan"``. Exact decimal expansions (the
``exact`` fields) are strings of all their digits, as a JSON reader would round a number
to binary64; bit patterns (``hex``, ``bits``) and inputs as typed are strings too.
numpy scalars and arrays become numbers and lists; tuples and sets become lists.

Examples
--------
>>> to_json_value({"value": float("inf"), "values": (0.5, float("nan")), "count": 3})
{'value': 'inf', 'values': [0.5, 'nan'], 'count': 3}
>>> print(dumps([1.0, float("-inf")]))
[
  1.0,
  "-inf"
]
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = ["JSON_RULE", "dumps", "json_number", "to_json_value"]

JSON_RULE = (
    'numbers are JSON numbers; inf, -inf and NaN are the strings "inf", "-inf" and "nan" '
    "(JSON has no literal for them); exact decimal expansions are strings of all their digits"
)
"""The rule in one sentence, for ``--help`` and the docs' command-line page."""


def json_number(x: Any) -> float | str | None:
    """A real number for JSON: a float when finite, else ``"inf"``, ``"-inf"`` or ``"nan"``."""
    if x is None:
        return None
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def to_json_value(data: Any) -> Any:
    """``data`` with every value made JSON-ready by the rule above (recursively)."""
    if data is None or isinstance(data, bool | str):
        return data
    if isinstance(data, np.bool_):
        return bool(data)
    if isinstance(data, dict):
        return {str(key): to_json_value(value) for key, value in data.items()}
    if isinstance(data, np.ndarray):
        return to_json_value(data.tolist())
    if isinstance(data, list | tuple):
        return [to_json_value(value) for value in data]
    if isinstance(data, set | frozenset):
        return [to_json_value(value) for value in sorted(data, key=str)]
    if isinstance(data, Enum):
        return to_json_value(data.value)
    if isinstance(data, Integral):
        return int(data)
    if isinstance(data, Real | Decimal | Fraction | np.floating):
        return json_number(data)
    return str(data)


def dumps(data: Any) -> str:
    """``data`` as indented, strict JSON (no NaN or Infinity literals)."""
    return json.dumps(to_json_value(data), indent=2, allow_nan=False)
