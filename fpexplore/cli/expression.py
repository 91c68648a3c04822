"""The small grammar of the command line's arithmetic: one operation at a time.

::

    expression := operand OPERATOR operand | NAME "(" operand ("," operand)* ")" | power
    operand    := ["+" | "-"] NUMBER [POWER]   (no nesting: one rounding to show)
    POWER      := ("**" | "^") ["+" | "-"] INTEGER
    OPERATOR   := "+" | "-" | "*" | "x" | "×" | "/" | "÷"
    NAME       := add | sub | mul | div | sqrt | fma | remainder | neg | abs
    NUMBER     := a decimal (0.1, -1e-8, 1_000), a hex float (0x1.8p1), inf, nan, snan

A tokenizer and a recursive-descent parser; nothing is ever evaluated as Python.
A power with an integer exponent (``2**-24``, ``2^-24``, ``1.5**3``) is a number,
computed exactly (:func:`operand_value`): it is not an operation of the format, so
``1e-3 * 2**10`` is one multiplication, of 1e-3 (rounded into the format) by 1024.
As in Python, ``-2**2`` is ``-(2**2)``.
Text that is a number on its own is a number, not an expression: ``"1/3"`` (a
ratio of integers, spaces allowed) is the exact value one third, rounded once
into the format, as it always was; to divide 1 by 3 *in the format*, write
``div(1, 3)`` or ``1 / 3.0``. (Both give the same stored value here, since 1
and 3 are exact; the explanation differs.)

Examples
--------
>>> parse_expression("0.1 + 0.2")
('add', ('0.1', '0.2'))
>>> parse_expression("fma(2, -3, 1e-8)")
('fma', ('2', '-3', '1e-8'))
>>> parse_expression("-1e-8") is None  # a number on its own
True
>>> parse_expression("2^-24"), operand_value("2^-24")
(('value', ('2^-24',)), Fraction(1, 16777216))
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..exact import ARITY, parse_real
from .output import UsageError

__all__ = ["OPERATORS", "number_value", "operand_value", "parse_expression"]

MAX_POWER_BITS = 100_000
"""The largest power computed exactly: numerator or denominator of at most this many bits."""

OPERATORS = {"+": "add", "-": "sub", "*": "mul", "×": "mul", "/": "div", "÷": "div"}
"""Infix operators and the operations they name."""

_TOKEN = re.compile(
    r"\s*(?:(?P<number>0x[0-9a-f_]*\.?[0-9a-f_]*(?:p[+-]?\d+)?"
    r"|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:e[+-]?\d+)?)"
    r"|(?P<name>[a-z_]+)|(?P<symbol>\*\*|[-+*/×÷(),^]))",
    re.IGNORECASE,
)
_WORDS = {"inf", "infinity", "nan", "snan", "qnan"}


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) for each token; kind is number, name or symbol."""
    tokens, position = [], 0
    while position < len(text):
        if text[position:].isspace():
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            bad = text[position:].strip()[:1]
            raise UsageError(f"unexpected {bad!r} at position {position + 1} in {text!r}")
        group = match.lastgroup or "symbol"
        word, start = match[group], match.start(group)
        kind = "number" if group == "name" and word.lower() in _WORDS else group
        tokens.append((kind, word, start))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.tokens, self.i = text, _tokens(text), 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def fail(self, expected: str) -> UsageError:
        token = self.peek()
        found = f"{token[1]!r} at position {token[2] + 1}" if token else "the end"
        return UsageError(f"could not read {self.text!r}: expected {expected}, found {found}")

    def take(self, kind: str, text: str | None = None) -> str | None:
        token = self.peek()
        if token and token[0] == kind and (text is None or token[1] == text):
            self.i += 1
            return token[1]
        return None

    def operand(self) -> str:
        start = self.peek()
        sign = self.take("symbol", "-") or self.take("symbol", "+") or ""
        number = self.take("number")
        if number is None:
            raise self.fail("a number")
        power = self.take("symbol", "**") or self.take("symbol", "^")
        if power is None:
            return ("-" if sign == "-" else "") + number
        self.take("symbol", "-") or self.take("symbol", "+")
        token = self.peek()
        if token is None or token[0] != "number" or not re.fullmatch(r"\d[\d_]*", token[1]):
            raise self.fail(f"an integer exponent after {power}")
        self.i += 1
        if self.peek() is not None and self.peek()[1] in ("**", "^"):  # type: ignore[index]
            raise UsageError(f"one power at a time in {self.text!r}: write 2**9, not 2**3**2")
        assert start is not None
        end = self.peek()
        return self.text[start[2] : end[2] if end else len(self.text)].strip()

    def call(self, name: str) -> tuple[str, tuple[str, ...]]:
        op = name.lower()
        if op not in ARITY:
            raise UsageError(
                f"unknown operation {name!r} in {self.text!r}; expected one of "
                f"{', '.join(ARITY)}, or an operator {' '.join(OPERATORS)}"
            )
        if not self.take("symbol", "("):
            raise self.fail(f"'(' after {name}")
        args = [self.operand()]
        while self.take("symbol", ","):
            args.append(self.operand())
        if not self.take("symbol", ")"):
            raise self.fail("',' or ')'")
        if len(args) != ARITY[op]:
            raise UsageError(f"{op} takes {ARITY[op]} operand(s), got {len(args)} in {self.text!r}")
        return op, tuple(args)

    def expression(self) -> tuple[str, tuple[str, ...]]:
        name = self.take("name")
        if name is not None:
            result = self.call(name)
        else:
            left = self.operand()
            if self.peek() is None and _is_power(left):
                return ("value", (left,))
            symbol = self.take("symbol") or ("*" if self.take("name", "x") else None)
            if symbol not in OPERATORS:
                self.i -= symbol is not None
                raise self.fail(f"an operator ({' '.join(OPERATORS)})")
            result = (OPERATORS[symbol], (left, self.operand()))
        if self.peek() is not None:
            raise self.fail("the end (one operation at a time)")
        return result


def parse_expression(text: str) -> tuple[str, tuple[str, ...]] | None:
    """Read one operation: ``(operation name, operand strings)``; None when
    ``text`` is a plain number (see the module notes on ``"1/3"``).

    Raises
    ------
    UsageError
        When ``text`` is neither a number nor an operation, naming what was expected.
    """
    try:
        parse_real(text)
        return None
    except (ValueError, TypeError) as err:
        not_a_number = err
    try:
        parser = _Parser(text.strip())
    except UsageError:
        parser = None
    if parser is None:
        _tokens(text.strip())  # raises the tokenizer's message
    assert parser is not None
    symbols = [token for token in parser.tokens[1:] if token[0] == "symbol"]
    if any(token[1] in ("**", "^") for token in symbols):
        result = parser.expression()
        for operand in result[1]:
            operand_value(operand)  # refuses a power it cannot compute, once for every format
        return result
    if not symbols and not (len(parser.tokens) > 2 and parser.tokens[1][1].lower() == "x"):
        raise not_a_number  # no operator: a number that does not parse; say why
    return parser.expression()


def _is_power(text: str) -> bool:
    return "**" in text or "^" in text


def number_value(text: str, where: str = "VALUE") -> str | Fraction:
    """A number typed on the command line (a VALUE compared across formats, a --count
    bound): its text, which the library reads exactly, or a power's exact value.

    >>> number_value("0.1"), number_value("2^-3")
    ('0.1', Fraction(1, 8))

    Raises
    ------
    UsageError
        For an operation, or text that is not a number, naming what was expected.
    """
    try:
        expression = parse_expression(text)
    except (ValueError, TypeError) as err:  # not a number: a usage error, whatever reads it
        raise UsageError(str(err)) from None
    if expression is None:
        return text
    if expression[0] != "value":
        raise UsageError(f"{where} {text!r} is an operation; expected a number here")
    return operand_value(text)


def operand_value(text: str) -> str | Fraction:
    """What an operand stands for: its text (a number the arithmetic reads exactly),
    or, for a power, its exact value as a Fraction.

    Raises
    ------
    UsageError
        For a power whose base is not a finite number, zero to a negative power, or a
        result of more than :data:`MAX_POWER_BITS` bits.
    """
    if not _is_power(text):
        return text
    base_text, exponent_text = re.split(r"\*\*|\^", text, maxsplit=1)
    negative = base_text.strip().startswith("-")
    base = parse_real(base_text.strip().lstrip("+-").strip())
    exponent = int(exponent_text.replace(" ", "").replace("_", ""))
    if base.magnitude is None:
        raise UsageError(f"{text!r}: a power needs a finite base, got {base_text.strip()!r}")
    if base.magnitude == 0 and exponent < 0:
        raise UsageError(f"{text!r}: zero to a negative power has no value")
    size = max(base.magnitude.numerator.bit_length(), base.magnitude.denominator.bit_length())
    if size * abs(exponent) > MAX_POWER_BITS:
        raise UsageError(
            f"{text!r} is too large to compute exactly (more than {MAX_POWER_BITS} bits); "
            "write it as a decimal or hex float (1e-400, 0x1p-2000) instead"
        )
    value = base.magnitude**exponent
    return -value if negative else value
