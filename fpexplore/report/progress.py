"""A progress bar for long reports: tqdm's, where one can be seen.

``progress=None`` (auto) shows a bar on a terminal (stderr is a tty) or, in
Jupyter, as a widget (``tqdm.notebook``, which needs ipywidgets); ``True`` asks
for one (and names the extra to install if tqdm is missing); ``False`` shows
none. A bar is never written to a stderr that is not a terminal (a log, a pipe,
CI). tqdm is the ``progress`` extra (``pip install -e ".[progress]"``), imported
only when a bar is shown.

>>> bar = progress_bar(100, "report", False)
>>> bar.update(10); bar.close()
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

__all__ = ["progress_bar"]


class _Silent:
    """A bar that shows nothing."""

    def update(self, n: int = 1) -> None:
        return None

    def set_description(self, text: str) -> None:
        return None

    def close(self) -> None:
        return None


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    get = getattr(shell, "get_ipython", None)
    ip = get() if callable(get) else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):
        return False


def progress_bar(total: int, description: str, progress: bool | None) -> Any:
    """A bar counting to ``total`` (``update``, ``set_description``, ``close``), or a
    silent stand-in where none is to be shown (see the module notes)."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    if progress is False:
        return _Silent()
    notebook = _in_notebook()
    if not notebook and not _stderr_is_terminal():
        return _Silent()
    needed = ["tqdm", "ipywidgets"] if notebook else ["tqdm"]
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:  # (a notebook bar without ipywidgets would fall back to stderr)
        if progress:
            raise ImportError(
                f"a progress bar needs {' and '.join(missing)}; from a clone of fpexplore: "
                'pip install -e ".[progress]" (and ".[jupyter]" for notebooks)'
            )
        return _Silent()
    module = importlib.import_module("tqdm.notebook" if notebook else "tqdm")
    return module.tqdm(total=total, desc=description, unit="value", unit_scale=True,
                       leave=False)  # fmt: skip
