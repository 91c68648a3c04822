"""Every install hint the package prints works from a clone: fpexplore is not on PyPI,
so ``pip install "fpexplore[plot]"`` would fail; ``pip install -e ".[plot]"`` run in the
clone works, and the hint says so. The same holds for the README, the docs and the
notebooks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
_OPTIONAL = _PYPROJECT.split("[project.optional-dependencies]")[1].split("\n[")[0]
EXTRAS = set(re.findall(r"^(\w+) = \[", _OPTIONAL, re.MULTILINE))  # tomllib needs Python 3.11
HINT = re.compile(r"""pip install[^\n"'`]*?["']?(?:fpexplore)?\.?\[([\w,]+)\]""")
FROM_A_CLONE = re.compile(r"""pip install (?:-\w+ )*-e ["']\.\[([\w,]+)\]["']""")


def _sources() -> list[Path]:
    package = sorted((ROOT / "fpexplore").rglob("*.py"))
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    docs += sorted((ROOT / "docs").rglob("*.py"))
    docs += sorted((ROOT / "docs" / "api").glob("*"))
    notebooks = sorted((ROOT / "notebooks").rglob("*.ipynb"))
    return [
        p
        for p in package + docs + notebooks
        if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts and p.is_file()
    ]


def _text(path: Path) -> str:
    """A file's text; a notebook's cells, as a reader sees them."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return text
    cells = json.loads(text)["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_hints_install_from_a_clone(path: Path) -> None:
    text = _text(path)
    for match in HINT.finditer(text):
        hint = match[0]
        assert FROM_A_CLONE.search(hint + '"'), f"{path.name}: {hint!r} does not work from a clone"
        assert set(match[1].split(",")) <= EXTRAS, f"{path.name}: unknown extra in {hint!r}"
    from_pypi = re.search(r"pip install (?:--?[\w-]+ )*[\"'`]?fpexplore\b", text)
    assert from_pypi is None, f"{path.name}: {from_pypi[0]!r} needs fpexplore on PyPI"


def test_the_package_hints_say_where_to_run_them() -> None:
    for path in sorted((ROOT / "fpexplore").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if FROM_A_CLONE.search(text):
            said = "from a clone" in text or "в клоне" in text  # the Russian edition's text
            assert said, f"{path.name}: a hint that does not say where to run it"
