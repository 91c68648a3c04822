"""The catalogue of named formats, their aliases, and :func:`get_format`.

Examples
--------
>>> from fpexplore import get_format
>>> f16 = get_format("half")
>>> f16.bits, f16.bias, f16.max, f16.eps
(16, 15, 65504.0, 0.0009765625)
>>> get_format("e4m3").max
448.0
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import numpy as np

from .format import Format

__all__ = ["FORMATS", "FormatLike", "format_names", "get_format"]

FormatLike: TypeAlias = str | Format | np.dtype[Any] | type[np.generic] | type[float]
"""What :func:`get_format` accepts, and so every ``fmt`` argument: a name or alias, a
:class:`Format`, a numpy (or ml_dtypes) dtype or scalar type, or ``float`` (float64)."""


def _fn(name: str, e: int, m: int, bias: int | None = None) -> Format:
    return Format(name, e, m, bias, "fn")


def _mx(name: str, e: int, m: int, bias: int) -> Format:
    return Format(name, e, m, bias, "none")


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("float64", 11, 52),
        Format("float32", 8, 23),
        Format("tf32", 8, 10),
        Format("bfloat16", 8, 7),
        Format("float16", 5, 10),
        Format("float8_e5m2", 5, 2),
        _fn("float8_e4m3fn", 4, 3),
        _mx("float6_e3m2fn", 3, 2, 3),
        _mx("float6_e2m3fn", 2, 3, 1),
        _mx("float4_e2m1fn", 2, 1, 1),
    )
}
"""The catalogue, widest first. Names follow ml_dtypes."""

_ALIASES = {
    "fp64": "float64", "double": "float64", "f64": "float64", "binary64": "float64",
    "fp32": "float32", "single": "float32", "f32": "float32",
    "binary32": "float32",
    "fp16": "float16", "half": "float16", "f16": "float16", "binary16": "float16",
    "bf16": "bfloat16",
    "tensorfloat32": "tf32", "tensorfloat-32": "tf32", "tf-32": "tf32",
    "e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2", "fp8e5m2": "float8_e5m2",
    "e4m3": "float8_e4m3fn", "e4m3fn": "float8_e4m3fn", "fp8_e4m3": "float8_e4m3fn",
    "fp8e4m3": "float8_e4m3fn",
    "e3m2": "float6_e3m2fn", "fp6_e3m2": "float6_e3m2fn", "float6_e3m2": "float6_e3m2fn",
    "e2m3": "float6_e2m3fn", "fp6_e2m3": "float6_e2m3fn", "float6_e2m3": "float6_e2m3fn",
    "e2m1": "float4_e2m1fn", "fp4": "float4_e2m1fn", "fp4_e2m1": "float4_e2m1fn",
    "float4_e2m1": "float4_e2m1fn",
}  # fmt: skip

_CUSTOM = re.compile(r"(?:ieee_)?e(\d+)m(\d+)")

_IEEE_NAMED = {"float8_e4m3": (4, 3), "float8_e3m4": (3, 4)}
"""ml_dtypes' IEEE-style FP8 variants (with inf and NaN), known by name but not in
the catalogue. Not to be confused with float8_e4m3fn."""


def format_names() -> list[str]:
    """Catalogue names, widest first."""
    return list(FORMATS)


def get_format(spec: FormatLike) -> Format:
    """Look up a format by name, alias, numpy dtype or Format.

    Parameters
    ----------
    spec : str, Format, numpy dtype or scalar type
        A catalogue name (``"float16"``), an alias (``"fp32"``, ``"single"``,
        ``"half"``, ``"bf16"``, ``"e4m3"``...), ``"eXmY"`` for a custom
        IEEE-like format with X exponent and Y mantissa bits, a numpy dtype or
        type (``np.float16``; ml_dtypes types such as ``ml_dtypes.bfloat16``
        too), or a :class:`Format`, returned as is.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.
    TypeError
        For anything that is not a name, dtype or Format.

    Examples
    --------
    >>> get_format("bf16").name
    'bfloat16'
    >>> import numpy as np
    >>> get_format(np.float32).mantissa_bits
    23
    >>> get_format("e3m4").max
    15.5
    """
    if isinstance(spec, Format):
        return spec
    if isinstance(spec, str):
        key = spec.strip().lower().replace(" ", "")
        key = _ALIASES.get(key, key)
        if key in FORMATS:
            return FORMATS[key]
        if key in _IEEE_NAMED:
            return Format.ieee_like(*_IEEE_NAMED[key], name=key)
        match = _CUSTOM.fullmatch(key)
        if match:
            return Format.ieee_like(int(match[1]), int(match[2]))
        raise ValueError(
            f"unknown format {spec!r}; expected one of {', '.join(FORMATS)}, "
            f"an alias ({', '.join(sorted(_ALIASES))}), {', '.join(_IEEE_NAMED)}, "
            "or 'eXmY' for a custom IEEE-like format"
        )
    if spec is float:
        return FORMATS["float64"]
    dtype_name = _dtype_name(spec)
    if dtype_name is not None:
        if dtype_name in FORMATS or dtype_name in _IEEE_NAMED:
            return get_format(dtype_name)
        raise ValueError(
            f"dtype {dtype_name!r} is not a supported floating-point format; "
            f"expected one of {', '.join(FORMATS)}"
        )
    raise TypeError(
        f"format must be a name, a numpy dtype or a Format, got {type(spec).__name__}: {spec!r}"
    )


def _dtype_name(spec: object) -> str | None:
    """The numpy dtype name of ``spec`` if it is a dtype or scalar type, else None."""
    if isinstance(spec, np.dtype):
        return str(spec.name)
    if isinstance(spec, type) and issubclass(spec, np.generic):
        return str(np.dtype(spec).name)
    return None
