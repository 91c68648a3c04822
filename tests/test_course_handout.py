"""The handout on paper: ``python -m fpexplore.course.handout`` writes one standalone HTML
page, with the bit layouts, the formats' numbers and the glossary, that prints on one A4
page (fpexplore.course.handout)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import fpexplore as fpx
from fpexplore.course import glossary, handout

DOCS = Path(__file__).resolve().parents[1] / "docs"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def page() -> str:
    return handout.handout_html()


def test_the_page_stands_alone(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "@page { size: A4" in page
    assert not re.search(r"<(script|link|img)\b", page), "nothing loaded from elsewhere"
    assert "{{" not in page and "$" not in page, "no template or MathJax left"


def test_the_bit_layouts_show_the_example_in_each_format(page: str) -> None:
    svg = handout.bit_layout_svg()
    assert svg in page and svg.count("<rect") == sum(
        fpx.get_format(name).bits for name in handout.LAYOUT_FORMATS
    )
    for name in handout.LAYOUT_FORMATS:
        bits = fpx.decode(handout.EXAMPLE, name).bits.replace(" ", "")
        shown = "".join(re.findall(r">([01])</text>", svg.split(f">{name}</text>")[1]))
        assert shown.startswith(bits), name


def test_the_formats_numbers_are_computed(page: str) -> None:
    for name in handout.HANDOUT_FORMATS:
        f = fpx.get_format(name)
        assert f"<code>{name}</code>" in page
        assert f"{f.bits}: 1, {f.exponent_bits}, {f.mantissa_bits}" in page
        assert f"{f.max:.6g}" in page
    stall = fpx.mixed.stall_point(1.0, "bfloat16")
    assert f"{stall:g} in bfloat16" in page


def test_every_glossary_term_is_on_the_page(page: str) -> None:
    for term in glossary.GLOSSARY:
        assert f"<b>{html.escape(term.name)}</b>: {html.escape(term.meaning)}" in page


def test_binades_hold_the_same_count_only_in_the_normal_range(page: str) -> None:
    assert "In the normal range every binade" in page
    text = " ".join((DOCS / "handout.md").read_text(encoding="utf-8").split())
    assert "in the normal range holds the same number of values" in text


def test_the_command_writes_the_page(tmp_path, capsys) -> None:
    target = tmp_path / "handout.html"
    assert handout.main(["--output", str(target)]) == 0
    assert capsys.readouterr().out.strip() == str(target)
    assert target.read_text(encoding="utf-8") == handout.handout_html()


def test_an_unwritable_output_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    assert handout.main(["--output", str(tmp_path / "missing" / "handout.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("handout: cannot write") and len(err.strip().splitlines()) == 1


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "ru"])
def test_chromium_prints_it_on_one_a4_page(tmp_path, language) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('Playwright is missing: pip install -e ".[browser]"')
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run .ci/install-browser (apt-get install chromium)")
    target = tmp_path / "handout.html"
    target.write_text(handout.handout_html(language), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            printer = browser.new_page()
            printer.goto(target.as_uri(), wait_until="load")
            pdf = printer.pdf(format="A4", prefer_css_page_size=True)
        finally:
            browser.close()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages == 1, f"the {language} handout prints on {pages} pages, not one"
