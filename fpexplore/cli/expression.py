"""The small grammar of the command line's arithmetic: one operation at a time.

::

    expression := operand OPERATOR operand | NAME "(" operand ("," operand)* ")"
    operand    := ["+" | "-"] NUMBER | NAME "(" ... ")"   (no nesting: one rounding to show)
    OPERATOR   := "+" | "-" | "*" | "x" | "×" | "/" | "÷"
    NAME       := add | sub | mul | div | sqrt | fma | remainder | neg | abs
    NUMBER     := a decimal (0.1, -1e-8, 1_000), a hex float (0x1.8p1), inf, nan, snan

A tokenizer and a recursive-descent parser; nothing is ever evaluated as Python.
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
"""

from __future__ import annotations

import re

from ..exact import ARITY, parse_real
from .output import UsageError

__all__ = ["OPERATORS", "parse_expression"]

OPERATORS = {"+": "add", "-": "sub", "*": "mul", "×": "mul", "/": "div", "÷": "div"}
"""Infix operators and the operations they name."""

_TOKEN = re.compile(
    r"\s*(?:(?P<number>0x[0-9a-f_]*\.?[0-9a-f_]*(?:p[+-]?\d+)?"
    r"|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:e[+-]?\d+)?)"
    r"|(?P<name>[a-z_]+)|(?P<symbol>[-+*/×÷(),]))",
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
        kind = match.lastgroup or "symbol"
        word = match[kind]
        if kind == "name" and word.lower() in _WORDS:
            kind = "number"
        tokens.append((kind, word, match.start(kind)))
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
        sign = self.take("symbol", "-") or self.take("symbol", "+") or ""
        number = self.take("number")
        if number is None:
            raise self.fail("a number")
        return ("-" if sign == "-" else "") + number

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
    if not symbols and not (len(parser.tokens) > 2 and parser.tokens[1][1].lower() == "x"):
        raise not_a_number  # no operator: a number that does not parse; say why
    return parser.expression()
