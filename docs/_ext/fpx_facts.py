"""The numbers the documentation pages state, computed when the site is built.

conf.py hands these to MyST as substitutions (``{{ course_sessions }}`` in a page), so no
page types a count of the course or a property of a format by hand:

* :func:`course_substitutions`: how many notebooks and sessions the course has, and the
  lesson's minutes, read from ``notebooks/`` by :mod:`fpexplore.course.outline`;
* :func:`handout_substitutions`: the one-page handout's format table and the numbers to
  remember, from :mod:`fpexplore`'s formats and simulations.

No Sphinx import here: the tests check these values without building the site.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from fpexplore import get_format
from fpexplore.course import outline, pacing
from fpexplore.course import tables as course_tables
from fpexplore.course.handout import HANDOUT_FORMATS  # the formats the printed page shows too
from fpexplore.course.requirements import imports
from fpexplore.mixed import stall_point


def course_substitutions(notebooks: str | Path) -> dict[str, str]:
    """``course_notebooks`` (every notebook, solutions aside), ``course_sessions`` (the
    numbered ones, a session each), ``session_minutes`` (the range their teacher's boxes
    state), ``lesson_minutes`` (the lesson's parts, added up), ``keras_notebooks`` and
    ``keras_optional_notebooks`` (those that import Keras, and those that use it when it
    is installed)."""
    counts = outline.course_counts(notebooks)
    stated = []
    for path in outline.course_notebooks(notebooks):
        if outline.notebook_kind(path) == "session":
            budget = pacing.budget(path)
            text = course_tables.stated_minutes(path).split()
            if budget is not None:
                stated.append(budget.walkthrough + budget.exercises)
            elif len(text) >= 2 and text[1].isdigit():
                stated.append(int(text[1]))
    needs: dict[str, list[str]] = {"required": [], "optional": []}
    for path in outline.course_notebooks(notebooks):
        found = imports(path)
        for kind, names in (("required", found.required), ("optional", found.optional)):
            if "keras" in names:
                needs[kind].append(outline.short_name(path))
    lesson = outline.find_notebook(course_tables.LESSON, notebooks)
    low, high = (min(stated), max(stated)) if stated else (0, 0)
    return {
        "course_notebooks": str(counts["notebooks"]),
        "course_sessions": str(counts["sessions"]),
        "session_minutes": f"{low} to {high}" if low != high else str(low),
        "lesson_minutes": str(sum(part.minutes for part in pacing.lesson_plan(lesson))),
        "keras_notebooks": _and(needs["required"]),
        "keras_optional_notebooks": _and(needs["optional"]),
    }


def _and(names: list[str]) -> str:
    """``a, b and c``."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def power_of_two(value: float) -> str:
    """``value`` as LaTeX: ``2^{-24}`` when it is a power of two, else its shortest repr.

    >>> power_of_two(2.0**-24), power_of_two(65504.0), power_of_two(0.25)
    ('2^{-24}', '65504', '2^{-2}')
    """
    exact = Fraction(value)
    if exact > 0 and exact.numerator & (exact.numerator - 1) == 0 and exact.denominator == 1:
        exponent = exact.numerator.bit_length() - 1
    elif exact > 0 and exact.numerator == 1 and exact.denominator & (exact.denominator - 1) == 0:
        exponent = -(exact.denominator.bit_length() - 1)
    else:
        return f"{value:.6g}".replace("e+", "e")
    return f"2^{{{exponent}}}" if abs(exponent) > 4 or exponent < 0 else str(int(value))


def _number(value: float) -> str:
    """A format property for the table: its power of two and its decimal value."""
    short = f"{value:.3g}".replace("e+", "e")
    pow2 = power_of_two(value)
    return f"${pow2}$ ≈ {short}" if pow2.startswith("2^") else short


def format_table() -> str:
    """The handout's table of formats, as Markdown."""
    rows = [
        "| format | bits: sign, exponent, mantissa | bias | largest | smallest normal "
        "| smallest subnormal | eps | decimal digits |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, common in HANDOUT_FORMATS.items():
        f = get_format(name)
        rows.append(
            f"| `{name}` ({common}) | {f.bits}: 1, {f.exponent_bits}, {f.mantissa_bits} "
            f"| {f.bias} | {f.max:.6g} | {_number(f.smallest_normal)} "
            f"| {_number(f.smallest_subnormal)} | {_number(f.eps)} | {f.precision} |"
        )
    return "\n".join(rows)


def _math(latex: str) -> str:
    return f"${latex}$"


def handout_substitutions() -> dict[str, str]:
    """Every number of the handout, as Markdown text (LaTeX in ``$...$``), by name."""
    f16, bf16, f32 = get_format("float16"), get_format("bfloat16"), get_format("float32")
    e4m3 = get_format("float8_e4m3fn")
    f16_stall, bf16_stall = stall_point(1.0, "float16"), stall_point(1.0, "bfloat16")
    facts = {
        "handout_format_table": format_table(),
        "f16_max": f"{f16.max:g}",
        "f16_max_formula": _math(
            f"(2 - 2^{{{-f16.mantissa_bits}}}) \\times 2^{{{f16.maxexp - 1}}}"
        ),
        "f16_ln_max": f"{math.log(f16.max):.2f}",
        "f16_smallest_subnormal": _math(power_of_two(f16.smallest_subnormal)),
        "f16_smallest_subnormal_value": f"{f16.smallest_subnormal:.3g}",
        "f16_flush_below": _math(power_of_two(f16.smallest_subnormal / 2)),
        "f16_smallest_normal": _math(power_of_two(f16.smallest_normal)),
        "e4m3_max": f"{e4m3.max:g}",
        "f16_stall": _math(f"{power_of_two(f16_stall)} = {f16_stall:g}"),
        "bf16_stall": _math(f"{power_of_two(bf16_stall)} = {bf16_stall:g}"),
        "f32_exact_integers": _math(
            f"2^{{{f32.mantissa_bits + 1}}} = {2 ** (f32.mantissa_bits + 1)}"
        ),
    }
    for name, fmt in (("f16", f16), ("bf16", bf16), ("f32", f32)):
        facts[f"{name}_eps"] = _math(power_of_two(fmt.eps))
        facts[f"{name}_half_eps"] = f"{fmt.eps / 2:.3g}"
    return facts
