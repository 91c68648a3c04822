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
import warnings
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from .format import Format
from .names import ALIASES as _ALIASES
from .names import CATALOGUE
from .names import IEEE_NAMED as _IEEE_NAMED
from .suggest import shown_name, suggest_formats, unknown_format_message

__all__ = [
    "FORMATS",
    "FormatLike",
    "custom_format_notice",
    "format_names",
    "get_format",
    "p3109",
    "warn_custom_format",
]

if TYPE_CHECKING:
    FormatLike: TypeAlias = (
        str | Format | np.dtype[Any] | type[np.generic] | type[float] | np.generic | np.finfo[Any]
    )
else:  # np.finfo takes no subscript at run time in older numpy
    FormatLike: TypeAlias = (
        str | Format | np.dtype[Any] | type[np.generic] | type[float] | np.generic | np.finfo
    )
"""What :func:`get_format` accepts, and so every ``fmt`` argument: a name, alias or
numpy dtype string, a :class:`Format`, a numpy (or ml_dtypes) dtype, scalar type or
scalar, an ``np.finfo`` (or ``ml_dtypes.finfo``), or ``float`` (float64)."""


def p3109(precision: int) -> Format:
    """The IEEE P3109 binary8 format of precision ``p`` (1 to 7), signed, extended.

    The draft followed is the IEEE WG P3109 Interim Report (the working group's
    shared report on binary8 formats), in the revision gfloat 0.5.2 implements
    (``format_info_p3109(8, p)``, signed, extended domain): ``8 - p`` exponent
    bits, ``p - 1`` mantissa bits, bias ``2**(7 - p)``, subnormals, no negative zero,
    one NaN at ``0x80`` (the code of -0), +inf at ``0x7F`` and -inf at ``0xFF``.

    Examples
    --------
    >>> f = p3109(3)
    >>> f.name, f.exponent_bits, f.mantissa_bits, f.bias, f.max
    ('p3109_p3', 5, 2, 16, 49152.0)
    """
    if not isinstance(precision, int) or not 1 <= precision <= 7:
        raise ValueError(f"P3109 binary8 precision must be an int in 1..7, got {precision!r}")
    return FORMATS[f"p3109_p{precision}"]


FORMATS: dict[str, Format] = {name: Format(name, *params) for name, params in CATALOGUE.items()}
"""The catalogue, widest first. Names follow ml_dtypes (see
:mod:`~fpexplore.formats.names` for the parameters)."""

_CUSTOM = re.compile(r"(?:ieee_)?e([0-9]+)m([0-9]+)")  # ASCII digits only


def _named(name: str) -> Format:
    if name in _IEEE_NAMED:
        return Format(name, *_IEEE_NAMED[name])
    return FORMATS[name]


def format_names() -> list[str]:
    """Catalogue names, widest first."""
    return list(FORMATS)


def get_format(spec: FormatLike) -> Format:
    """Look up a format by name, alias, numpy dtype or Format.

    Parameters
    ----------
    spec : str, Format, numpy dtype, scalar type or instance, or finfo
        A catalogue name (``"float16"``), an alias (``"fp32"``, ``"single"``,
        ``"half"``, ``"bf16"``, ``"e4m3"``...), ``"eXmY"`` for a custom
        IEEE-like format with X exponent and Y mantissa bits, anything
        :func:`numpy.dtype` reads as a float type (``"f4"``, ``"<f4"``,
        ``">f8"``, ``"e"``, ``"d"``, ``np.float16``, ``np.dtype("float32")``), a
        numpy scalar (``np.float32(1)``), an ``np.finfo`` or ``ml_dtypes.finfo``
        object, an ml_dtypes type (``ml_dtypes.float8_e4m3fnuz``), a JAX scalar type
        (``jnp.bfloat16``), or a
        :class:`Format`, returned as is. The catalogue's names and aliases come
        first: ``"f16"`` is float16 here (numpy reads it as long double).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones), a dtype that is
        not a float format, and ``np.longdouble``: its values are not all
        exactly representable in float64, in which the kernels compute.
    TypeError
        For anything that is not a name, dtype or Format.

    Examples
    --------
    >>> get_format("bf16").name
    'bfloat16'
    >>> import numpy as np
    >>> get_format(np.float32).mantissa_bits
    23
    >>> get_format(">f8").name, get_format("e").name, get_format(np.finfo(np.float32)).name
    ('float64', 'float16', 'float32')
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
            return _named(key)
        match = _CUSTOM.fullmatch(key)
        if match:
            try:
                if max(len(match[1]), len(match[2])) > 4:  # no int() of a thousand digits
                    raise ValueError("expected at most 11 exponent and 52 mantissa bits")
                return Format.ieee_like(int(match[1]), int(match[2]))
            except ValueError as err:
                raise ValueError(f"cannot make the format {shown_name(spec)}: {err}") from None
        dtype_name = _dtype_string(spec.strip())
        if dtype_name is not None:
            return _from_dtype_name(dtype_name, spec)
        raise ValueError(unknown_format_message(spec))
    if spec is float:
        return FORMATS["float64"]
    dtype_name = _dtype_name(spec)
    if dtype_name is not None:
        return _from_dtype_name(dtype_name)
    raise TypeError(
        f"format must be a name, a numpy dtype or a Format, got {type(spec).__name__}: {spec!r}"
    )


def custom_format_notice(spec: object) -> str:
    """What to say of a name that reads as a custom eXmY format, not a catalogue name
    or alias (``""`` for anything else): most such names are typos of one.

    >>> custom_format_notice("e4m4")
    'custom format e4m4 (not in the catalogue); did you mean e4m3 (float8_e4m3fn)?'
    >>> custom_format_notice("e8m7")  # a catalogue format's parameters under another name
    "custom format e8m7 (not in the catalogue); it has bfloat16's values: did you mean bfloat16?"
    >>> custom_format_notice("e4m3"), custom_format_notice("float32")
    ('', '')
    """
    if not isinstance(spec, str):
        return ""
    key = spec.strip().lower().replace(" ", "")
    key = _ALIASES.get(key, key)
    if key in FORMATS or key in _IEEE_NAMED or not _CUSTOM.fullmatch(key):
        return ""
    try:
        params = get_format(key).params
    except ValueError:  # no such eXmY format: get_format says why where it is used
        params = None
    same = [name for name in (*FORMATS, *_IEEE_NAMED) if get_format(name).params == params]
    if same:  # the same values under another name (e5m10: float16)
        hint = f"it has {same[0]}'s values: did you mean {same[0]}?"
    else:
        hint = suggest_formats(spec) or _nearest_bits(params)
    return f"custom format {spec.strip()} (not in the catalogue)" + (f"; {hint}" if hint else "")


def _nearest_bits(params: tuple[object, ...] | None) -> str:
    """A clause naming the catalogue formats nearest in exponent and mantissa bits
    (three names at most; ``""`` for parameters that make no format): what a custom
    name no catalogue name resembles may have meant (e7m7: bfloat16, e8m7).

    >>> _nearest_bits(get_format("e7m7").params)
    'the nearest catalogue format: bfloat16 (e8m7)'
    """
    if params is None:
        return ""
    bits = (int(str(params[0])), int(str(params[1])))
    best: dict[tuple[int, int], str] = {}  # one name for each (exponent, mantissa) bits
    for name in FORMATS:
        fmt = FORMATS[name]
        best.setdefault((fmt.exponent_bits, fmt.mantissa_bits), name)
    distance = {k: abs(k[0] - bits[0]) + abs(k[1] - bits[1]) for k in best}
    nearest = min(distance.values())
    names = [f"{best[k]} (e{k[0]}m{k[1]})" for k in sorted(best) if distance[k] == nearest][:3]
    plural = "s" if len(names) > 1 else ""
    return f"the nearest catalogue format{plural}: {' or '.join(names)}"


def warn_custom_format(spec: object, stacklevel: int = 3) -> None:
    """A ``UserWarning`` with :func:`custom_format_notice` when it says anything."""
    notice = custom_format_notice(spec)
    if notice:
        warnings.warn(notice, UserWarning, stacklevel=stacklevel)


def _from_dtype_name(dtype_name: str, spec: object = None) -> Format:
    if dtype_name in FORMATS or dtype_name in _IEEE_NAMED:
        return get_format(dtype_name)
    if dtype_name in ("float128", "float96", "longdouble"):
        raise ValueError(
            f"np.longdouble ({dtype_name}) is not supported: its values are not all exactly "
            "representable in float64, in which fpexplore's kernels compute; pass its values "
            "to decode() as strings or Fractions to round them exactly"
        )
    given = "" if spec is None or spec == dtype_name else f"{shown_name(str(spec))} reads as "
    verb = ", which is" if given else " is"
    raise ValueError(
        f"{given}dtype {dtype_name!r}{verb} not a supported floating-point format; "
        f"expected one of {', '.join(FORMATS)}"
    )


def _dtype_string(text: str) -> str | None:
    """The dtype name numpy reads from a string such as ``"<f4"``, else None (numpy's
    parser refuses some strings with TypeError, others with SyntaxError or ValueError:
    5000 digits exceed Python's int conversion limit)."""
    if not text or len(text) > 100 or "\x00" in text:
        return None
    try:
        return str(np.dtype(text).name)
    except Exception:  # whatever numpy says, this string names no float dtype
        return None


def _dtype_name(spec: object) -> str | None:
    """The numpy dtype name of ``spec`` if it is a dtype, a scalar type or instance,
    or a finfo object (numpy's or ml_dtypes', a subclass), or a class that carries
    its numpy dtype as ``.dtype`` (``jnp.float32``), else None."""
    if isinstance(spec, np.dtype):
        return str(spec.name)
    if isinstance(spec, type) and issubclass(spec, np.generic):
        return str(np.dtype(spec).name)
    if isinstance(spec, np.generic):
        return str(spec.dtype.name)
    if isinstance(spec, np.finfo):
        return str(np.dtype(spec.dtype).name)
    carried = getattr(spec, "dtype", None) if isinstance(spec, type) else None
    if isinstance(carried, np.dtype):  # JAX's scalar types (jnp.bfloat16) carry theirs
        return str(carried.name)
    return None
