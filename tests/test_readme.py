"""The README is a front door: short, with the two commands near the top (the test
command exactly what ``.ci/run`` runs), and links that lead into the documentation."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _two_commands() -> list[str]:
    section = README.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 250


def test_the_two_commands_come_first() -> None:
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    assert headings[0] == "Two commands", headings
    course, tests = _two_commands()
    assert "\n" not in course and "jupyter lab notebooks/00-index.ipynb" in course
    assert "\n" not in tests and tests.endswith("-m pytest -n 2 --dist loadfile")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, tests = _two_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci, "the README's test command and .ci/run differ"


def test_every_link_resolves() -> None:
    """Relative links and images name files of the repository."""
    targets = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert len(local) >= 10, local
    missing = [t for t in local if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, missing
    docs = {t for t in local if t.startswith("docs/")}
    for page in ("cli.md", "formats.md", "guarantees.md", "changelog.md", "contributing.md"):
        assert f"docs/{page}" in docs, page
