"""Copy the notebook course out of the installed package.

The notebooks live in the repository's ``notebooks/`` folder and are shipped inside
the wheel as ``fpexplore/_course/``, so users of the wheel get them too.
:func:`copy_course` puts a fresh copy in a folder of the user's choosing, where they
can be run and edited without touching the installed package. The few files from
elsewhere in the repository that the course uses (:data:`COMPANIONS`, e.g. the
script that times notebook 06's three policies) go along, at the same relative path,
so the copy is self-sufficient.

Examples
--------
>>> copied = copy_course("fp-course")  # doctest: +SKIP
>>> index_notebook("fp-course")  # doctest: +SKIP
PosixPath('fp-course/00-index.ipynb')
"""

from __future__ import annotations

import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = ["COMPANIONS", "CourseNotFoundError", "copy_course", "course_source", "index_notebook"]

_SKIP = {".ipynb_checkpoints", "__pycache__", ".DS_Store"}

COMPANIONS = ("benchmarks/mixed_precision.py",)
"""Files of the repository outside ``notebooks/`` that the course uses, by their path
from the repository root. The wheel holds them under ``fpexplore/_course/`` at that
same path (pyproject's force-include); from a checkout :func:`copy_course` adds them."""


def _checkout() -> Path:
    """The repository root of a source checkout or editable install."""
    return Path(__file__).resolve().parents[2]


class CourseNotFoundError(FileNotFoundError):
    """Neither the installed package nor a source checkout holds the notebooks."""


def _has_notebooks(folder: Traversable) -> bool:
    if not folder.is_dir():
        return False
    return any(item.name.endswith(".ipynb") for item in folder.iterdir())


def course_source() -> Traversable:
    """The folder holding the course notebooks.

    Looks first in the installed package (``fpexplore/_course``, put there when
    the wheel is built), then, for an editable install or a source checkout,
    in the ``notebooks/`` folder next to the package.

    Raises
    ------
    CourseNotFoundError
        When neither holds any ``.ipynb`` file.
    """
    packaged = resources.files("fpexplore") / "_course"
    if _has_notebooks(packaged):
        return packaged
    checkout = _checkout() / "notebooks"
    if _has_notebooks(checkout):
        return checkout
    raise CourseNotFoundError(
        "the notebook course was not found in this installation (looked in "
        f"{packaged} and {checkout}); reinstall fpexplore from its clone: pip install -e ."
    )


def _copy_tree(source: Traversable, dest: Path, copied: list[Path]) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for item in sorted(source.iterdir(), key=lambda entry: entry.name):
        if item.name in _SKIP:
            continue
        target = dest / item.name
        if item.is_dir():
            _copy_tree(item, target, copied)
        else:
            with item.open("rb") as src, target.open("wb") as out:
                shutil.copyfileobj(src, out)
            copied.append(target)


def copy_course(dest: str | Path, *, force: bool = False) -> list[Path]:
    """Copy every course notebook (and its companion files) into ``dest``.

    Parameters
    ----------
    dest : str or Path
        Target folder; created when missing.
    force : bool
        Copy into a folder that already holds files, overwriting files of the
        same name (others are left alone). Without it such a folder is refused.

    Returns
    -------
    list of Path
        The files written, in the order written: the course folder's, then the
        :data:`COMPANIONS` it does not hold itself (found next to ``notebooks/``
        in a source checkout).

    Raises
    ------
    FileExistsError
        When ``dest`` is a non-empty folder and ``force`` is False, or a file.
    CourseNotFoundError
        When the installation holds no notebooks.
    """
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise FileExistsError(f"{dest} exists and is not a folder; expected a folder name")
    if dest.is_dir() and any(dest.iterdir()) and not force:
        raise FileExistsError(
            f"{dest} is not empty; expected a new or empty folder (or pass --force to "
            "overwrite the course files in it)"
        )
    source = course_source()
    copied: list[Path] = []
    _copy_tree(source, dest, copied)
    if isinstance(source, Path) and source == _checkout() / "notebooks":
        for companion in COMPANIONS:
            origin, target = _checkout() / companion, dest / companion
            if origin.is_file() and target not in copied:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(origin, target)
                copied.append(target)
    return copied


def index_notebook(dest: str | Path) -> Path | None:
    """The notebook to open first in a copied course.

    The top-level notebook whose name contains "index" if there is one, else
    the first top-level notebook in name order, else None.
    """
    notebooks = sorted(Path(dest).glob("*.ipynb"))
    for path in notebooks:
        if "index" in path.stem.lower():
            return path
    return notebooks[0] if notebooks else None
