"""The words after ``--bits``, as bit patterns: ``fpexplore --bits 0x3C00 0x7C00 -f half``.

The shell splits ``0b0011 1100 0000 0000`` into four words; they are read as the same text
quoted would be, one pattern. A word with a prefix (``0x``, ``0b``) starts a pattern, and
the words after it continue that pattern unless they are whole patterns themselves (0/1
digits as many as the format's bits). Words of 0/1 digits alone are one pattern where
together they fill the format's width (``0 01111 0000000000`` in float16), else one each.

Examples
--------
>>> from fpexplore import get_format
>>> half = get_format("float16")
>>> bit_patterns(["0x3C", "00", "0x7C00"], half)
['0x3C 00', '0x7C00']
>>> bit_patterns(["0", "01111", "0000000000"], half)
['0 01111 0000000000']
"""

from __future__ import annotations

from ..formats import Format
from .output import UsageError

__all__ = ["bit_patterns"]


def _binary(word: str) -> bool:
    return set(word) <= set("01_")


def bit_patterns(words: list[str], fmt: Format) -> list[str]:
    """The patterns typed as ``words`` (see the module notes).

    Raises
    ------
    UsageError
        For groups of 0/1 digits that neither fill the format's width together nor
        each make a whole pattern.
    """

    def whole(word: str) -> bool:
        return _binary(word) and len(word.replace("_", "")) == fmt.bits

    prefixed = [word[:2].lower() in ("0x", "0b") for word in words]
    if any(prefixed):
        patterns: list[str] = []
        for word, starts in zip(words, prefixed, strict=True):
            if patterns and not starts and not whole(word):
                patterns[-1] += f" {word}"
            else:
                patterns.append(word)
        return patterns
    width = sum(len(word.replace("_", "")) for word in words)
    if len(words) == 1 or (width == fmt.bits and all(_binary(w) for w in words)):
        return [" ".join(words)]
    if all(_binary(w) for w in words) and not all(whole(w) for w in words):
        raise UsageError(
            f"the groups of 0/1 digits {' '.join(words)} hold {width} bits together; "
            f"{fmt.name} needs {fmt.bits} in one pattern (or one whole pattern per word)"
        )
    return words
