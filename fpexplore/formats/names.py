"""The catalogue as plain data: each named format's primary parameters, the aliases,
and the formats that numpy and ml_dtypes store.

This module imports nothing of fpexplore but the encodings' names.
:mod:`~fpexplore.formats.format` reads it to name IEEE-like formats and to find a
format's dtype, and
:mod:`~fpexplore.formats.catalogue` builds its :class:`~fpexplore.formats.Format`
objects from it, so neither of those two modules needs the other's import.

>>> CATALOGUE["float16"]
(5, 10, 15, 'ieee', True, True)
>>> ALIASES["e4m3"]
'float8_e4m3fn'
"""

from __future__ import annotations

from typing import Any, TypeAlias

from .encoding import NanEncoding

__all__ = [
    "ALIASES",
    "CATALOGUE",
    "IEEE_NAMED",
    "ML_DTYPES_NAMES",
    "Params",
    "dtype_of",
    "params_of",
]

Params: TypeAlias = tuple[int, int, int, NanEncoding, bool, bool]
"""A format's primary parameters, in :class:`~fpexplore.formats.Format`'s order:
exponent bits, mantissa bits, bias, nan_encoding, is_signed, has_subnormals."""


def _params(e: int, m: int, bias: int | None = None, nan: NanEncoding = "ieee") -> Params:
    return (e, m, 2 ** (e - 1) - 1 if bias is None else bias, nan, True, True)


def p3109_params(precision: int) -> Params:
    """IEEE P3109 binary8 of precision ``p``: ``8 - p`` exponent bits, bias ``2**(7 - p)``."""
    return _params(8 - precision, precision - 1, 2 ** (7 - precision), "p3109")


CATALOGUE: dict[str, Params] = {
    "float64": _params(11, 52),
    "float32": _params(8, 23),
    "tf32": _params(8, 10),
    "bfloat16": _params(8, 7),
    "float16": _params(5, 10),
    "float8_e5m2": _params(5, 2),
    "float8_e4m3fn": _params(4, 3, None, "fn"),
    "float8_e4m3fnuz": _params(4, 3, 8, "fnuz"),
    "float8_e5m2fnuz": _params(5, 2, 16, "fnuz"),
    "float8_e4m3b11fnuz": _params(4, 3, 11, "fnuz"),
    "float8_e8m0fnu": (8, 0, 127, "fn", False, False),
    **{f"p3109_p{p}": p3109_params(p) for p in range(1, 8)},
    "float6_e3m2fn": _params(3, 2, 3, "none"),
    "float6_e2m3fn": _params(2, 3, 1, "none"),
    "float4_e2m1fn": _params(2, 1, 1, "none"),
}
"""The catalogue, widest first. Names follow ml_dtypes."""

ALIASES = {
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
    "e4m3fnuz": "float8_e4m3fnuz", "fp8_e4m3fnuz": "float8_e4m3fnuz",
    "e5m2fnuz": "float8_e5m2fnuz", "fp8_e5m2fnuz": "float8_e5m2fnuz",
    "e4m3b11fnuz": "float8_e4m3b11fnuz", "e4m3b11": "float8_e4m3b11fnuz",
    "e8m0": "float8_e8m0fnu", "e8m0fnu": "float8_e8m0fnu", "float8_e8m0": "float8_e8m0fnu",
    "fp8_e8m0": "float8_e8m0fnu",
    **{f"p3109_k8p{p}": f"p3109_p{p}" for p in range(1, 8)},
    **{f"p3109_k8p{p}se": f"p3109_p{p}" for p in range(1, 8)},
}  # fmt: skip

IEEE_NAMED: dict[str, Params] = {"float8_e4m3": _params(4, 3), "float8_e3m4": _params(3, 4)}
"""ml_dtypes' IEEE-style FP8 variants (with inf and NaN), known by name but not in
the catalogue. Not to be confused with float8_e4m3fn."""

ML_DTYPES_NAMES = (
    "bfloat16", "float8_e4m3", "float8_e3m4", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e8m0fnu",
    "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
)  # fmt: skip
"""The formats that ml_dtypes stores, by their ml_dtypes names."""


def params_of(name: str) -> Params | None:
    """The primary parameters of a named format (catalogue or ml_dtypes' IEEE-style
    FP8), else None."""
    return CATALOGUE.get(name) or IEEE_NAMED.get(name)


def dtype_of(name: str, params: Params) -> Any:
    """The numpy or ml_dtypes dtype of the format ``name`` with ``params``: None
    unless the name is a known one with exactly these parameters (and, for the
    ml_dtypes formats, ml_dtypes is installed)."""
    if params_of(name) != params:
        return None
    import numpy as np

    if name in ("float16", "float32", "float64"):
        return np.dtype(name)
    if name not in ML_DTYPES_NAMES:
        return None
    try:
        import ml_dtypes
    except ImportError:
        return None
    kind = getattr(ml_dtypes, name, None)
    return None if kind is None else np.dtype(kind)
