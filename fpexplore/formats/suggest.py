"""What to say about a format name that is not known: the nearest known names, or the
members of a family (``fp8``, ``float6``, ``p3109``), each with its largest value.

:func:`~fpexplore.formats.get_format` raises its ``ValueError`` with
:func:`unknown_format_message`; the command line uses the same words.

Examples
--------
>>> print(suggest_formats("flaot32"))
did you mean float32?
>>> [f.name for f in format_family("fp6")]
['float6_e3m2fn', 'float6_e2m3fn']
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from .format import Format
from .names import ALIASES as _ALIASES
from .names import CATALOGUE
from .names import IEEE_NAMED as _IEEE_NAMED

__all__ = ["format_family", "format_label", "suggest_formats", "unknown_format_message"]

_FAMILY = re.compile(r"(?:fp|float|f)([0-9]+)|(p3109)(?:_?k?8?)?|(fnuz)")
_SHORT_NAME = re.compile(r"e[0-9]+m[0-9]+\w*")
_CLOSE = 0.6  # difflib's similarity ratio from which a name is suggested
_LONGEST_SHOWN = 40  # characters of an unknown name quoted in a message
BLOCK_NAMES = ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8", "nvfp4",
               "mxfp4_e2m1", "mxfp8", "mxfp6")  # fmt: skip
"""The block formats and their aliases (:data:`fpexplore.BLOCK_FORMATS`, a layer above)."""


def _known_names() -> list[str]:
    return [*CATALOGUE, *_IEEE_NAMED, *_ALIASES]


def _all_formats() -> list[Format]:
    """The catalogue's formats, then ml_dtypes' IEEE-style ones (made from the same
    parameters as :data:`fpexplore.FORMATS`; this module does not import the catalogue,
    which imports it)."""
    named = {**CATALOGUE, **_IEEE_NAMED}
    return [Format(name, *params) for name, params in named.items()]


def _short_alias(fmt: Format) -> str | None:
    """The alias a reader knows a format by (``e4m3`` for float8_e4m3fn), if any."""
    short = [a for a, name in _ALIASES.items() if name == fmt.name and _SHORT_NAME.fullmatch(a)]
    return min(short, key=len) if short else None


def format_label(fmt: Format) -> str:
    """``name (alias, max M)``: how a suggestion names one format.

    >>> from fpexplore import get_format
    >>> format_label(get_format("e4m3")), format_label(get_format("float8_e4m3"))
    ('float8_e4m3fn (e4m3, max 448)', 'float8_e4m3 (max 240, with inf)')
    """
    alias = _short_alias(fmt)
    extra = ", with inf" if fmt.has_infinity and fmt.name in _IEEE_NAMED else ""
    return f"{fmt.name} ({alias + ', ' if alias else ''}max {fmt.max:g}{extra})"


def format_family(name: str) -> list[Format]:
    """The formats a family name stands for: ``fp8``/``float8`` (every 8-bit format),
    ``fp6``/``float6``, ``float4``, ``p3109``, ``fnuz``; empty for anything else.
    The catalogue's order (the OCP formats first), then ml_dtypes' IEEE-style ones."""
    match = _FAMILY.fullmatch(name.strip().lower().replace("-", "").replace(" ", ""))
    if match is None:
        return []
    formats = _all_formats()
    if match[1] is not None:
        members = [f for f in formats if f.bits == int(match[1])]
    elif match[2] is not None:
        members = [f for f in formats if f.nan_encoding == "p3109"]
    else:
        members = [f for f in formats if f.nan_encoding == "fnuz"]
    first = [f for name in ("float8_e4m3fn", "float8_e5m2") for f in members if f.name == name]
    return first + [f for f in members if f not in first]


def suggest_formats(name: str, extra_names: Iterable[str] = ()) -> str:
    """A clause naming what ``name`` may have meant, or ``""``: the members of its family,
    else the nearest known names (:mod:`difflib`), ``extra_names`` included."""
    family = format_family(name)
    if family:
        labels = ", ".join(format_label(f) for f in family)
        return f"{name.strip()} is a family: {labels}; name one of them"
    key = name.strip().lower()
    candidates = [*_known_names(), *extra_names]
    scored = sorted(
        ((difflib.SequenceMatcher(None, key, c).ratio(), c) for c in candidates),
        key=lambda pair: -pair[0],
    )
    if not scored or scored[0][0] < _CLOSE:
        return ""
    named: dict[str, str] = {}  # one suggestion per format an alias resolves to
    for score, candidate in scored:
        if score < max(_CLOSE, scored[0][0] - 0.1) or len(named) == 3:
            break
        target = _ALIASES.get(candidate, candidate)
        named.setdefault(target, f"{candidate} ({target})" if target != candidate else candidate)
    return f"did you mean {' or '.join(named.values())}?"


def shown_name(spec: str) -> str:
    """``repr(spec)``, cut to a readable length for a message about it.

    >>> shown_name("9" * 5000)
    "'9999999999999999999999999999999999999999'... (5000 characters)"
    """
    if len(spec) <= _LONGEST_SHOWN:
        return repr(spec)
    return f"{spec[:_LONGEST_SHOWN]!r}... ({len(spec)} characters)"


def unknown_format_message(spec: str, extra_names: Iterable[str] = ()) -> str:
    """The one-line message for a string that names no format.

    >>> print(unknown_format_message("quad"))  # doctest: +NORMALIZE_WHITESPACE
    unknown format 'quad'; expected a catalogue name (fpexplore.format_names(): float64,
    float32, bfloat16, float16, float8_e4m3fn...), an alias (half, bf16, e4m3...), a numpy
    dtype string ('f4', '<f8', 'e') or 'eXmY' for a custom IEEE-like format
    """
    hint = suggest_formats(spec, extra_names) if len(spec) <= _LONGEST_SHOWN else ""
    message = f"unknown format {shown_name(spec)}"
    if spec.strip().lower() in BLOCK_NAMES:
        hint = (
            f"{spec.strip()} is a block format (elements sharing a scale per block), not a "
            "format of single values: pass it to quantize_blocks() or tensor_report()"
        )
    if hint:
        return f"{message}; {hint}"
    return (
        f"{message}; expected a catalogue name (fpexplore.format_names(): float64, float32, "
        "bfloat16, float16, float8_e4m3fn...), an alias (half, bf16, e4m3...), a numpy "
        "dtype string ('f4', '<f8', 'e') or 'eXmY' for a custom IEEE-like format"
    )
