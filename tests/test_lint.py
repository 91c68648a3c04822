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
        [*_ruff(), "check", "fpexplore", "tests", "benchmarks"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = subprocess.run(
        [*_ruff(), "format", "--check", "fpexplore", "tests", "benchmarks"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_doctests() -> None:
    """The Examples sections of the core modules run as written."""
    modules = ["formats", "exact", "codes", "_dtypes", "_blocks", "_fields", "_round_blocked",
               "_round_general", "_rounding", "_errors_kernel", "_neighbours", "decode", "error",
               "density", "display", "cli", "cli_output", "cli_parser", "course"]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules",
         *(str(ROOT / "fpexplore" / f"{m}.py") for m in modules)],
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
