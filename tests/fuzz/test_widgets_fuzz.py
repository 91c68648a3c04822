"""Random action sequences on each widget, driven through its controls: no
exception escapes, the controls agree with the state, and the shown value is
what decode() gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("ipywidgets")

from fpexplore import decode
from fpexplore.widgets import DensityExplorer, FloatExplorer, RoundingExplorer
from tests.fuzz.strategies import FUZZ, number_texts

texts = st.one_of(
    number_texts().filter(lambda t: len(t) < 3000),
    st.text(max_size=10),
    st.sampled_from(["1e400", "5e-324", "-inf", "snan", "1e99999999999999999999", "2**3"]),
)
FORMATS = ["float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn",
           "float6_e3m2fn", "float64"]  # fmt: skip

float_actions = st.one_of(
    st.tuples(st.just("text"), texts),
    st.tuples(st.just("format"), st.sampled_from(FORMATS)),
    st.tuples(st.just("bit"), st.integers(0, 63)),
    st.tuples(
        st.just("button"),
        st.sampled_from(
            [
                "next_up",
                "next_down",
                "+0",
                "-0",
                "+inf",
                "-inf",
                "nan",
                "max",
                "smallest_normal",
                "smallest_subnormal",
            ]
        ),
    ),
)


def _check_float(fx: FloatExplorer) -> None:
    assert "".join(b.description for b in fx.bit_buttons) == fx.bits
    assert len(fx.bit_buttons) == fx.format.bits
    assert fx.value_label.value == repr(fx.value)
    assert fx.format_dropdown.value == fx.format.name
    assert fx.breakdown.value == fx.parts._repr_html_()


@settings(FUZZ, max_examples=60)
@given(st.lists(float_actions, max_size=8))
def test_float_explorer(actions: list[tuple[str, Any]]) -> None:
    fx = FloatExplorer("0.1", "float16")
    for kind, arg in actions:
        if kind == "text":
            fx.text_box.value = arg
            if not fx.is_error:
                assert fx.code == decode(arg, fx.format).code
        elif kind == "format":
            fx.format_dropdown.value = arg
        elif kind == "bit":
            if arg < len(fx.bit_buttons):
                button = fx.bit_buttons[arg]
                button.value = not button.value
        else:
            fx.buttons[arg].click()
        _check_float(fx)


rounding_actions = st.one_of(
    st.tuples(st.just("text"), texts),
    st.tuples(st.just("format"), st.sampled_from(FORMATS)),
    st.tuples(
        st.just("rounding"),
        st.sampled_from(["nearest_even", "nearest_away", "toward_zero", "up", "down"]),
    ),
)


@settings(FUZZ, max_examples=60)
@given(st.lists(rounding_actions, max_size=8))
def test_rounding_explorer(actions: list[tuple[str, Any]]) -> None:
    rx = RoundingExplorer("0.1", "float16")
    for kind, arg in actions:
        control = {"text": rx.text_box, "format": rx.format_dropdown}.get(
            kind, rx.rounding_dropdown
        )
        control.value = arg
        given_input = rx.explanation.input
        assert rx.parts.code == decode(given_input, rx.format, rounding=rx.rounding).code
        assert rx.format_dropdown.value == rx.format.name
        assert rx.rounding_dropdown.value == rx.rounding
        assert rx.view.value == rx.explanation._repr_html_()


@settings(FUZZ, max_examples=4)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("format"), st.sampled_from(FORMATS)),
            st.tuples(st.just("binade"), st.integers(-1100, 1100)),
            st.tuples(st.just("zoom"), st.integers(0, 60)),
        ),
        max_size=3,
    )
)
def test_density_explorer(actions: list[tuple[str, Any]]) -> None:
    pytest.importorskip("matplotlib")
    dx = DensityExplorer("float16")
    for kind, arg in actions:
        control = {"format": dx.format_dropdown, "binade": dx.binade_slider}.get(
            kind, dx.zoom_slider
        )
        control.value = arg
        assert dx.format_dropdown.value == dx.format.name
        assert dx.binade_slider.value == dx.binade
        assert dx.zoom_slider.value == dx.zoom
