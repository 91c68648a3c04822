"""Each course notebook executed once per test run, for every test that needs its outputs.

``tests/test_notebooks.py`` runs each notebook and checks it; the documentation site
(``tests/test_docs.py``) shows the same notebooks with their outputs. Both take the
executed copy from :func:`executed`: the first to ask executes the notebook (in a fresh
``python3`` kernel, in a copy of its folder's place in the course) and writes the result
into a folder that the run's workers share; one that asks meanwhile waits on the
notebook's lock and reads the result. The notebook tests walk the course forwards and
the site walks it backwards, so two workers execute different notebooks at once. A
notebook that fails to run leaves nothing behind: the next to ask runs it again and
sees the same error.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
CELL_TIMEOUT_S = 600
KERNEL_ENV = {"MPLBACKEND": "Agg", "JUPYTER_PLATFORM_DIRS": "1"}


def course_notebooks() -> list[Path]:
    """The notebooks and their solutions, without the projector copies a teacher made."""
    found = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))
    return [path for path in found if not path.stem.endswith("-projector")]


def shared_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder that every worker of this test run sees (xdist's workers each have a
    temporary folder under the run's own), created once."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "executed-notebooks"
    folder.mkdir(exist_ok=True)
    return folder


@contextlib.contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def execute(path: Path, keras: bool) -> object:
    """``path`` run top to bottom in a fresh python3 kernel in its own folder; the
    executed notebook (nbformat). Raises CellExecutionError, with the cell and its
    traceback, on failure."""
    import nbclient
    import nbformat

    env = dict(KERNEL_ENV)
    if keras:  # the notebook picks its own backend (JAX); the kernel gets the same
        env["KERAS_BACKEND"] = os.environ.get("KERAS_BACKEND", "jax")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(path.parent)}},
    )
    with _environment(env):
        client.execute()
    return notebook


def executed(path: Path, folder: Path, keras: bool = False) -> Path:
    """The executed copy of the course notebook ``path`` in ``folder`` (the same
    relative path as under ``notebooks/``), executing it first if no one has."""
    import nbformat

    out = folder / path.relative_to(NOTEBOOKS)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not out.exists():
            notebook = execute(path, keras)
            partial = out.with_name(out.name + ".partial")
            nbformat.write(notebook, partial)
            os.replace(partial, out)
    return out
