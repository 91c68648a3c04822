"""The Examples of every fpexplore.jax module run as written (only where JAX is
installed: the core job's ``tests/test_lint.py`` doctests leave this package out)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

pytest.importorskip("jax")

import fpexplore.jax

MODULES = sorted(m.name for m in pkgutil.iter_modules(fpexplore.jax.__path__, "fpexplore.jax."))


@pytest.mark.parametrize("name", ["fpexplore.jax", *MODULES])
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
