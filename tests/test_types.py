"""The package type-checks, and a downstream project sees its types.

mypy runs with the ``[tool.mypy]`` settings of pyproject.toml: clean on the whole
package, strict on the core layers (formats, exact, codes, io, lazy, core, arith,
scaling, report). ``py.typed`` is
what lets a type checker read an installed fpexplore at all; without it every
name imported from the package is ``Any``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

# The annotations are checked against the numpy stubs of the main CI job, numpy 2.3 and
# 2.4 (the Keras pins keep numpy below 2.5 there): ndarray's type parameters have
# defaults from 2.3 on, and each numpy release revises its stubs. .ci/core-tests runs
# the library on other numpy versions, whose stubs type-check differently.
pytestmark = pytest.mark.skipif(
    not "2.3.0" <= np.lib.NumpyVersion(np.__version__) < "2.5.0",
    reason="the package is type-checked against the stubs of numpy 2.3 and 2.4",
)

DOWNSTREAM = """\
import numpy as np
import fpexplore as fpx

reveal_type(fpx.decode(0.1, "float32"))
reveal_type(fpx.get_format("fp16").bias)
reveal_type(fpx.round_to(1.0, "bfloat16"))
reveal_type(fpx.round_to([1.0, 2.0], "bfloat16"))
reveal_type(fpx.ulp(np.float32(3.0), np.float16))
reveal_type(fpx.next_up(np.zeros(3), fpx.FORMATS["float8_e4m3fn"]))
fmt: fpx.FormatLike = "e4m3"
fpx.decode(0.1, 16)  # not a format: the one error expected
"""


def _mypy(*args: str, cwd: Path, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: pip install -e '.[test]'")
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    if path is not None:
        env["PYTHONPATH"] = str(path)  # as an installed package: py.typed decides
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_package_is_clean() -> None:
    """mypy on fpexplore/ with the project's settings (strict on the core layers)."""
    result = _mypy("--config-file", "pyproject.toml", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_strict_settings_cover_the_core() -> None:
    """The core modules pass ``--strict`` itself, not only the listed settings."""
    core = [
        "fpexplore/formats",
        "fpexplore/exact",
        "fpexplore/codes.py",
        "fpexplore/lazy",
        "fpexplore/core",
        "fpexplore/arith",
        "fpexplore/scaling",
        "fpexplore/report",
    ]
    result = _mypy(
        "--config-file", "pyproject.toml", "--strict", "--follow-imports=silent", *core, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_py_typed_ships_in_the_package() -> None:
    assert (ROOT / "fpexplore" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"Typing :: Typed"' in pyproject
    assert 'packages = ["fpexplore"]' in pyproject  # hatch ships every file of the package


def test_downstream_code_sees_the_types(tmp_path: Path) -> None:
    """A typed user of the package: revealed types are the package's, not Any, and
    a wrong format argument is caught."""
    (tmp_path / "downstream.py").write_text(DOWNSTREAM)
    args = ("--no-incremental", "--config-file", os.devnull, "downstream.py")
    result = _mypy(*args, cwd=tmp_path, path=ROOT)
    out = result.stdout
    revealed = [
        line.split("Revealed type is ")[1] for line in out.splitlines() if "Revealed" in line
    ]
    assert revealed[0] == '"fpexplore.core.decode.FloatParts"', out
    assert revealed[1] in ('"int"', '"builtins.int"'), out  # Format.bias, never None
    assert revealed[2] == '"numpy.float64"', out
    assert revealed[3].startswith('"numpy.ndarray[') and "numpy.float64" in revealed[3], out
    assert revealed[4] == '"numpy.float64"', out
    assert revealed[5].startswith('"numpy.ndarray['), out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "downstream.py:11:" in errors[0], out
    assert 'incompatible type "int"' in errors[0] and "Format" in errors[0], out

    # the same package without its marker: mypy refuses to read it
    bare = tmp_path / "bare"
    shutil.copytree(ROOT / "fpexplore", bare / "fpexplore", ignore=shutil.ignore_patterns("*.pyc"))
    (bare / "fpexplore" / "py.typed").unlink()
    # An interpreter that sees only the bare copy: without site-packages, so that the
    # typed fpexplore of an editable install cannot stand in for it.
    python = tmp_path / "python-no-site"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    python.chmod(0o755)
    result = _mypy("--python-executable", str(python), *args, cwd=tmp_path, path=bare)
    assert "import-untyped" in result.stdout, result.stdout
    assert 'Revealed type is "Any"' in result.stdout, result.stdout


def test_bias_is_an_int_once_constructed() -> None:
    """``Format.bias`` is declared int: the constructor's None becomes the IEEE bias."""
    import dataclasses
    import typing

    import fpexplore as fpx

    assert typing.get_type_hints(fpx.Format)["bias"] is int
    assert fpx.Format("e5m10", 5, 10).bias == fpx.Format("e5m10", 5, 10, None).bias == 15
    assert fpx.Format("x", 4, 3, 8, "fn").bias == 8
    assert dataclasses.replace(fpx.get_format("float16"), bias=14).bias == 14
    with pytest.raises(TypeError, match="bias must be an int"):
        fpx.Format("x", 5, 10, 1.5)  # type: ignore[arg-type]  # a type checker refuses it too


@pytest.mark.parametrize("name", ["round_to", "ulp", "next_up", "next_down"])
def test_overloads_say_what_comes_back(name: str) -> None:
    """A numpy.float64 for a scalar, a float64 array for a list or an array."""
    import numpy as np

    import fpexplore as fpx

    func = getattr(fpx, name)
    for scalar in (1.0, 3, np.float32(0.1), np.int64(7)):
        assert type(func(scalar, "bfloat16")) is np.float64
    for array in ([1.0, 2.0], (1.0,), np.ones((2, 2), np.float32)):
        result = func(array, "bfloat16")
        assert isinstance(result, np.ndarray) and result.dtype == np.float64
