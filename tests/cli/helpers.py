"""What the command-line tests share: run the CLI in-process, read its JSON strictly,
expect one error line (the plain terminal fixture is in conftest.py)."""

from __future__ import annotations

import json

from fpexplore.cli import main


def run(capsys, *argv):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def strict(text: str):
    """json.loads that refuses NaN/Infinity literals (not valid JSON)."""

    def refuse(constant):
        raise ValueError(f"invalid JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


def one_error_line(capsys, *argv) -> str:
    """Exit status 2, nothing on stdout, one line on stderr (no traceback): that line."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, ""), (status, out, err)
    assert err.startswith("fpexplore: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err
