"""What a notebook needs installed, read from its import statements.

The course tells students which extras each notebook needs ("06 needs Keras"); those
sentences are computed from the notebooks' code cells, so they follow the code. An
import inside a ``try`` block is optional: the notebook runs without the package
(notebook 07 falls back to an untrained model when Keras is missing).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from .outline import NotebookLike, cell_source, load

__all__ = ["DISTRIBUTIONS", "SUBPACKAGE_NEEDS", "Imports", "imports"]

DISTRIBUTIONS = {"sklearn": "scikit-learn"}
"""Distributions whose import name differs from their name on the package index."""
SUBPACKAGE_NEEDS = {"fpexplore.plot": "matplotlib", "fpexplore.widgets": "ipywidgets"}
"""fpexplore's own subpackages that need a third-party package."""


@dataclass(frozen=True)
class Imports:
    """The third-party packages a notebook imports, by distribution name.

    ``required``: imported where a missing package stops the notebook; ``optional``:
    imported only inside a ``try`` block, so the notebook runs without them.
    """

    required: frozenset[str]
    optional: frozenset[str]


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level or not node.module:
        return []
    return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]


def _walk_imports(node: ast.AST, in_try: bool) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            found += [(module, in_try) for module in _imported(child)]
        else:
            found += _walk_imports(child, in_try or isinstance(child, ast.Try))
    return found


def _distribution(module: str) -> str | None:
    for package, needs in SUBPACKAGE_NEEDS.items():
        if module == package or module.startswith(package + "."):
            return needs
    top = module.split(".")[0]
    if top == "fpexplore" or top in sys.stdlib_module_names or top == "__future__":
        return None
    return DISTRIBUTIONS.get(top, top)


def imports(notebook: NotebookLike) -> Imports:
    """Which third-party packages a notebook's code cells import (see :class:`Imports`).

    >>> code = "import numpy as np\\ntry:\\n    import keras\\nexcept ImportError:\\n    pass"
    >>> found = imports({"cells": [{"cell_type": "code", "source": code}]})
    >>> sorted(found.required), sorted(found.optional)
    (['numpy'], ['keras'])
    """
    required: set[str] = set()
    optional: set[str] = set()
    for cell in load(notebook)["cells"]:
        if cell.get("cell_type") != "code":
            continue
        lines = cell_source(cell).splitlines()
        code = "\n".join(ln for ln in lines if not ln.lstrip().startswith(("%", "!")))
        for module, in_try in _walk_imports(ast.parse(code), False):
            name = _distribution(module)
            if name:
                (optional if in_try else required).add(name)
    return Imports(frozenset(required), frozenset(optional - required))
