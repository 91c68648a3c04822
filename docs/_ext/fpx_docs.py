"""Local Sphinx extension of fpexplore's documentation site.

* ``.. fpexplore-help::`` prints the ``fpexplore --help`` text of the installed command.
* MathJax 3 is copied from the pinned ``sphinx-mathjax-offline`` package into the build's
  ``_static/mathjax``, so that no page loads anything from the network.
* Links to notebooks in Markdown that a cell printed point at their pages.
* Widget outputs become static snapshots: the HTML, text, images and control labels that the
  widget showed when the notebook ran, under a note on running it live. No widget manager
  is loaded (it would come from a CDN).
* The notebooks that need Keras (``fpx_keras_docs``) get a warning box at their top when
  Keras is missing and they were not executed.
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import io
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_NOTE = (
    "Static snapshot of an interactive widget, as it looked when this page was built. "
    "To use it live, open the notebook in Jupyter: "
    'from a clone of fpexplore, <code>pip install -e ".[notebooks]"</code>, '
    "<code>fpexplore --course fp-course</code>, then "
    "<code>jupyter lab fp-course/00-index.ipynb</code>."
)
KERAS_NOTE = (
    "This notebook was not executed when this site was built: Keras and JAX are not "
    'installed (<code>pip install -e ".[docs,keras]"</code>, Python 3.11+). '
    "Its code is shown without outputs."
)
# MathJax files the site needs: the TeX-to-CommonHTML bundle, its web fonts, and the
# TeX extensions it may load on demand.
MATHJAX_PARTS = ["tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions"]


class FpexploreHelp(Directive):
    """The ``fpexplore --help`` text, from the installed command itself
    (``fpexplore report --help`` with the argument ``report``)."""

    has_content = False
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        from fpexplore.cli import main

        out = io.StringIO()
        old_columns = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "88"
        try:
            with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
                main([*self.arguments, "--help"])
        finally:
            if old_columns is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = old_columns
        text = out.getvalue().rstrip()
        if not text.startswith("usage:"):
            raise self.error(f"fpexplore --help printed no usage line: {text[:200]!r}")
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def _mathjax_source() -> Path:
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise ExtensionError(
            "MathJax is missing: the docs need the package sphinx-mathjax-offline "
            '(pip install -e ".[docs]"), which carries MathJax 3 for offline pages'
        )
    return Path(spec.origin).parent / "static" / "mathjax"


def copy_mathjax(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    source, target = _mathjax_source(), Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        src, dst = source / part, target / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)


# --- docstrings: |x| is an absolute value, not a reST substitution ---------------------------

_CODE = re.compile(r"(``.*?``|`[^`]*`)")
_ABS = re.compile(r"(?<![\\`|])\|([^|`\s][^|`]*?)\|(?![`_|])")


def escape_absolute_values(app, what, name, obj, options, lines: list[str]) -> None:
    """Escape ``|x|`` in prose lines (not in doctests or literal blocks)."""
    in_code = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            in_code = True
        elif not stripped:
            in_code = False
        if in_code:
            continue
        parts = _CODE.split(line)  # odd items are inline code, left as they are
        parts[::2] = [_ABS.sub(r"\\|\1\\|", part) for part in parts[::2]]
        lines[i] = "".join(parts)


# --- widgets as static snapshots ------------------------------------------------------------


def _widget_state(app: Sphinx, docname: str) -> dict[str, Any]:
    js_files = getattr(app.env, "nb_metadata", {}).get(docname, {}).get("js_files", {})
    _uri, kwargs = js_files.get("ipywidgets_state", (None, {}))
    body = kwargs.get("body")
    return json.loads(body)["state"] if body else {}


def _model_html(state: dict[str, Any], ref: str, depth: int = 0) -> str:
    """HTML for one widget model and its children, from the saved widget state."""
    model = state.get(ref.removeprefix("IPY_MODEL_"), {}).get("state", {})
    name = model.get("_model_name", "")
    if depth > 20 or not name:
        return ""
    if model.get("layout") and _hidden(state, model["layout"]):
        return ""
    desc = html.escape(str(model.get("description") or ""))
    if name in ("HTMLModel", "HTMLMathModel"):
        return f'<div class="fpx-w-html">{model.get("value", "")}</div>'
    if name == "LabelModel":
        return f'<span class="fpx-w-label">{html.escape(str(model.get("value", "")))}</span>'
    if name in ("ButtonModel", "ToggleButtonModel"):
        on = " fpx-w-on" if model.get("value") is True else ""
        return f'<span class="fpx-w-button{on}">{desc}</span>'
    if name in ("ToggleButtonsModel", "DropdownModel", "RadioButtonsModel", "SelectModel"):
        labels, index = model.get("_options_labels", []), model.get("index")
        chosen = labels[index] if isinstance(index, int) and 0 <= index < len(labels) else ""
        return f'<span class="fpx-w-field">{desc} <b>{html.escape(str(chosen))}</b></span>'
    if "value" in model and name.endswith(("TextModel", "SliderModel", "CheckboxModel")):
        value = html.escape(str(model["value"]))
        return f'<span class="fpx-w-field">{desc} <b>{value}</b></span>'
    if name == "OutputModel":
        return "".join(_output_html(out) for out in model.get("outputs", []))
    children = model.get("children", [])
    if children:
        box = "fpx-w-hbox" if name == "HBoxModel" else "fpx-w-vbox"
        inner = "".join(_model_html(state, child, depth + 1) for child in children)
        return f'<div class="{box}">{inner}</div>'
    return ""


def _hidden(state: dict[str, Any], layout_ref: str) -> bool:
    layout = state.get(layout_ref.removeprefix("IPY_MODEL_"), {}).get("state", {})
    return layout.get("display") == "none" or layout.get("visibility") == "hidden"


def _output_html(output: dict[str, Any]) -> str:
    data = output.get("data", {})
    if "image/png" in data:
        png = "".join(data["image/png"]).strip()
        return f'<img class="fpx-w-image" alt="widget figure" src="data:image/png;base64,{png}">'
    if "text/html" in data:
        return "".join(data["text/html"])
    text = output.get("text") or "".join(data.get("text/plain", ""))
    return f"<pre>{html.escape(''.join(text))}</pre>" if text else ""


def snapshot_widgets(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    state = None
    for raw in list(doctree.findall(nodes.raw)):
        text = raw.astext()
        if f'type="{WIDGET_VIEW}"' not in text:
            continue
        if state is None:
            state = _widget_state(app, docname)
        payload = text.split(">", 1)[1].rsplit("</script>", 1)[0]
        model_id = json.loads(payload.replace("<\\/", "</")).get("model_id", "")
        body = _model_html(state, model_id)
        snapshot = (
            '<div class="fpx-widget-snapshot">'
            f'<p class="fpx-widget-note">{LIVE_NOTE}</p>{body}</div>'
        )
        raw.replace_self(nodes.raw("", snapshot, format="html"))


# --- links in computed Markdown: notebook files become pages -------------------------------

_NOTEBOOK_LINK = re.compile(r"^(?![a-z][a-z0-9+.-]*:)([^#]+)\.ipynb(?:#(.*))?$", re.IGNORECASE)


def notebook_links_to_pages(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Links to ``x.ipynb#Heading`` in Markdown that a cell printed (the index's map of the
    course, the lesson's plan) point at the page ``x.html#Heading``. MyST does this for
    the notebooks' own Markdown, not for their outputs. A heading's anchor on the site
    leaves out its mathematics, which JupyterLab's keeps (``...-up-to-$2^p$``)."""
    for ref in doctree.findall(nodes.reference):
        match = _NOTEBOOK_LINK.match(ref.get("refuri", ""))
        if match:
            anchor = re.sub(r"-?\$[^$]*\$", "", unquote(match[2] or ""))
            ref["refuri"] = f"{match[1]}.html" + (f"#{anchor}" if anchor else "")


def keras_note(app: Sphinx, doctree: nodes.document) -> None:
    if app.config.nb_execution_excludepatterns and app.env.docname in app.config.fpx_keras_docs:
        box = nodes.warning("", nodes.raw("", f"<p>{KERAS_NOTE}</p>", format="html"))
        section = next(iter(doctree.findall(nodes.section)), None)
        if section is None:
            doctree.insert(0, box)
        else:
            section.insert(1, box)  # under the page title


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("fpx_keras_docs", ["course/06-mixed-precision-keras"], "env")
    app.add_directive("fpexplore-help", FpexploreHelp)
    app.connect("build-finished", copy_mathjax)
    app.connect("doctree-resolved", snapshot_widgets)
    app.connect("doctree-resolved", notebook_links_to_pages)
    app.connect("doctree-read", keras_note)
    app.connect("autodoc-process-docstring", escape_absolute_values)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def jupyter_heading_slug(text: str) -> str:
    """Heading anchors as JupyterLab makes them (the text, spaces as hyphens, case kept),
    so that a notebook's ``00-index.ipynb#References`` link works in both places."""
    return "-".join(text.split())
