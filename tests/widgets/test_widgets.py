"""The widget panels driven from code, exactly as their controls drive them (no browser)."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import pytest

from fpexplore import FORMATS, Format, count_between, decode, from_bits, get_format
from fpexplore.widgets import (
    SPECIALS,
    DensityExplorer,
    FloatExplorer,
    RoundingExplorer,
    special_value,
)

F16_ONE = "0011110000000000"


def shown(ex: FloatExplorer) -> str:
    """The bits as the toggle buttons show them."""
    return "".join(b.description for b in ex.bit_buttons)


def assert_consistent(ex: FloatExplorer) -> None:
    """Every control shows the same state as the attributes."""
    assert shown(ex) == ex.bits
    assert [b.value for b in ex.bit_buttons] == [c == "1" for c in ex.bits]
    assert len(ex.bit_buttons) == ex.format.bits
    assert ex.value_label.value == repr(ex.value)
    assert ex.breakdown.value == ex.parts._repr_html_()
    assert ex.format_dropdown.value == ex.format.name


# -- import hygiene -------------------------------------------------------------------


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_import_fpexplore_does_not_import_ipywidgets_or_matplotlib():
    check = "import sys, fpexplore; print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    assert run_python(check).stdout.split() == ["False", "False"]
    check = "import sys, fpexplore.widgets; print('matplotlib' in sys.modules)"
    assert run_python(check).stdout.split() == ["False"]


def test_missing_ipywidgets_names_the_extra():
    result = run_python("import sys; sys.modules['ipywidgets'] = None; import fpexplore.widgets")
    assert result.returncode != 0
    assert 'pip install -e ".[notebooks]"' in result.stderr


# -- FloatExplorer: bits ----------------------------------------------------------------


def test_initial_state_float16_one():
    ex = FloatExplorer(1.0, "float16")
    assert (ex.value, ex.code, ex.bits) == (1.0, 0x3C00, F16_ONE)
    assert ex.message == "" and not ex.is_error
    assert ex.text_box.value == "1.0"
    assert_consistent(ex)


def test_default_is_one_in_float32():
    ex = FloatExplorer()
    assert ex.format is FORMATS["float32"] and ex.code == 0x3F800000


def test_toggle_sign_bit():
    ex = FloatExplorer(1.0, "float16")
    ex.toggle_bit(0)
    assert ex.value == -1.0 and ex.bits[0] == "1"
    assert ex.text_box.value == "-1.0"
    assert_consistent(ex)


def test_toggle_exponent_bit_halves():
    ex = FloatExplorer(1.0, "float16")
    ex.toggle_bit(5)  # last exponent bit: field 15 -> 14
    assert ex.value == 0.5 and ex.parts.exponent == 14
    assert_consistent(ex)


def test_toggle_mantissa_bits():
    ex = FloatExplorer(1.0, "float16")
    ex.toggle_bit(6)  # top mantissa bit: 1 + 1/2
    assert ex.value == 1.5
    ex.toggle_bit(15)  # last mantissa bit: + 2**-10
    assert ex.value == 1.5 + 2**-10
    ex.toggle_bit(15)
    ex.toggle_bit(6)
    assert ex.bits == F16_ONE


def test_clicking_a_bit_button_is_toggle_bit():
    ex = FloatExplorer(1.0, "float16")
    ex.bit_buttons[0].value = True  # what a click in the browser sends
    assert ex.value == -1.0
    ex.bit_buttons[6].value = True
    assert ex.value == -1.5
    assert_consistent(ex)


def test_toggle_bit_out_of_range():
    ex = FloatExplorer(1.0, "float16")
    with pytest.raises(IndexError):
        ex.toggle_bit(16)


def test_bit_buttons_grouped_and_coloured_by_field():
    ex = FloatExplorer(1.0, "bfloat16")
    fields = [c for b in ex.bit_buttons for c in b._dom_classes if c != "fpx-bit-button"]
    assert fields == ["fpx-sign"] + ["fpx-exponent"] * 8 + ["fpx-mantissa"] * 7
    assert "#D55E00" in ex.bit_buttons[0].layout.border  # Okabe-Ito, as the HTML card
    assert "#009E73" in ex.bit_buttons[-1].layout.border


# -- FloatExplorer: buttons -----------------------------------------------------------


def test_step_buttons():
    ex = FloatExplorer(1.0, "float16")
    ex.buttons["next_up"].click()
    assert ex.value == 1 + 2**-10
    ex.buttons["next_down"].click()
    ex.buttons["next_down"].click()
    assert ex.value == 1 - 2**-11
    ex.step(-3)
    assert ex.value == 1 - 4 * 2**-11
    assert_consistent(ex)


def test_next_up_of_minus_one_float16():
    ex = FloatExplorer(1.0, "float16")
    ex.toggle_bit(0)
    ex.buttons["next_up"].click()
    assert ex.value == -0.99951171875


def test_plus_one_ulp_from_max_is_inf_in_float16():
    ex = FloatExplorer(1.0, "float16")
    ex.buttons["max"].click()
    assert ex.value == 65504.0
    ex.buttons["next_up"].click()
    assert ex.value == math.inf and ex.parts.kind == "inf"
    assert ex.buttons["next_up"].disabled  # nothing above +inf
    assert not ex.buttons["next_down"].disabled
    ex.buttons["next_down"].click()
    assert ex.value == 65504.0


def test_minus_one_ulp_from_minus_max_is_minus_inf():
    ex = FloatExplorer(-65504, "float16")
    ex.step(-1)
    assert ex.value == -math.inf


def test_plus_one_ulp_from_max_in_e4m3fn_follows_next_up():
    ex = FloatExplorer(448, "float8_e4m3fn")
    expected = from_bits(get_format("float8_e4m3fn").max_code, "float8_e4m3fn").next_up()
    ex.buttons["next_up"].click()
    assert ex.code == expected.code
    assert math.isnan(ex.value)  # e4m3fn has no inf; its NaN is the next pattern


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("+0", 0.0),
        ("-0", -0.0),
        ("+inf", math.inf),
        ("-inf", -math.inf),
        ("max", 65504.0),
        ("smallest_normal", 2.0**-14),
        ("smallest_subnormal", 2.0**-24),
    ],
)
def test_special_buttons_float16(key, value):
    ex = FloatExplorer("0.1", "float16")
    ex.buttons[key].click()
    assert ex.value == value and math.copysign(1, ex.value) == math.copysign(1, value)
    assert ex.message == ""
    assert_consistent(ex)


def test_nan_button():
    ex = FloatExplorer(1.0, "float16")
    ex.buttons["nan"].click()
    assert math.isnan(ex.value) and ex.parts.kind == "nan"
    assert ex.buttons["next_up"].disabled and ex.buttons["next_down"].disabled
    assert ex.text_box.value == "nan"
    assert_consistent(ex)


def test_minus_zero_has_the_sign_bit():
    ex = FloatExplorer(1.0, "float16")
    ex.set_special("-0")
    assert ex.code == 0x8000 and ex.parts.kind == "zero"


@pytest.mark.parametrize(
    ("fmt", "disabled"),
    [
        ("float16", set()),
        ("float64", set()),
        ("float8_e4m3fn", {"+inf", "-inf"}),
        ("float4_e2m1fn", {"+inf", "-inf", "nan"}),
    ],
)
def test_buttons_that_do_not_apply_are_disabled(fmt, disabled):
    ex = FloatExplorer(1.0, fmt)
    assert {k for k, b in ex.buttons.items() if b.disabled} == disabled


def test_pressing_a_missing_special_keeps_the_value():
    ex = FloatExplorer(1.0, "float8_e4m3fn")
    ex.set_special("+inf")
    assert ex.value == 1.0 and ex.is_error and "+inf" in ex.message


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_special_value_matches_the_format(fmt):
    f = FORMATS[fmt]
    assert special_value("max", f).value == f.max
    assert special_value("smallest_normal", f).value == f.smallest_normal
    assert special_value("smallest_subnormal", f).value == f.smallest_subnormal
    assert (special_value("+inf", f) is not None) == f.has_infinity
    assert (special_value("nan", f) is not None) == f.has_nan
    assert set(SPECIALS) == {"+0", "-0", "+inf", "-inf", "nan", "max"} | {
        "smallest_normal",
        "smallest_subnormal",
    }


# -- FloatExplorer: text and format ---------------------------------------------------


def test_text_is_an_exact_decimal():
    ex = FloatExplorer(1.0, "float32")
    ex.text_box.value = "0.1"  # what typing and Enter send
    assert ex.code == decode("0.1", "float32").code
    assert ex.parts.error == Fraction(ex.value) - Fraction(1, 10)
    assert ex.message == "" and ex.text_box.value == "0.1"


@pytest.mark.parametrize("bad", ["abc", "", "1/0", "0x", "1,5"])
def test_invalid_text_shows_a_message_and_keeps_the_value(bad):
    ex = FloatExplorer(1.0, "float16")
    ex.toggle_bit(0)
    ex.set_text(bad)
    assert ex.value == -1.0 and ex.is_error
    assert repr(bad) in ex.message
    assert repr(bad).replace("'", "") in ex.message_label.value.replace("'", "")
    ex.step(1)  # the next good action clears it
    assert ex.message == "" and not ex.is_error


def test_invalid_text_typed_in_the_box_does_not_raise():
    ex = FloatExplorer(1.0, "float16")
    ex.text_box.value = "abc"
    assert ex.value == 1.0 and "cannot read 'abc'" in ex.message


def test_format_change_rerounds_and_shows_the_new_error():
    ex = FloatExplorer("0.1", "float32")
    float32_error = ex.parts.abs_error
    ex.format_dropdown.value = "bfloat16"
    assert ex.format.name == "bfloat16" and ex.value == 0.10009765625
    assert ex.parts.error == Fraction(0.10009765625) - Fraction(1, 10)
    assert ex.parts.abs_error > float32_error
    assert "bfloat16" in ex.message and f"{ex.parts.abs_error:.4g}" in ex.message
    assert not ex.is_error and len(ex.bit_buttons) == 16
    assert_consistent(ex)


def test_format_change_after_bit_edits_rerounds_the_shown_value():
    ex = FloatExplorer(1.0, "float16")
    ex.step(1)
    ex.set_format("float32")
    assert ex.value == 1 + 2**-10 and ex.parts.abs_error == 0.0
    ex.set_format("float8_e4m3fn")
    assert ex.value == 1.0 and ex.parts.abs_error == 2**-10


def test_format_change_overflow_follows_the_format():
    ex = FloatExplorer(65504, "float16")
    ex.set_format("float8_e4m3fn")
    assert math.isnan(ex.value)  # e4m3fn overflows to NaN (OCP / ml_dtypes)
    ex = FloatExplorer(65504, "float16")
    ex.set_format("float4_e2m1fn")
    assert ex.value == 6.0  # FP4 saturates


def test_nan_into_a_format_without_nan_is_refused():
    ex = FloatExplorer("nan", "float16")
    ex.format_dropdown.value = "float4_e2m1fn"
    assert ex.format.name == "float16" and math.isnan(ex.value)
    assert ex.is_error and "float4_e2m1fn" in ex.message
    assert ex.format_dropdown.value == "float16"


def test_dropdown_holds_the_catalogue_and_custom_formats():
    custom = Format.ieee_like(3, 4)
    ex = FloatExplorer(1.0, custom)
    assert list(ex.format_dropdown.options) == [*FORMATS, "e3m4"]
    assert ex.format == custom and len(ex.bit_buttons) == 8
    ex.set_format(Format.ieee_like(4, 2))
    assert ex.format_dropdown.value == "e4m2" and "e4m2" in ex.format_dropdown.options
    ex.format_dropdown.value = "e3m4"
    assert ex.format == custom


def test_custom_format_with_a_catalogue_name_gets_its_own_entry():
    odd = Format("float16", 5, 9)  # same name, different format
    ex = FloatExplorer(1.0, odd)
    assert ex.format_dropdown.value == "float16 (custom)"
    ex.format_dropdown.value = "float16"
    assert ex.format == FORMATS["float16"] and len(ex.bit_buttons) == 16


def test_examples_in_docstrings():
    import doctest

    import fpexplore.widgets

    assert doctest.testmod(fpexplore.widgets).failed == 0


def test_failing_callback_becomes_a_message(monkeypatch):
    ex = FloatExplorer(1.0, "float16")

    def broken(self, n=1):
        raise RuntimeError("boom")

    monkeypatch.setattr(FloatExplorer, "step", broken)
    ex.buttons["next_up"].click()  # does not raise
    assert ex.is_error and "boom" in ex.message
    monkeypatch.setattr(FloatExplorer, "toggle_bit", broken)
    ex.bit_buttons[0].value = True  # a click on the sign bit that fails ...
    assert ex.is_error and ex.bit_buttons[0].value is False  # ... is undone on screen


def test_display_delegates_to_the_container(capsys):
    ex = FloatExplorer(1.0, "float16")
    bundle = ex._repr_mimebundle_()
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == ex.widget.model_id
    assert "fpx-explorer" in ex.widget._dom_classes
    ex._ipython_display_()  # outside a kernel this prints the repr; it must not raise


# -- RoundingExplorer -----------------------------------------------------------------


def test_rounding_explorer_tie_and_modes():
    rx = RoundingExplorer("2049", "float16")
    assert rx.value == 2048.0 and rx.explanation.is_tie and rx.rounding == "nearest_even"
    rx.rounding_dropdown.value = "nearest_away"
    assert rx.value == 2050.0 and rx.rounding == "nearest_away"
    rx.set_rounding("toward_zero")
    assert rx.value == 2048.0
    assert "<svg" in rx.view.value and "guard 1, round 0, sticky 0" in rx.view.value


def test_rounding_explorer_text_and_format():
    rx = RoundingExplorer("0.1", "float16", rounding="up")
    assert rx.value == 0.10003662109375
    rx.format_dropdown.value = "bfloat16"
    assert (
        rx.format.name == "bfloat16" and rx.value == decode("0.1", "bfloat16", rounding="up").value
    )
    rx.text_box.value = "-0.1"
    assert rx.value == decode("-0.1", "bfloat16", rounding="up").value
    assert rx.explanation.input == "-0.1"


def test_rounding_explorer_invalid_text_keeps_the_explanation():
    rx = RoundingExplorer("0.1", "float16")
    before = rx.explanation
    rx.text_box.value = "zz"
    assert rx.explanation is before and rx.is_error and "zz" in rx.message
    rx.set_text("nan")
    rx.set_format("float4_e2m1fn")  # no NaN there
    assert rx.format.name == "float16" and rx.is_error


def test_rounding_explorer_stochastic_mode_shows_each_neighbours_probability():
    rx = RoundingExplorer("2049.5", "float16")
    assert "stochastic" in [value for _, value in rx.rounding_dropdown.options]
    rx.rounding_dropdown.value = "stochastic"
    assert rx.rounding == "stochastic" and not rx.is_error
    assert rx.probability_above == Fraction(3, 4)  # (2049.5 - 2048) / (2050 - 2048)
    assert rx.value == 2050.0  # the likelier neighbour
    assert "2048 (p = 1/4)" in rx.view.value and "2050 (p = 3/4)" in rx.view.value
    rx.set_text("-0.1")
    ex = rx.explanation
    below, above = Fraction(ex.below.value), Fraction(ex.above.value)
    assert rx.probability_above == (Fraction(-1, 10) - below) / (above - below)
    rx.set_text("2048")  # representable: nothing to choose
    assert rx.probability_above is None and rx.value == 2048.0
    rx.set_rounding("up")
    assert rx.probability_above is None and rx.rounding == "up"


def test_rounding_explorer_display():
    rx = RoundingExplorer()
    assert rx._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]["model_id"]


# -- DensityExplorer ------------------------------------------------------------------


@pytest.fixture(scope="module")
def density():
    return DensityExplorer("float8_e4m3fn", compare=["float16"])


def test_density_explorer_draws(density):
    assert density.window == (1.0, 2.0) and density.count == 8
    assert density.output.outputs[0]["data"]["image/png"]
    assert not density.is_error and "8 values of float8_e4m3fn in [1.0, 2.0)" in density.message
    assert len(density.figure.axes) == 2


def test_density_explorer_sliders(density):
    density.binade_slider.value = -3
    assert density.binade == -3 and density.window == (0.125, 0.25)
    assert density.count == 8
    density.binade_slider.value = -9  # the subnormals: spacing 2**-9, 1 value
    assert density.count == count_between(2**-9, 2**-8, "float8_e4m3fn") == 1
    assert (density.binade_slider.min, density.binade_slider.max) == (-9, 8)
    marker = density.figure.axes[1].get_lines()[-1]  # the window on the spacing figure
    assert marker.get_label() == "the number line's window"
    assert list(marker.get_xdata()) == [-9, -9]  # log2 coordinates, as spacing() draws


def test_density_explorer_format_and_zoom():
    dx = DensityExplorer("float16")
    assert dx.zoom == 5 and dx.count == 32
    dx.format_dropdown.value = "float32"
    assert dx.format.name == "float32" and dx.zoom == 18 and dx.count == 32
    dx.zoom_slider.value = 0  # a whole float32 binade: too many ticks to draw
    assert dx.is_error and "no number line" in dx.message
    assert dx.output.outputs[0]["data"]["image/png"]  # the spacing figure is still there


def test_density_explorer_never_raises_at_float64_extremes():
    from fpexplore.widgets import DensityExplorer

    d = DensityExplorer("float64")
    d.binade_slider.value = 1023
    d.zoom_slider.value = 52  # drawing may fail at the top of float64: a message, no raise
    assert d.binade == 1023
    d.set_binade(-1074)
    d.set_zoom(5)  # the lowest subnormal binade holds one value: no zoom beyond it
    assert d.zoom == 0 and d.window == (5e-324, 1e-323)
    assert d.message == "1 value of float64 in [5e-324, 1e-323)"


def test_density_explorer_counts_the_half_open_binade_as_count_between():
    dx = DensityExplorer("float8_e4m3fn")
    dx.set_zoom(0)
    fmt = dx.format
    counts = {}
    for k in range(fmt.emin - fmt.mantissa_bits, fmt.emax + 1):
        dx.set_binade(k)
        counts[k] = dx.count
        assert dx.count == count_between(2.0**k, 2.0 ** (k + 1), fmt), k
        assert dx.message.startswith(f"{dx.count} value")
    normal = [counts[k] for k in range(fmt.emin, fmt.emax)]
    assert set(normal) == {2**fmt.mantissa_bits} == {8}  # claim 7: 8 per binade
    assert counts[fmt.emax] == 7  # the top binade: S.1111.111 is NaN, one fewer
    assert dx.message == "7 values of float8_e4m3fn in [256.0, 512.0)"


@pytest.mark.parametrize("fmt", ["float8_e8m0fnu", "p3109_p1", "float8_e4m3fnuz"])
def test_float_explorer_with_the_new_encodings(fmt):
    f = get_format(fmt)
    ex = FloatExplorer(1.0, fmt)
    assert len(ex.bit_buttons) == f.bits
    one = ex.code
    ex.toggle_bit(0)  # E8M0: the exponent's top bit (0x7F -> 0xFF, NaN); signed: the sign
    assert ex.code == one ^ 0x80
    assert math.isnan(ex.value) if fmt == "float8_e8m0fnu" else ex.value == -1.0
    assert not ex.is_error
    assert (special_value("-0", f) is None) and (special_value("+0", f) is None) == (not f.has_zero)


# -- ArithmeticExplorer ---------------------------------------------------------------


def test_arithmetic_explorer_controls():
    from fpexplore import add, mul
    from fpexplore.widgets import ArithmeticExplorer

    ax = ArithmeticExplorer("0.1", "0.2", "add", "bfloat16")
    assert ax.value == 0.30078125 and ax.flags == {"inexact"}
    assert "guard bit 1" in ax.view.value and "<svg" in ax.view.value
    ax.operation_dropdown.value = "mul"
    assert ax.value == mul("0.1", "0.2", "bfloat16").value
    ax.format_dropdown.value = "float16"
    assert ax.value == mul("0.1", "0.2", "float16").value
    ax.rounding_dropdown.value = "up"
    assert ax.value == mul("0.1", "0.2", "float16", "up").value
    ax.a_box.value = "40000"
    ax.b_box.value = "2"
    assert ax.value == math.inf and "overflow" in ax.flags
    ax.operation_dropdown.value = "sqrt"
    assert ax.b_box.disabled and ax.value == 200
    ax.set_operation("add")
    ax.b_box.value = "zz"
    assert ax.is_error and "zz" in ax.message
    assert ax.value == add("40000", "2", "float16", "up").value


def test_arithmetic_explorer_invalid_in_a_format_without_nan():
    from fpexplore.widgets import ArithmeticExplorer

    ax = ArithmeticExplorer("0", "0", "div", "float16")
    assert math.isnan(ax.value) and ax.flags == {"invalid"}
    ax.format_dropdown.value = "float4_e2m1fn"
    assert ax.is_error and "no NaN" in ax.message and ax.format.name == "float16"
    assert ax._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]["model_id"]
