"""The HTML card of a FloatParts: what it shows, and that it is safe, static markup."""

import re
from fractions import Fraction
from html import unescape

import pytest

from fpexplore import decode, from_bits
from fpexplore.render.html import contrast_text_color, field_boxes_html, parts_html
from fpexplore.render.text import FIELD_COLORS


def _text(html):
    """The visible text: tags removed, entities decoded."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def _bit_boxes(html):
    return re.findall(
        r'<span class="fpx-bit fpx-(sign|exponent|mantissa)"[^>]*>([01])</span>', html
    )


def test_pi_card_shows_the_three_field_values_and_the_exact_value():
    html = parts_html(from_bits(0x40490FDB, "float32"))
    pills = re.findall(r'class="fpx-field-value fpx-(\w+)"[^>]*>([^<]*)</span>', html)
    assert ("sign", "0") in pills
    assert ("exponent", "exponent = 128") in pills
    assert ("mantissa", "mantissa = 4788187") in pills
    assert "= 3.1415927410125732421875 exactly" in _text(html)
    assert "0x40490FDB" in html


def test_one_box_per_bit_coloured_by_field_in_order():
    parts = decode(3.14159, "float32")
    boxes = _bit_boxes(parts_html(parts))
    assert len(boxes) == 32
    assert [field for field, _ in boxes] == ["sign"] + ["exponent"] * 8 + ["mantissa"] * 23
    assert "".join(bit for _, bit in boxes) == parts.bits
    for field, color in FIELD_COLORS.items():
        text = contrast_text_color(color)
        assert f"background: {color}; color: {text}" in field_boxes_html(parts), field


@pytest.mark.parametrize(
    "fmt", ["float64", "float16", "bfloat16", "float8_e4m3fn", "float4_e2m1fn"]
)
def test_box_count_matches_the_format_width(fmt):
    parts = decode(1.5, fmt)
    assert len(_bit_boxes(parts._repr_html_())) == parts.format.bits


def test_formula_for_normal_and_subnormal():
    normal = parts_html(decode(3.14159, "float32"))
    assert "2<sup>128\u2212127</sup>" in normal
    assert "(1 + 4788176/2<sup>23</sup>)" in normal
    sub = parts_html(from_bits(0x0011, "float16"))
    assert "2<sup>1\u221215</sup>" in sub and "(0 + 17/2<sup>10</sup>)" in sub
    assert "exponent field 0" in sub


def test_errors_only_when_there_was_an_input():
    rounded = parts_html(decode("0.1", "float16"))
    assert "abs error 2.4414e-05" in rounded and "ULP" in rounded
    assert "= 0.0999755859375 exactly" in _text(rounded)
    assert "abs error" not in parts_html(from_bits(0x2E66, "float16"))


def test_float_input_shows_its_exact_binary_value():
    html = parts_html(decode(0.1, "float32"))
    assert "0.1000000000000000055511151231257827021181583404541015625" in html
    assert "no finite decimal expansion" in parts_html(decode(Fraction(1, 3), "bfloat16"))


def test_user_input_is_escaped():
    # inputs are echoed as their repr; a str subclass smuggles markup into it
    class Sneaky(str):
        def __repr__(self):
            return "<script>alert(1)</script>"

    html = parts_html(decode(Sneaky("1.5"), "float16"))
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize(
    "parts",
    [
        decode(3.14159, "float32"),
        from_bits("0x7E01", "float16"),
        from_bits("0x7C00", "float16"),
        decode(1e6, "float8_e4m3fn"),
        decode(-0.0, "float16"),
        decode(5e-324, "float64"),
    ],
    ids=["normal", "nan", "inf", "fn-overflow", "negative-zero", "smallest-float64"],
)
def test_static_markup_only(parts):
    html = parts_html(parts)
    lowered = html.lower()
    assert "<script" not in lowered and "<style" not in lowered
    assert not re.search(r"\son\w+=", lowered)  # no event handlers
    assert html.startswith('<div class="fpx-parts"') and html.endswith("</div>")
    assert html.count("<div") == html.count("</div>")


def test_nan_card_says_quiet_and_payload():
    html = parts_html(from_bits("0x7E01", "float16"))
    assert "quiet, payload 1" in html
    assert "next up" not in html
    assert "signalling, payload 1" in parts_html(from_bits("0x7C01", "float16"))


def test_neighbours_and_their_edges():
    html = parts_html(decode(3.14159, "float32"))
    assert "3.141589879989624" in html and "0x40490FCF" in html
    assert "3.1415903568267822" in html and "0x40490FD1" in html
    top = parts_html(from_bits(0x7, "float4_e2m1fn"))  # +max, no inf and no NaN above
    assert "none: no value above in float4_e2m1fn" in top
    fn_top = parts_html(from_bits(0x7E, "float8_e4m3fn"))  # +max; next up is the NaN pattern
    assert "no finite value beyond the largest one" in fn_top
    assert "-0" in parts_html(decode(-0.0, "float16"))


def test_text_colour_contrast():
    assert contrast_text_color("#FFFFFF") == "#000000"
    assert contrast_text_color("#000000") == "#FFFFFF"
    assert contrast_text_color(FIELD_COLORS["exponent"]) == "#FFFFFF"  # Okabe-Ito blue
