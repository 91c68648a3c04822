"""The command lines that the README, the docs' command-line page and ``--help`` show run
as shown: exit 0, nothing on stderr, and the numbers their comments promise are printed."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from fpexplore.cli import main
from fpexplore.cli.parser import EPILOG

ROOT = Path(__file__).resolve().parents[2]


def _bash_examples(path: Path, heading: str) -> list[tuple[list[str], str]]:
    """(arguments, comment) of each ``fpexplore ...`` line in the first bash block after
    ``heading``."""
    text = path.read_text(encoding="utf-8").split(heading, 1)[1]
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    examples = []
    for line in block.splitlines():
        if line.startswith("fpexplore "):
            command, _, comment = line.partition(" #")
            examples.append((shlex.split(command)[1:], comment))
    return examples


def _help_examples() -> list[tuple[list[str], str]]:
    """(arguments, description) of each example of ``--help``: a command, two spaces or
    more, then what it shows."""
    lines = EPILOG.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    found = []
    for line in lines:
        command, *description = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        found.append((shlex.split(command)[1:], " ".join(description)))
    return found


SOURCES = {
    "README": _bash_examples(ROOT / "README.md", "### On the command line"),
    "docs": _bash_examples(ROOT / "docs" / "cli.md", "# Command line"),
    "--help": _help_examples(),
}
EXAMPLES = {
    f"{source}: {' '.join(argv)}": (argv, comment)
    for source, examples in SOURCES.items()
    for argv, comment in examples
}


def test_the_examples_are_found() -> None:
    assert sum(key.startswith("README") for key in EXAMPLES) >= 5
    assert sum(key.startswith("docs") for key in EXAMPLES) >= 15
    assert sum(key.startswith("--help") for key in EXAMPLES) >= 12


@pytest.mark.parametrize("name", EXAMPLES)
def test_documented_command_runs_as_shown(name, capsys, tmp_path, monkeypatch) -> None:
    argv, comment = EXAMPLES[name]
    if "--plot" in argv and importlib.util.find_spec("matplotlib") is None:
        pytest.skip("needs matplotlib")
    monkeypatch.chdir(tmp_path)  # --plot and --course write here
    monkeypatch.setenv("COLUMNS", "100")
    status = main(argv)
    out, err = capsys.readouterr()
    assert (status, err) == (0, ""), (argv, err)
    for number in re.findall(r"(?<![\w.*^-])(?:\d+\.\d{2,}|\d{3,})(?![\w*^])", comment):
        assert number in out, f"{argv}: the comment promises {number}"
