"""The course's glossary: the terms a student meets, each with a short definition.

The lesson prints it, the printable handout lists it, and the pace model counts a term
as *new* in the part of a notebook where its Markdown first uses it
(:func:`first_uses`): a new term costs class time, the definition and an example.

Examples
--------
>>> term = GLOSSARY[0]
>>> term.name, bool(term.found("the mantissa bits"))
('mantissa', True)
>>> [t.name for t in first_uses({"cells": [{"cell_type": "markdown",
...     "source": "A NaN is not a binade."}]})[0]]
['binade', 'NaN']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .outline import NotebookLike, cell_source, load

__all__ = ["GLOSSARY", "Term", "first_uses", "glossary_markdown"]


@dataclass(frozen=True)
class Term:
    """A term of the glossary: its name, what it means, and the pattern (a regular
    expression, case-sensitive) that finds it in a text."""

    name: str
    meaning: str
    pattern: str

    def found(self, text: str) -> re.Match[str] | None:
        """The first use of the term in ``text``, or None."""
        return re.search(self.pattern, text)


GLOSSARY = (
    Term(
        "mantissa",
        "the stored fraction bits m of a float, the digits after the point of 1.m "
        "(IEEE 754 calls them the trailing significand field)",
        r"\b[Mm]antissas?\b",
    ),
    Term(
        "hidden leading 1",
        "a normal float's value is 1.m, but the 1 before the point is not stored: "
        "float16 stores 10 mantissa bits and has 11 significant bits",
        r"[Hh]idden (leading )?1|significant bits",
    ),
    Term(
        "exponent field",
        "the exponent bits read as an unsigned integer; the power of two is the field "
        "minus the bias",
        r"exponent field",
    ),
    Term(
        "bias",
        "what is subtracted from the exponent field: 15 for float16, 127 for float32, "
        "1023 for float64",
        r"\bbias\b",
    ),
    Term(
        "binade",
        "the values from 2^N up to (not including) 2^(N+1); in the normal range every "
        "binade holds the same number of values",
        r"\b[Bb]inades?\b",
    ),
    Term(
        "normal",
        "a float with the hidden leading 1: its exponent field is neither all zeros nor all ones",
        r"\bnormal (numbers?|range|values?)\b|\*normal\*",
    ),
    Term(
        "subnormal",
        "a value below the smallest normal number (exponent field 0): 0.m times "
        "2^(1 - bias), evenly spaced, with fewer significant bits",
        r"\b[Ss]ubnormals?\b",
    ),
    Term("NaN", "not a number: the result of 0/0 or inf - inf, a reserved bit pattern", r"\bNaN\b"),
    Term(
        "e4m3fn",
        "an 8-bit float (FP8): 4 exponent bits, 3 mantissa bits, no infinities; its top "
        "pattern is NaN",
        r"e4m3fn",
    ),
    Term(
        "machine epsilon",
        "eps, the gap between 1 and the next value: 2^-10 in float16, 2^-23 in float32",
        r"machine epsilon|\beps\b",
    ),
    Term(
        "ulp",
        "unit in the last place: the gap from a value to its neighbour away from zero",
        r"\bulp\b|\bULP\b",
    ),
    Term("absolute error", "|stored - exact|", r"\*?absolute\*? error"),
    Term(
        "relative error",
        "|stored - exact| / |exact|; at most eps/2 in the normal range",
        r"\*?relative\*? error",
    ),
    Term(
        "ties to even",
        "a number exactly halfway between two values is stored as the one whose last "
        "mantissa bit is 0",
        r"\btie\b|\bties\b",
    ),
    Term(
        "bfloat16",
        "a 16-bit float with float32's 8 exponent bits (so its range) and 7 mantissa bits",
        r"\bbfloat16\b",
    ),
    Term(
        "tensor core",
        "a unit of NVIDIA GPUs that multiplies small matrices of 16- or 8-bit numbers in "
        "one step and adds the products at higher precision",
        r"[Tt]ensor cores?",
    ),
    Term("TPU", "Google's tensor processing unit, a chip built for matrix products", r"\bTPUs?\b"),
    Term(
        "overflow",
        "a result beyond the largest value: it becomes infinity (or NaN in e4m3fn)",
        r"\boverflow",
    ),
    Term(
        "underflow",
        "a result too small for the format: it becomes a subnormal, or 0",
        r"\bunderflow",
    ),
    Term("logits", "the scores a classifier computes before softmax", r"\blogits?\b"),
    Term(
        "softmax",
        "turns logits x into probabilities, e^(x_i) / sum of e^(x_j)",
        r"\b[Ss]oftmax\b",
    ),
    Term(
        "crossentropy",
        "the loss -log p, p the probability the model gives the true class",
        r"\b[Cc]ross-?entropy\b",
    ),
    Term(
        "log-sum-exp",
        "log of a sum of e^(x_j) computed as m + log sum e^(x_j - m), m the largest x_j, "
        "so that no exponential overflows",
        r"log-sum-exp",
    ),
    Term(
        "gradient",
        "how fast the loss changes with each weight; training moves each weight a small "
        "step against its gradient (Adam is one rule for that step)",
        r"\b[Gg]radients?\b",
    ),
    Term(
        "loss scaling",
        "multiply the loss by S before the backward pass so that small gradients do not "
        "underflow, then divide the gradients by S in float32 before the update; dynamic "
        "loss scaling skips a step whose gradients hold inf or NaN and halves S, and "
        "doubles S after a run of good steps",
        r"[Ll]oss scal(e|ing)",
    ),
    Term(
        "dtype policy",
        "Keras: a layer computes in its compute_dtype and stores its weights in its variable_dtype",
        r"compute_dtype|variable_dtype",
    ),
)
"""The terms, in the order a student meets them in the lesson."""


def first_uses(notebook: NotebookLike) -> dict[int, list[Term]]:
    """Cell index -> the glossary terms whose first use in the notebook's Markdown (code
    spans and link targets included) is in that cell, in glossary order."""
    first: dict[int, list[Term]] = {}
    seen: set[str] = set()
    for index, cell in enumerate(load(notebook)["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        text = cell_source(cell)
        for term in GLOSSARY:
            if term.name not in seen and term.found(text):
                seen.add(term.name)
                first.setdefault(index, []).append(term)
    return first


def glossary_markdown(terms: tuple[Term, ...] = GLOSSARY) -> str:
    """The glossary as a Markdown list, one term a line."""
    return "\n".join(f"- **{term.name}**: {term.meaning}" for term in terms)
