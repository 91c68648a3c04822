"""The package's folders are its layers, and imports run downward only.

From the bottom: ``formats`` (the model), ``exact`` (exact parsing and rounding),
``_kernels`` (vectorized kernels) and ``codes`` (their public face), ``io``
(checkpoint readers, which need none of these), ``core``
(decode, round, measure, count), ``render`` (text, HTML, tables), the package root
(the public API), and the front ends ``plot``, ``widgets``, ``mixed``, ``cli``.
A module imports from its own layer or below. The only upward imports are the
documented lazy ones through which a model object renders itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fpexplore"

LAYERS = {
    "formats": 0,
    "exact": 1,
    "_kernels": 2,
    "codes": 3,
    "io": 3.5,  # checkpoint readers: numpy and the file libraries only; the reports import them
    "core": 4,
    "render": 5,
    "": 6,  # the package root: fpexplore/__init__.py and __main__.py
    "plot": 7,
    "widgets": 7,
    "mixed": 7,
    "cli": 7,
}

# (module, function) pairs allowed to import upward, lazily: objects rendering themselves.
LAZY_RENDERING = {
    ("formats.format", "_repr_html_"),
    ("core.decode", "__str__"),
    ("core.decode", "_repr_html_"),
    ("core.rounding_explain", "__str__"),
    ("core.rounding_explain", "to_svg"),
    ("core.rounding_explain", "_repr_html_"),
    ("core.operation", "__str__"),
    ("core.operation", "_repr_html_"),
    ("core.accumulate", "__str__"),
    ("core.accumulate", "_repr_html_"),
    ("core.blocks", "__str__"),
    ("core.blocks", "_repr_html_"),
    ("core.report", "table"),
    ("core.report", "plot"),
    ("core.checkpoint_result", "table"),
    ("core.checkpoint_result", "__str__"),
    ("core.checkpoint_result", "_repr_html_"),
    ("core.checkpoint_result", "plot"),
    ("core.census", "__str__"),
    ("core.census", "_repr_html_"),
    ("core.error", "__str__"),
    ("core.error", "_repr_html_"),
    ("core.arrays", "__str__"),
    ("core.arrays", "_repr_html_"),
    ("core.density", "__repr__"),
    ("core.density", "_repr_html_"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts)


def _layer(module: str) -> int:
    top = module.split(".")[0]
    if top == "__init__":
        top = ""
    if top == "__main__":  # python -m fpexplore: the command line
        top = "cli"
    assert top in LAYERS, f"fpexplore.{module} is in no layer: add its folder to LAYERS"
    return LAYERS[top]


def _is_module(dotted: str) -> bool:
    path = PACKAGE.joinpath(*dotted.split("."))
    return path.is_dir() or path.with_suffix(".py").exists()


def _target(module: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The fpexplore modules that an import statement reads, relative to the package
    ("" for the package root)."""
    if isinstance(node, ast.Import):
        return [a.name[len("fpexplore.") :] for a in node.names if a.name.startswith("fpexplore.")]
    if node.level == 0:
        if node.module == "fpexplore":
            base: list[str] = []
        elif node.module and node.module.startswith("fpexplore."):
            return [node.module[len("fpexplore.") :]]
        else:
            return []
    else:
        package = module.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        if node.module:
            return [".".join([*base, node.module])]
    names = [".".join([*base, a.name]) for a in node.names]
    return [name if _is_module(name) else ".".join(base) for name in names]


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    yield from _walk(tree, None)


def _walk(node: ast.AST, function: str | None):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _walk(child, child.name)
        elif isinstance(child, ast.Import | ast.ImportFrom):
            yield function, child
        else:
            yield from _walk(child, function)


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_downward(path: Path) -> None:
    module = _module_name(path)
    own = _layer(module)
    for function, node in _imports(path):
        for target in _target(module, node):
            if target == "" or target.startswith("_course"):
                target_layer = LAYERS[""]
            else:
                target_layer = _layer(target)
            if target_layer <= own:
                continue
            assert (module, function) in LAZY_RENDERING, (
                f"fpexplore.{module} (layer {own}) imports fpexplore.{target} (layer "
                f"{target_layer}) in {function or 'the module body'}: imports run downward"
            )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_are_small_or_say_why(path: Path) -> None:
    lines = path.read_text().splitlines()
    if len(lines) <= 320:
        return
    head = "\n".join(lines[:40]).lower()
    assert "longer than" in head or "one job" in head, (
        f"{path.relative_to(PACKAGE)} has {len(lines)} lines: split it, or say at its top why "
        "it is one module"
    )


def test_every_folder_is_a_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == {name for name in LAYERS if name and name != "codes"}
