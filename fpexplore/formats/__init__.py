"""The format model: :class:`Format` (primary parameters, derived properties named
as :class:`numpy.finfo` names them; the special-value rules of each encoding in
:mod:`~fpexplore.formats.encoding`, the rules a format must meet in
:mod:`~fpexplore.formats.validation`) and the catalogue of named formats.

This is the bottom layer: it imports nothing else from fpexplore (a format renders
itself as an HTML table through a lazy import in ``Format._repr_html_``).
"""

from .catalogue import (
    FORMATS,
    FormatLike,
    custom_format_notice,
    format_names,
    get_format,
    p3109,
    warn_custom_format,
)
from .format import Format, NanEncoding
from .suggest import format_family, format_label, suggest_formats

__all__ = [
    "FORMATS", "Format", "FormatLike", "NanEncoding", "custom_format_notice", "format_family",
    "format_label", "format_names", "get_format", "p3109", "suggest_formats",
    "warn_custom_format",
]  # fmt: skip
