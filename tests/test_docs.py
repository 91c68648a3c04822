"""The documentation site: it builds with warnings as errors, and works offline.

The site is built once (``python -m sphinx -W -b html docs``) into a temporary folder,
from the course as the notebook tests executed it (tests/notebook_runs.py: each notebook
runs once per test run; a plain ``sphinx`` build executes the course itself). Then every
page's links are checked on disk, and the pages are opened in Debian's Chromium through
Playwright with every request outside ``file://`` blocked: the mathematics is typeset by
the site's own MathJax, the figures load, the widget snapshots are there, and not one
request tried to leave the machine. The handout prints on one page and shows fpexplore's
numbers.

Needs ``pip install -e ".[docs,browser]"`` (and ``keras`` for notebook 06) and
``.ci/install-browser``. Run only these tests with ``pytest -m docs``.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from fpexplore.course.requirements import imports
from tests.notebook_runs import course_notebooks, executed, shared_folder

pytestmark = pytest.mark.docs

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--allow-file-access-from-files",
]
BUILD_TIMEOUT_S = 1200
HAVE_KERAS = all(importlib.util.find_spec(name) for name in ("keras", "jax"))
COURSE = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
NEEDS_KERAS = {
    p.stem for p in (REPO / "notebooks").glob("*.ipynb") if "keras" in imports(p).required
}
WIDGET_PAGES = ["01-anatomy-of-a-float", "02-precision-density", "03-representation-error"]


def _executed_course(factory: pytest.TempPathFactory) -> Path:
    """A folder holding every course notebook executed (the ones that need Keras only
    where it is installed, as the site's own build does), walked from the end: the
    notebook tests walk it from the start, so two workers run different notebooks at
    once. docs/conf.py takes each notebook from here, the rest of the course from
    notebooks/."""
    if importlib.util.find_spec("nbclient") is None:
        pytest.fail('nbclient is missing: pip install -e ".[docs]"')
    shared = shared_folder(factory)
    for path in reversed(course_notebooks()):
        keras = "keras" in imports(path).required
        if HAVE_KERAS or not keras:
            if keras:
                os.environ.setdefault("KERAS_BACKEND", "jax")
            executed(path, shared, keras)
    return shared


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
        pytest.fail('Sphinx or myst-nb is missing: pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("docs") / "html"
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "FPX_DOCS_COURSE": str(_executed_course(tmp_path_factory)),
        "FPX_DOCS_EXECUTE": "off",  # executed above, once per test run
    }
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(REPO / "docs"), str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-6000:]
    return out


class _Links(HTMLParser):
    """Collects the href/src of every element, and every id, of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((tag, value))
            if name in ("id", "name") and value:
                self.ids.add(value)


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_link_resolves(site: Path) -> None:
    """Every internal href/src names a file of the site (and an anchor on it); nothing that
    the page loads (scripts, styles, images, fonts) comes from outside the site."""
    pages = [p for p in sorted(site.rglob("*.html")) if p.relative_to(site).parts[0] != "_static"]
    parsed = {page: _parse(page) for page in pages}
    broken, remote = [], []
    for page, links in parsed.items():
        for tag, link in links.links:
            url = urlsplit(link)
            if url.scheme in ("http", "https", "mailto") or link.startswith("//"):
                if tag != "a":  # a link to read elsewhere is fine; a resource is not
                    remote.append(f"{page.relative_to(site)}: <{tag}> {link}")
                continue
            if url.scheme == "data" or link.startswith("javascript:"):
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif url.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert len(pages) > 15, f"only {len(pages)} pages were built"
    assert not broken, "broken links:\n" + "\n".join(broken[:50])
    assert not remote, "resources from outside the site:\n" + "\n".join(remote[:50])


def test_course_pages_are_executed(site: Path) -> None:
    """Every notebook of the course is a page with its outputs (those that import Keras
    need it)."""
    for name in COURSE:
        page = (site / "course" / f"{name}.html").read_text(encoding="utf-8")
        executed = 'class="cell_output' in page
        if name in NEEDS_KERAS and not HAVE_KERAS:
            assert not executed and "not executed when this site was built" in page
        else:
            assert executed, f"{name} has no outputs"
    for name in WIDGET_PAGES:
        page = (site / "course" / f"{name}.html").read_text(encoding="utf-8")
        assert "fpx-widget-snapshot" in page, f"{name}: no widget snapshot"
        assert "application/vnd.jupyter.widget-view+json" not in page, name


def test_cli_page_shows_help(site: Path) -> None:
    assert "usage: fpexplore" in (site / "cli.html").read_text(encoding="utf-8")


_SIGNATURE = re.compile(r'<dt class="sig sig-object py"[^>]*>(.*?)</dt>', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def _text(fragment: str) -> str:
    return html.unescape(_TAG.sub("", fragment))


def test_api_pages_show_no_private_names(site: Path) -> None:
    """Every public name is documented on one topic page; no signature shows a private
    name (``_exact_of``, ``_input_sign``); no field list runs two names together."""
    pages = sorted((site / "api").glob("*.html"))
    assert len(pages) >= 10, [p.name for p in pages]
    documented: dict[str, list[str]] = {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for signature in _SIGNATURE.findall(text):
            shown = " ".join(_text(signature).split())
            private = re.findall(r"(?<![\w.])_[a-z]\w*", shown)
            assert not private, f"{page.name}: {shown!r} shows {private}"
        glitch = re.search(r"\w+ \((?:\w+, ?)+\)", " ".join(_text(text).split()))
        assert glitch is None, f"{page.name}: {glitch[0]!r}"
        for anchor in re.findall(r'<dt class="sig sig-object py" id="([\w.]+)"', text):
            documented.setdefault(anchor, []).append(page.name)
    import fpexplore

    for name in fpexplore.__all__:
        if name not in ("__version__", "FormatLike"):
            assert len(documented.get(f"fpexplore.{name}", [])) == 1, name
    assert "fpexplore.lazy.from_npy" in documented  # the scaled formats page recommends it


def test_layout_at_1280_by_800(site: Path) -> None:
    """At 1280x800 the article is at least 750 px wide; a left sidebar, when shown,
    holds links; no line of code or output runs past the edge of its box (they wrap:
    headless Chromium hides scrollbars, and a reader easily misses one)."""
    sync_playwright = _playwright()
    skipped = ("_", "genindex", "search", "py-modindex")
    pages = [
        p
        for p in sorted(site.rglob("*.html"))
        if not p.relative_to(site).parts[0].startswith(skipped)
    ]
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.route("http*://**/*", lambda route: route.abort())
            page = context.new_page()
            for path in pages:
                name = path.relative_to(site).as_posix()
                page.goto(path.as_uri(), wait_until="load")
                layout = page.evaluate(_LAYOUT_JS)
                if layout["article"] < 750:
                    problems.append(f"{name}: article {layout['article']:.0f} px wide")
                if layout["sidebar"] and not layout["sidebarLinks"]:
                    problems.append(f"{name}: an empty left sidebar")
                for box in layout["overflowing"]:
                    problems.append(f"{name}: a line runs past its box: {box!r}")
        finally:
            browser.close()
    assert not problems, "\n".join(problems[:40])


_LAYOUT_JS = """() => {
    const article = document.querySelector('.bd-article');
    const sidebar = document.querySelector('.bd-sidebar-primary');
    const shown = sidebar && getComputedStyle(sidebar).display !== 'none'
        && sidebar.getBoundingClientRect().width > 0;
    const pres = Array.from(document.querySelectorAll('.bd-article pre'));
    const wide = pres.filter(p => p.scrollWidth > p.clientWidth + 1);
    return {
        article: article ? article.getBoundingClientRect().width : 0,
        sidebar: shown,
        sidebarLinks: shown ? sidebar.querySelectorAll('.bd-docs-nav a, nav.bd-links a').length : 0,
        overflowing: wide.map(p => p.textContent.slice(0, 60)),
    };
}"""


def _playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('Playwright is missing: pip install -e ".[browser]"')
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run .ci/install-browser (apt-get install chromium)")
    return sync_playwright


def test_generated_counts_and_numbers_are_on_the_pages(site: Path) -> None:
    """The substitutions of conf.py reached the pages (a failed one leaves its braces)."""
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    try:
        from fpx_facts import handout_substitutions
    finally:
        sys.path.remove(str(REPO / "docs" / "_ext"))
    for page in ("index.html", "teachers.html", "course.html", "handout.html"):
        text = (site / page).read_text(encoding="utf-8")
        assert "{{" not in text, f"{page}: a substitution was not replaced"
    handout = (site / "handout.html").read_text(encoding="utf-8")
    plain = [v for v in handout_substitutions().values() if "$" not in v and "|" not in v]
    missing = [value for value in plain if value not in handout]
    assert not missing, f"the handout lacks {missing}"


def _pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


def test_pages_offline_in_chromium(site: Path) -> None:
    """With the network blocked, math is typeset, figures load, no request leaves the site."""
    try:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('Playwright is missing: pip install -e ".[browser]"')
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run .ci/install-browser (apt-get install chromium)")

    pages = sorted(site.rglob("*.html"))
    pages = [p for p in pages if not p.relative_to(site).parts[0].startswith(("_", "genindex"))]
    blocked: list[str] = []
    errors: list[str] = []
    math_pages = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            context = browser.new_context()

            def block(route) -> None:
                url = route.request.url
                if url.startswith(("file:", "data:", "blob:", "about:")):
                    route.continue_()
                else:
                    blocked.append(url)
                    route.abort()

            context.route("**/*", block)
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
            for path in pages:
                name = path.relative_to(site).as_posix()
                page.goto(path.as_uri(), wait_until="load")
                has_math = page.locator(".math").count() > 0
                if has_math:
                    math_pages += 1
                    try:
                        page.wait_for_function(
                            "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                            timeout=20_000,
                        )
                    except PlaywrightTimeout:
                        pytest.fail(f"{name}: MathJax did not load (blocked: {blocked[:3]})")
                    page.evaluate("() => MathJax.startup.promise")
                    typeset = page.locator("mjx-container").count()
                    assert typeset >= page.locator(".math").count(), f"{name}: math not typeset"
                    assert page.locator("mjx-merror").count() == 0, f"{name}: MathJax error"
                broken = page.evaluate(
                    """() => Array.from(document.images)
                        .filter(img => !(img.complete && img.naturalWidth > 0))
                        .map(img => img.src.slice(0, 120))"""
                )
                assert not broken, f"{name}: images that did not load: {broken}"
            handout = context.new_page()  # printed as a browser prints, print CSS and all
            handout.goto((site / "handout.html").as_uri(), wait_until="load")
            handout.wait_for_function("() => window.MathJax && MathJax.startup.promise")
            handout.evaluate("() => MathJax.startup.promise")
            printed = _pdf_pages(handout.pdf(format="A4", prefer_css_page_size=True))
            assert printed == 1, f"the handout prints on {printed} pages, not one"
        finally:
            browser.close()
    assert math_pages >= 2, f"only {math_pages} pages have math"
    assert not blocked, "requests outside the site:\n" + "\n".join(blocked[:30])
    assert not errors, "JavaScript errors:\n" + "\n".join(errors[:30])
