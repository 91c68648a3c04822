"""Sphinx configuration of fpexplore's documentation site.

Build it (warnings are errors) with::

    pip install -e ".[docs,keras]"
    python -m sphinx -W -b html docs docs/_build/html

The course notebooks are copied from ``notebooks/`` into ``docs/course/`` (not kept in git)
and executed at every build. The site works offline: MathJax is served from the build, and widget
outputs are shown as static snapshots.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))


def _sync_course(source: Path, target: Path, executed: Path | None = None) -> None:
    """Copy the course (its notebooks and any file they use) into the docs, touching only
    the files that changed, so that Sphinx rebuilds only what changed; a notebook that
    ``executed`` holds (at the same relative path) is taken from there."""

    def wanted(path: Path) -> bool:
        parts = path.relative_to(source).parts
        if path.stem.endswith("-projector"):  # a teacher's projector copy, not the course
            return False
        return path.is_file() and not any(p.startswith(".") or p == "__pycache__" for p in parts)

    files = {p.relative_to(source) for p in source.rglob("*") if wanted(p)}
    if target.exists():
        for old in target.rglob("*"):
            if old.is_file() and old.relative_to(target) not in files:
                old.unlink()
    for name in sorted(files):
        src, dst = source / name, target / name
        if executed is not None and name.suffix == ".ipynb" and (executed / name).is_file():
            src = executed / name
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


# FPX_DOCS_COURSE names a folder of course notebooks already executed (the test suite runs
# each notebook once and hands its copies here, with FPX_DOCS_EXECUTE=off).
_EXECUTED = os.environ.get("FPX_DOCS_COURSE")
_sync_course(DOCS.parent / "notebooks", DOCS / "course", Path(_EXECUTED) if _EXECUTED else None)

import fpx_facts  # noqa: E402 - docs/_ext, put on the path above

import fpexplore  # noqa: E402
from fpexplore.course.requirements import imports  # noqa: E402

project = "fpexplore"
author = "The fpexplore developers"
copyright = "2026, The fpexplore developers"
release = version = fpexplore.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_nb",
    "fpx_docs",
    "fpx_api",
]

# In the course, only the notebooks are pages (a README or other Markdown there is not).
exclude_patterns = ["_build", "jupyter_execute", "**/.ipynb_checkpoints", "course/**.md"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}

# --- API reference: numpy-style docstrings through napoleon --------------------------------
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes" sections as fields: properties are documented once
# fpexplore.jax needs JAX (the keras extra); without it its page is built from a stand-in.
autodoc_mock_imports = [] if importlib.util.find_spec("jax") else ["jax"]

# --- the course: executed at every build -----------------------------------------------------
# The notebooks that import Keras outside a try block (06, 08, the lesson, their solutions)
# need Keras and a backend (pip install -e ".[keras]", Python 3.11+). Without them they are shown
# unexecuted, under a warning box that says why (fpx_docs.py adds the box).
KERAS_NOTEBOOKS = [
    path.relative_to(DOCS).with_suffix("").as_posix()
    for path in sorted((DOCS / "course").rglob("*.ipynb"))
    if "keras" in imports(path).required
]
fpx_keras_docs = KERAS_NOTEBOOKS
HAVE_KERAS = all(importlib.util.find_spec(name) for name in ("keras", "jax"))
# Every build executes every notebook ("force"), so the pages show what the library does
# now. FPX_DOCS_EXECUTE=cache reuses a notebook's outputs while its code cells are unchanged
# (myst-nb's jupyter-cache in docs/_build/.jupyter_cache): for editing prose. A change to
# the library itself does not invalidate that cache; build without it before publishing.
nb_execution_mode = os.environ.get("FPX_DOCS_EXECUTE", "force")
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 600  # seconds per cell
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_excludepatterns = [] if HAVE_KERAS else [f"{doc}.ipynb" for doc in KERAS_NOTEBOOKS]
nb_merge_streams = True
# Markdown that a cell prints (the index's map, the lesson's plan) has tables: GitHub-flavoured.
nb_render_markdown_format = "gfm"
# No widget manager from a CDN: fpx_docs.py replaces each widget by a static snapshot.
nb_ipywidgets_js = {}
myst_enable_extensions = [
    "dollarmath",
    "amsmath",
    "colon_fence",
    "deflist",
    "tasklist",
    "substitution",
]
# Counts of the course and the handout's numbers, computed now ({{ course_sessions }} in a page).
myst_substitutions = (
    fpx_facts.course_substitutions(DOCS.parent / "notebooks") | fpx_facts.handout_substitutions()
)
myst_heading_anchors = 3
myst_heading_slug_func = "fpx_docs.jupyter_heading_slug"  # anchors as JupyterLab makes them

# --- offline: MathJax 3 from the build, never a CDN ---------------------------------------
# The package sphinx-mathjax-offline (a pinned "docs" dependency) carries MathJax 3.2.2;
# fpx_docs.py copies the files this site needs into _static/mathjax.
mathjax_path = "mathjax/tex-chtml.js"

# --- HTML -------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fpexplore {release}"
html_static_path = ["_static"]
html_css_files = ["fpx.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_context = {"default_mode": "light"}
# Pages without sub-pages (no toctree) get no left sidebar: it would hold an empty
# "Section Navigation" and take a quarter of the window from the text.
_LEAF_PAGES = [p.stem for p in DOCS.glob("*.md") if "{toctree}" not in p.read_text("utf-8")]
html_sidebars = {page: [] for page in ["index", *_LEAF_PAGES]}
