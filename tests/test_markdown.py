"""The notebooks' Markdown, rendered as a reader sees it.

Every Markdown cell of every notebook in ``notebooks/`` and ``notebooks/solutions/`` is
parsed with markdown-it-py (CommonMark, plus tables as JupyterLab renders them). Two
classes of defect are caught:

* mathematics swallowed by emphasis: ``2**8 ... 2**32`` in one paragraph makes the text
  between the two ``**`` bold and the powers disappear; ``a*b*c`` turns ``b`` italic.
  Mathematics in prose is written as LaTeX (``$2^{32}$``, typeset offline by JupyterLab)
  or in a code span (`` `2**32` ``).
* relative links to a notebook that does not exist.

JupyterLab takes ``$...$`` and ``$$...$$`` out before it renders the Markdown, so the
test does the same: emphasis characters inside LaTeX are fine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

markdown_it = pytest.importorskip("markdown_it")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"

# Code (fenced, or spans of any number of backticks) is kept as it is; display and
# inline LaTeX are replaced by a neutral word, as JupyterLab's renderer sets math aside.
_CODE_OR_MATH = re.compile(
    r"(?P<code>```.*?```|(?P<ticks>`+).*?(?P=ticks))"
    r"|(?P<math>\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?\$)",
    re.DOTALL,
)
# An operator between two operands, as in "2**N + 1", "x = 2^3", "-2 - 1", "a/b". A hyphen
# between digits without spaces ("IEEE 754-2019", "notebooks 01-03") is not a minus.
_OPERATION = re.compile(
    r"[\w)]\s*(?:[+×*/^=<>≤≥]|\*\*)\s*[\w(]"
    r"|\d\s+-\s*\d|\d\s*−\s*\d|\s[-−]\s\d"
)


def _course() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))


def _cells(path: Path) -> list[tuple[int, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        (index, "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"])
        for index, cell in enumerate(cells)
        if cell["cell_type"] == "markdown"
    ]


def _set_math_aside(text: str) -> str:
    return _CODE_OR_MATH.sub(lambda m: "MATH" if m["math"] else m[0], text)


def _parser():
    return markdown_it.MarkdownIt("commonmark").enable("table")


def _inline_runs(text: str):
    """The children of every inline token of the rendered text (one run per paragraph,
    heading or table cell)."""
    for token in _parser().parse(_set_math_aside(text)):
        if token.type == "inline" and token.children:
            yield token.children


def _text_at(run, index: int) -> str:
    """The text of ``run[index]`` when it is a text token, else ''."""
    return run[index].content if 0 <= index < len(run) and run[index].type == "text" else ""


def _plain(tokens) -> str:
    return "".join(t.content for t in tokens if t.type in ("text", "code_inline"))


def emphasis_defects(text: str) -> list[str]:
    """Where emphasis swallows mathematics in Markdown ``text`` (empty when none).

    Flags, outside code spans and LaTeX:

    * a literal ``**`` left in the rendered text (a power written Python's way, ``2**N``);
    * an emphasis marker glued to a letter, digit or bracket on its outer side
      (``2**8`` opening bold, ``a*b*c``): prose puts emphasis at word boundaries;
    * emphasised text that holds an operation (``**8 patterns ... -2**``).

    Examples
    --------
    >>> emphasis_defects("make 2**8 patterns, of which 2**7 are negative")
    ["bold opened right after '2': '8 patterns, of which 2'"]
    >>> emphasis_defects("between 2**N and 2**(N+1)")[0]
    "bold opened right after '2': 'N and 2'"
    >>> emphasis_defects("holds 2**23 values")
    ["'**' left in the text: 'holds 2**23 values'"]
    >>> emphasis_defects("**Exercise 2 (predict, then check; ★★, 5 min).** Store $2^{10}$.")
    []
    >>> emphasis_defects("use `2**32` or $a*b*c$, *really*")
    []
    """
    defects = []
    for run in _inline_runs(text):
        for token in run:
            if token.type == "text" and "**" in token.content:
                defects.append(f"'**' left in the text: {token.content.strip()!r}")
        depth_start: list[int] = []
        for i, token in enumerate(run):
            if token.type in ("strong_open", "em_open"):
                depth_start.append(i)
            elif token.type in ("strong_close", "em_close") and depth_start:
                start = depth_start.pop()
                what = "bold" if token.type == "strong_close" else "italics"
                inner = _plain(run[start + 1 : i])
                before = _text_at(run, start - 1)[-1:]
                after = _text_at(run, i + 1)[:1]
                if re.match(r"[\w)\]]", before):
                    defects.append(f"{what} opened right after {before!r}: {inner!r}")
                elif re.match(r"[\w(\[]", after):
                    defects.append(f"{what} closed right before {after!r}: {inner!r}")
                elif _OPERATION.search(inner):
                    defects.append(f"{what} text holds an operation: {inner!r}")
    return defects


def notebook_links(text: str) -> list[str]:
    """Targets of the Markdown links in ``text`` that point at a notebook by a relative path.

    Examples
    --------
    >>> notebook_links("[a](01-a.ipynb#top) [b](https://x.org/b.ipynb) [c](c.md)")
    ['01-a.ipynb#top']
    """
    found = []
    for token in _parser().parse(text):
        for child in token.children or ():
            href = child.attrGet("href") if child.type == "link_open" else None
            if href and not re.match(r"[a-z][a-z0-9+.-]*:", href, re.I):
                if href.split("#")[0].endswith(".ipynb"):
                    found.append(href)
    return found


def _param(path: Path):
    return pytest.param(path, id=path.relative_to(NOTEBOOKS).as_posix())


def test_the_course_has_markdown():
    assert len(_course()) >= 8
    assert all(_cells(path) for path in _course())


@pytest.mark.parametrize("path", [_param(p) for p in _course()])
def test_no_mathematics_swallowed_by_emphasis(path: Path):
    found = [f"cell {index}: {d}" for index, text in _cells(path) for d in emphasis_defects(text)]
    assert not found, (
        f"{path.name}: emphasis swallows mathematics (write it as $2^{{32}}$ or `2**32`):\n"
        + "\n".join(found)
    )


@pytest.mark.parametrize("path", [_param(p) for p in _course()])
def test_links_to_notebooks_resolve(path: Path):
    broken = [
        f"cell {index}: {target}"
        for index, text in _cells(path)
        for target in notebook_links(text)
        if not (path.parent / target.split("#")[0]).is_file()
    ]
    assert not broken, f"{path.name} links to notebooks that do not exist: {broken}"


@pytest.mark.parametrize(
    "text",
    [
        "Eight bits make 2**8 patterns.",
        "from -2**31 to 2**31 - 1",
        "between 2**N and 2**(N+1)",
        "the product a*b*c",
        "**2 + 2 = 4** is bold arithmetic",
        "*x - 1 < 2*",
        "**the range 2 - 1**",
        "*from 3 − 1*",
    ],
)
def test_the_defects_are_caught(text: str):
    assert emphasis_defects(text)


@pytest.mark.parametrize(
    "text",
    [
        "**Teacher's box**",
        "> **Duration.** About 40 minutes: 30 for the walk-through.",
        "**Exercise 3 (why; ★★, 10 min).** Why is the top exponent field 30?",
        "the *density*, how many values there are",
        "$2^{32}$ patterns, $-2^{31}$ to $2^{31} - 1$, and `2**23 = 8388608`",
        "$$\\frac{a*b}{c*d}$$",
        "| a | b |\n| --- | --- |\n| $2^{10}$ | **bold** |",
        "a snake_case_name and __init__",
        "**IEEE 754-2019**: the standard; **notebooks 01-03** first",
    ],
)
def test_prose_passes(text: str):
    assert emphasis_defects(text) == []
