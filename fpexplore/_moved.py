"""Old module paths kept importable after a module moved (docs/changelog.md).

Each package that moved modules keeps a ``_MOVED_MODULES`` mapping of old name to new
(relative to the package) and passes it to :func:`alias_moved_modules` in its
``__init__``. Importing nothing of fpexplore, this works for any package, including
``fpexplore.keras`` before Keras is imported.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping


def alias_moved_modules(package: str, moved: Mapping[str, str]) -> None:
    """Make ``package.old`` an alias of ``package.new`` for each ``old: new`` of
    ``moved``: in ``sys.modules``, and as an attribute of the package that holds the old
    name where that package is loaded and has no such attribute of its own."""
    for old, new in moved.items():
        module = importlib.import_module(f"{package}.{new}")
        sys.modules.setdefault(f"{package}.{old}", module)
        parent_name, _, name = f"{package}.{old}".rpartition(".")
        parent = sys.modules.get(parent_name)
        if parent is not None and name not in vars(parent):
            setattr(parent, name, module)
