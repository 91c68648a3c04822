"""Local Sphinx extension: the API pages show what a user calls, and nothing private.

* Signatures lose their private parameters: a dataclass's internal fields
  (``FloatParts(..., _input_special=None)``) and callbacks (``_exact_of``) are not for
  callers, who get these objects from ``decode`` or ``sum``.
* An ``Attributes`` entry that names several attributes at once (numpy style,
  ``abs_error, rel_error : float``) becomes one entry per attribute before napoleon reads
  it; napoleon would print it as ``rel_error (abs_error,)``.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

_SHARED_ENTRY = re.compile(r"^(?P<names>\w+(?:\s*,\s*\w+)+)\s*(?P<type>:.*)?$")


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas that are not inside brackets or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def public_signature(signature: str | None) -> str | None:
    """``(a, b=1, _hidden=None)`` without its private parameters.

    >>> public_signature("(code: int, format: Format, _input_sign: int = 0)")
    '(code: int, format: Format)'
    """
    if not signature or not signature.startswith("("):
        return signature
    inner = signature[1 : signature.rindex(")")]
    kept = [p for p in _split_top_level(inner) if not p.lstrip("*").startswith("_")]
    return f"({', '.join(kept)})"


def drop_private_parameters(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None,
    return_annotation: str | None,
) -> tuple[str | None, str | None]:  # fmt: skip
    return public_signature(signature), return_annotation


def split_shared_attributes(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """One ``Attributes`` entry per name: ``a, b : float`` and its description become
    ``a : float`` and ``b : float``, each with the description."""
    out: list[str] = []
    in_attributes = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if (
            line.strip() == "Attributes"
            and i + 1 < len(lines)
            and set(lines[i + 1].strip()) == {"-"}
        ):
            in_attributes = True
        elif (
            line
            and not line[0].isspace()
            and i + 1 < len(lines)
            and set(lines[i + 1].strip()) == {"-"}
        ):
            in_attributes = False
        match = _SHARED_ENTRY.match(line) if in_attributes else None
        if match is None:
            out.append(line)
            i += 1
            continue
        body = []
        i += 1
        while i < len(lines) and (not lines[i] or lines[i][0].isspace()):
            if not lines[i] and (i + 1 >= len(lines) or not lines[i + 1][:1].isspace()):
                break
            body.append(lines[i])
            i += 1
        for attribute in (n.strip() for n in match["names"].split(",")):
            out.append(f"{attribute} {match['type'] or ''}".rstrip())
            out.extend(body)
    lines[:] = out


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-signature", drop_private_parameters)
    app.connect("autodoc-process-docstring", split_shared_attributes, priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
