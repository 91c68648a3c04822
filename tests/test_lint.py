"""The code base is ruff-clean and the notebooks are stored without outputs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return [exe]


def test_ruff_check() -> None:
    result = subprocess.run(
        [*_ruff(), "check", "fpexplore", "tests", "benchmarks", "notebooks", "docs"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = subprocess.run(
        [*_ruff(), "format", "--check", "fpexplore", "tests", "benchmarks", "notebooks", "docs"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_doctests() -> None:
    """The Examples sections of every module below the front ends (and the CLI) run as
    written; plot, widgets, mixed and jax (only where JAX is installed) run theirs in
    their own tests."""
    paths = [
        "formats",
        "exact",
        "_kernels",
        "codes.py",
        "io",
        "lazy",
        "core",
        "arith",
        "scaling",
        "report",
        "render",
        "explain",
        "cli",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules",
         *(str(ROOT / "fpexplore" / p) for p in paths)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_readme_examples() -> None:
    """The README's REPL tour runs as written."""
    import doctest

    failures, tried = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert tried > 5 and failures == 0


DOC_PAGES = sorted(
    p for p in (ROOT / "docs").rglob("*.md") if ">>> " in p.read_text(encoding="utf-8")
)
DOC_PAGES = [p for p in DOC_PAGES if not {"_build", "course"} & set(p.relative_to(ROOT).parts)]


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_page_examples(page: Path) -> None:
    """The examples of the docs site's pages (the reference that left the README) run as
    written; a code fence ends an example as a blank line does."""
    import doctest
    import re

    text = re.sub(r"^```.*$", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    test = doctest.DocTestParser().get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    failures, tried = runner.summarize(verbose=False)
    assert tried > 0 and failures == 0


def test_the_moved_examples_are_tested() -> None:
    names = {p.name for p in DOC_PAGES}
    assert {"computing.md", "scaled-formats.md", "getting-started.md"} <= names, names
