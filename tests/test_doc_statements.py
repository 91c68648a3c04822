"""Statements of the docs site that can be checked against the code and the notebooks
without building the site: which notebooks need Python 3.11 (the Keras ones), and where
hardware detects tininess (the rule the flags follow)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fpexplore.course.requirements import imports

REPO = Path(__file__).resolve().parents[1]


def _needs_keras(path: Path) -> bool:
    return "keras" in imports(path).required  # as docs/conf.py decides what to execute


@pytest.mark.parametrize(
    "page",
    ["docs/getting-started.md", "README.md", "docs/versions.md", "docs/contributing.md"],
)
def test_every_notebook_that_needs_keras_is_named_where_python_3_11_is(page: str) -> None:
    """A paragraph that says what needs Python 3.11, or which notebooks the site shows
    unexecuted without Keras, names every notebook that cannot run without Keras."""
    text = (REPO / page).read_text(encoding="utf-8")
    paragraphs = [
        " ".join(p.split())
        for p in text.split("\n\n")
        if re.search(r"need(s)? Python 3\.11|shown unexecuted", " ".join(p.split()))
    ]
    assert paragraphs, page
    keras = [p.stem for p in sorted((REPO / "notebooks").glob("*.ipynb")) if _needs_keras(p)]
    assert len(keras) >= 3, keras
    for paragraph in paragraphs:
        for stem in keras:
            label = stem.split("-")[0]  # "06", "lesson"
            assert label in paragraph, (stem, paragraph)


def _texts() -> list[Path]:
    docs = [*(REPO / "docs").rglob("*.md"), *(REPO / "docs").rglob("*.rst")]
    return [REPO / "README.md", *docs, *(REPO / "fpexplore").rglob("*.py")]


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(REPO)))
def test_tininess_after_rounding_is_not_said_of_arm(path: Path) -> None:
    """x86 detects tininess after rounding; ARM, by default, before (unless FPCR.AH = 1),
    as fpexplore.arith.arithmetic and the README say."""
    text = " ".join(path.read_text(encoding="utf-8").split())
    assert not re.search(r"after rounding.{0,80}?as on x86 and ARM", text), path


_PRINTED = re.compile(r"`print\((fpx\.\w+\([^`]*\))\)`[^`\n]*:\n\n```text\n(.*?)```", re.S)


@pytest.mark.parametrize("page", ["README.md", "docs/computing.md"])
def test_the_readme_prints_what_print_shows(page: str) -> None:
    """Each ``print(fpx....)`` block of the README and the docs' computing page, byte for
    byte."""
    import fpexplore as fpx

    blocks = _PRINTED.findall((REPO / page).read_text(encoding="utf-8"))
    assert len(blocks) >= 1
    for call, shown in blocks:
        assert str(eval(call, {"fpx": fpx})) + "\n" == shown, call  # the page's own call


_DOCUMENTED = re.compile(
    r"\.\. (?:auto(?:function|class|data|exception)|py:data)::\s*(?:fpexplore\.)?([\w.]+)"
)


_MODULE_MEMBERS = re.compile(r"\.\. automodule::\s*fpexplore\.([\w.]+)\n\s+:members: ([\w, ]+)")


def _api_names() -> set[str]:
    """The names the API pages document, relative to ``fpexplore`` (``currentmodule``):
    ``keras.emulate``, or ``keras.presets.PRESETS`` from an automodule's ``:members:``."""
    text = "".join(p.read_text(encoding="utf-8") for p in (REPO / "docs/api").glob("*.rst"))
    members = {
        f"{module}.{name.strip()}"
        for module, names in _MODULE_MEMBERS.findall(text)
        for name in names.split(",")
    }
    return set(_DOCUMENTED.findall(text)) | members


@pytest.mark.parametrize("module", ["fpexplore", "fpexplore.jax", "fpexplore.keras"])
def test_the_api_pages_document_every_public_name(module: str) -> None:
    """Every name of a public module's ``__all__`` has its entry on a topic page."""
    if module != "fpexplore":
        pytest.importorskip("jax")
    import importlib

    prefix = module.removeprefix("fpexplore").lstrip(".")
    names = {f"{prefix}.{n}" if prefix else n for n in importlib.import_module(module).__all__}
    documented = _api_names()
    missing = sorted(
        n
        for n in names - documented
        if not n.startswith("__")
        and not any(
            d.startswith(f"{prefix}.") and d.endswith(f".{n.split('.')[-1]}") for d in documented
        )
    )
    assert not missing, f"{module}: not on any page of docs/api: {missing}"


def test_the_conventions_page_names_every_function_with_a_default_format() -> None:
    """'Functions that round or compute need their format named': the top-level
    functions whose format has a default are the ones the page names as exceptions."""
    import inspect

    import fpexplore as fpx

    defaulted = set()
    for name in fpx.__all__:
        obj = getattr(fpx, name)
        if inspect.isfunction(obj):
            parameters = inspect.signature(obj).parameters
            for parameter in ("fmt", "formats"):
                p = parameters.get(parameter)
                if p is not None and p.default is not inspect.Parameter.empty:
                    defaulted.add(name)
    assert "decode" in defaulted
    page = (REPO / "docs/api/conventions.md").read_text(encoding="utf-8")
    paragraph = next(p for p in page.split("\n\n") if "defaults to float64" in p)
    for name in defaulted:
        assert f"`{name}" in paragraph, (name, paragraph)


_PRIVATE_REFERENCE = re.compile(r"fpexplore(?:\.\w+)*\._[a-z]\w*|:(?:func|mod|class):`~?_\w+")


def _documented_objects() -> list[tuple[str, object]]:
    """What the API pages render: each directive's object, and the public members its
    options ask for (all of them unless ``:no-members:`` or a ``:members:`` list)."""
    import importlib
    import inspect

    directive = re.compile(r"\.\. auto(\w+)::\s*(\S+)((?:\n +:.*)*)")
    found = []
    for page in sorted((REPO / "docs/api").glob("*.rst")):
        text = page.read_text(encoding="utf-8")
        current = re.search(r"\.\. currentmodule::\s*(\S+)", text)
        for kind, target, options in directive.findall(text):
            name = f"{current[1]}.{target}" if current and "." not in target else target
            if kind == "module":
                obj = importlib.import_module(name)
            else:
                parent, _, attr = name.rpartition(".")
                obj = getattr(importlib.import_module(parent), attr)
            found.append((name, obj))
            if ":no-members:" in options or kind not in ("class", "module"):
                continue
            listed = re.search(r":members: *(\S.*)", options)
            for member, value in inspect.getmembers(obj):
                wanted = listed is None or member in listed[1].replace(",", " ").split()
                if wanted and not member.startswith("_"):
                    if inspect.isroutine(value) or isinstance(value, property | type):
                        found.append((f"{name}.{member}", value))
    return found


def test_the_api_pages_name_no_private_module_or_function() -> None:
    """The issue: the API pages show no private names; their prose neither
    (``fpexplore._kernels.scaled``, ``:func:`_bounded```)."""
    pytest.importorskip("jax")
    import inspect

    named = {
        name: _PRIVATE_REFERENCE.findall(inspect.getdoc(obj) or "")
        for name, obj in _documented_objects()
    }
    assert not {name: refs for name, refs in named.items() if refs}


def _parameter_entries(doc: str) -> set[str] | None:
    """The names a numpy-style ``Parameters`` section lists (``a, b : int`` gives both)."""
    section = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
    if section is None:
        return None
    entries = re.findall(r"^(\w[\w, *]*?)(?: :|$)", section[1], re.M)
    return {n.strip().lstrip("*") for entry in entries for n in entry.split(",")}


def test_the_api_pages_document_every_parameter() -> None:
    """A function the API pages show, whose docstring has a Parameters section, lists
    every public parameter of its signature there (decode_array left out fmt)."""
    pytest.importorskip("jax")
    import inspect

    undocumented = {}
    for name, obj in _documented_objects():
        if not inspect.isfunction(obj):
            continue
        listed = _parameter_entries(inspect.getdoc(obj) or "")
        if listed is not None:
            params = inspect.signature(obj).parameters
            missing = {p for p in params if not p.startswith("_") and p != "self"} - listed
            if missing:
                undocumented[name] = sorted(missing)
    assert not undocumented


def test_the_values_the_api_pages_state_are_the_codes() -> None:
    """``.. py:data:: NAME`` with ``:value: ...`` (ROUNDING_MODES, FLAGS, ORDERS,
    fpexplore.keras.SCALINGS) states the value the package holds."""
    import ast
    import importlib

    text = "".join(p.read_text(encoding="utf-8") for p in (REPO / "docs/api").glob("*.rst"))
    stated = re.findall(r"\.\. py:data:: (\S+)\n +:value: (.+)", text)
    assert len(stated) >= 4
    for name, value in stated:
        if name.startswith("fpexplore.jax") or name.startswith("fpexplore.keras"):
            pytest.importorskip("jax")
        module, _, attr = (name if "." in name else f"fpexplore.{name}").rpartition(".")
        assert getattr(importlib.import_module(module), attr) == ast.literal_eval(value), name


def _overflow_group(name: str) -> str:
    """How the conventions page names the group of a catalogue format."""
    if name.startswith("p3109"):
        return "P3109"
    if "fnuz" in name:
        return "fnuz"
    if name.startswith(("float6_", "float4_")):
        return f"FP{name[5]}"
    return name if name.startswith("float8_e") and "e5m2" not in name else "IEEE"


def test_the_conventions_page_says_what_overflow_gives_in_every_format() -> None:
    """'Overflow follows the format': each catalogue format's group is named in the
    paragraph next to what ``decode`` of a huge value really gives there."""
    import math

    import fpexplore as fpx

    page = (REPO / "docs/api/conventions.md").read_text(encoding="utf-8")
    paragraph = " ".join(next(p for p in page.split("\n\n") if "**Overflow" in p).split())
    said = {
        "inf": paragraph.split(" give inf")[0],
        "nan": paragraph.split(" give inf")[1].split(" NaN")[0],
        "max": paragraph.split(" NaN")[1].split("largest value")[0],
    }
    for name, fmt in fpx.FORMATS.items():
        value = fpx.decode(10**400, name).value
        got = "nan" if math.isnan(value) else "inf" if math.isinf(value) else "max"
        assert got != "max" or value == fmt.max, name
        assert f"`{name}`" in said[got] or _overflow_group(name) in said[got], (name, got)


def test_the_conventions_page_says_decode_takes_one_value() -> None:
    """'Arrays in, arrays out' holds for the arithmetic; ``decode`` refuses an array and
    points at ``decode_array``, as the paragraph must say."""
    import numpy as np

    import fpexplore as fpx

    with pytest.raises(TypeError, match="decode_array"):
        fpx.decode(np.array([1.0, 2.0]), "float16")
    assert isinstance(fpx.add(np.array([1.0]), 1, "float16"), np.ndarray)
    page = (REPO / "docs/api/conventions.md").read_text(encoding="utf-8")
    paragraph = " ".join(next(p for p in page.split("\n\n") if "**Scalars in" in p).split())
    assert "`decode_array`" in paragraph, paragraph
