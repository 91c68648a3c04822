"""The package's folders are its layers, and imports run downward only.

From the bottom: ``formats`` (the model), ``exact`` (exact parsing and rounding),
``_kernels`` (vectorized kernels) and ``codes`` (their public face), ``io`` (checkpoint
readers) and ``lazy`` (dask arrays), ``core`` (decode, round, measure, count), ``arith``
(operations and sums) and ``scaling`` (per-tensor and block scaling), ``report``
(tensor and checkpoint reports) and ``render`` (text, HTML, tables), ``explain``
(step-by-step explanations), the package root (the public API), and the front ends
``plot``, ``widgets``, ``mixed``, ``course`` (the course's tools), ``cli``, ``jax``
(rounding inside jit) and ``keras``
(training in a format, which uses ``jax``).
A module imports from its own layer or below. The only upward imports are the
documented lazy ones through which a model object renders itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fpexplore"

LAYERS = {
    "_moved": 0,  # old module paths kept importable: it imports nothing of fpexplore
    "formats": 0,
    "exact": 1,
    "_kernels": 2,
    "codes": 3,
    "io": 4,  # checkpoint readers (numpy and the file libraries only): the reports import them
    "lazy": 4,
    "core": 5,
    "arith": 6,
    "scaling": 6,
    "report": 7,  # tensor and checkpoint reports: they read io and scaling, render lazily
    "render": 7,
    "explain": 8,  # step-by-step explanations, built on render's text, boxes and tables
    "array": 8,  # FormatArray: numpy code in a format (uses arith, the kernels, explain)
    "": 9,  # the package root: fpexplore/__init__.py and __main__.py
    "plot": 10,
    "widgets": 10,
    "mixed": 10,
    "course": 10,  # the course's tools: outline, pacing, tables, requirements, copying
    "cli": 10,
    "jax": 10,
    "keras": 10,
}

# (module, function) pairs allowed to import upward, lazily: objects rendering themselves.
LAZY_RENDERING = {
    ("formats.format", "_repr_html_"),
    ("core.decode", "__str__"),
    ("core.decode", "_repr_html_"),
    ("core.rounding_explain", "__str__"),
    ("core.rounding_explain", "to_svg"),
    ("core.rounding_explain", "_repr_html_"),
    ("arith.operation", "__str__"),
    ("arith.operation", "_repr_html_"),
    ("arith.accumulate", "__str__"),
    ("arith.accumulate", "_repr_html_"),
    ("scaling.blocks", "__str__"),
    ("scaling.blocks", "_repr_html_"),
    ("scaling.__init__", "__getattr__"),  # the report names that moved to report/
    ("report.tensor", "table"),
    ("report.tensor", "plot"),
    ("report.checkpoint_result", "table"),
    ("report.checkpoint_result", "__str__"),
    ("report.checkpoint_result", "_repr_html_"),
    ("report.checkpoint_result", "plot"),
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
    modules = {p.stem for p in PACKAGE.glob("*.py")}  # codes, _moved: layers of one module
    assert folders == {name for name in LAYERS if name and name not in modules}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def _runtime_walk(node: ast.AST, function: str | None):
    """Like _walk, without the imports that only type checkers run."""
    for child in ast.iter_child_nodes(node):
        if _is_type_checking(child):
            continue
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _runtime_walk(child, child.name)
        elif isinstance(child, ast.Import | ast.ImportFrom):
            yield function, child
        else:
            yield from _runtime_walk(child, function)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports at run time (lazily inside functions too),
    leaving out the documented lazy rendering imports."""
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        module = _module_name(path)
        node_name = module.removesuffix("__init__").rstrip(".")
        targets = graph.setdefault(node_name, set())
        for function, node in _runtime_walk(ast.parse(path.read_text()), None):
            if (module, function) not in LAZY_RENDERING:
                targets.update(_target(module, node))
    return graph


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, not even through a lazy import
    inside a function (which only hides a loop): a loop means two modules share a
    concern that belongs in a third."""
    graph = _import_graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in graph:
                continue
            if state.get(target) == 1:
                cycles.append(" -> ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("folder", ["report.routes", "array.ops", "keras.policies"])
def test_a_subfolder_imports_nothing_of_the_folder_around_it(folder: str) -> None:
    """report/routes/, array/ops/ and keras/policies/ are read by the modules of the
    folder around them and read none of those (docs/contributing.md)."""
    outer = folder.rsplit(".", 1)[0]
    for path in sorted(PACKAGE.joinpath(*folder.split(".")).glob("*.py")):
        module = _module_name(path)
        for _, node in _imports(path):
            for target in _target(module, node):
                inside = target == folder or target.startswith(f"{folder}.")
                assert inside or not target.startswith(f"{outer}."), (
                    f"fpexplore.{module} imports fpexplore.{target}"
                )
                assert target != outer, f"fpexplore.{module} imports fpexplore.{outer}"


def test_moved_module_paths_still_import() -> None:
    """Old module paths import as aliases of the modules that replaced them
    (docs/changelog.md, "Old names that still work")."""
    import importlib

    import fpexplore

    for old, new in fpexplore._MOVED_MODULES.items():
        assert importlib.import_module(f"fpexplore.{old}") is importlib.import_module(
            f"fpexplore.{new}"
        )
    from fpexplore.core import arithmetic, lazy  # the form `from package import module`

    assert arithmetic.add is fpexplore.add and lazy.from_npy is fpexplore.lazy.from_npy
    from fpexplore.scaling import checkpoint, report, tensor_report  # moved to report/

    assert report.tensor_report is tensor_report is fpexplore.tensor_report
    assert checkpoint.checkpoint_report is fpexplore.checkpoint_report
    from fpexplore.render import arithmetic as explained

    assert (
        explained.operation_text
        is importlib.import_module("fpexplore.explain").arithmetic.operation_text
    )

    from fpexplore.scaling import report_tiles  # scaling/ -> report/routes/tiles.py

    assert report_tiles is importlib.import_module("fpexplore.report.routes.tiles")
    assert importlib.import_module("fpexplore.scaling.report_tiles") is report_tiles

    from fpexplore.report import chunks, narrow, stats  # moved to report/routes/

    assert stats is fpexplore.report.routes.stats and fpexplore.report.narrow is narrow
    assert chunks.plan_chunks is importlib.import_module("fpexplore.report.chunks").plan_chunks

    from fpexplore.array import flags, transcendental  # moved to array/ops/

    assert flags.flag_counter is fpexplore.flag_counter
    assert transcendental is importlib.import_module("fpexplore.array.ops.transcendental")

    from fpexplore.cli import course, course_tables, outline, pacing  # the course's tools

    assert course.copy_course is fpexplore.course.copy_course
    assert course_tables.plan_table is fpexplore.course.tables.plan_table
    assert outline.load is pacing.load is fpexplore.course.outline.load


def test_moved_plot_module_paths_still_import() -> None:
    """fpexplore.plot's modules that moved into values/ and computing/ import by their old
    paths, also as attributes (``from fpexplore.plot import mixed``)."""
    import importlib

    pytest.importorskip("matplotlib")
    import fpexplore.plot as fpplot

    for old, new in fpplot._MOVED_MODULES.items():
        module = importlib.import_module(f"fpexplore.plot.{new}")
        assert importlib.import_module(f"fpexplore.plot.{old}") is module
        assert getattr(fpplot, old) is module
    from fpexplore.plot import training

    assert training.plot_learning_curves is fpplot.plot_learning_curves


def test_moved_keras_module_paths_still_import() -> None:
    """fpexplore.keras's modules that moved into policies/ import by their old paths, also
    as attributes (``from fpexplore.keras import presets``), without importing Keras."""
    import importlib
    import subprocess
    import sys

    import fpexplore.keras as fpkeras

    for old, new in fpkeras._MOVED_MODULES.items():
        module = importlib.import_module(f"fpexplore.keras.{new}")
        assert importlib.import_module(f"fpexplore.keras.{old}") is module
        assert getattr(fpkeras, old) is module
    from fpexplore.keras import presets

    assert presets.PRESETS is fpkeras.PRESETS
    code = (
        "import sys, fpexplore.keras.policy, fpexplore.keras.presets\n"
        "print(sorted(m for m in ('jax', 'keras') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_contributors_page_names_every_folder() -> None:
    """docs/contributing.md's tree of the layers names every folder of the package, in the
    order of the layers (lowest first)."""
    page = (PACKAGE.parent / "docs" / "contributing.md").read_text(encoding="utf-8")
    tree = page.split("```text\nfpexplore/\n", 1)[1].split("```", 1)[0]
    named = [
        line.split()[0].rstrip("/").removesuffix(".py")
        for line in tree.splitlines()
        if line[2:3] != " "
    ]
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(named), sorted(folders - set(named))
    layers = [LAYERS["" if name == "(root)" else name] for name in named]
    assert layers == sorted(layers), list(zip(named, layers, strict=True))


def _is_module(dotted: str) -> bool:
    """Whether ``dotted`` (relative to the package) is a module or package of it."""
    path = PACKAGE.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_names_used_across_modules_are_public() -> None:
    """A name that another module imports (or reads off ``fpexplore.codes`` as
    ``K.name``) has a public spelling in its module; a leading underscore marks what one
    module alone uses. Private modules themselves (``_kernels``, ``jax._core``) may be
    imported by their names."""
    crossing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                targets = _target(module, node)
                source = targets[0] if targets else None
                for alias in node.names:
                    name = alias.name
                    if not name.startswith("_") or name.startswith("__") or source is None:
                        continue
                    if not _is_module(f"{source}.{name}".strip(".")):
                        crossing.append(f"fpexplore.{module} imports {name} from {source}")
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "K"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                crossing.append(f"fpexplore.{module} reads K.{node.attr}")
    assert not crossing, "private names used across modules:\n" + "\n".join(crossing)
