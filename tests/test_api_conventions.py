"""The public API's conventions (docs/api/conventions.md), checked on every signature of
fpexplore, fpexplore.codes and fpexplore.jax:
values first, then the format; ``rounding`` right after the format, positional or
keyword; ``overflow`` and the rest keyword-only."""

from __future__ import annotations

import importlib.util
import inspect

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes

FORMAT_NAMES = ("fmt", "formats")


def _modules():
    """fpexplore, fpexplore.codes, and fpexplore.jax where JAX is installed."""
    modules = [fpx, codes]
    if importlib.util.find_spec("jax") is not None:
        import fpexplore.jax

        modules.append(fpexplore.jax)
    return modules


def _public_callables():
    for module in _modules():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj


CALLABLES = dict(_public_callables())
WITH_ROUNDING = {
    name: f for name, f in CALLABLES.items() if "rounding" in inspect.signature(f).parameters
}


def test_the_rounding_functions_are_found() -> None:
    for name in ("decode", "round_to", "add", "fma", "quantize_blocks", "scale_per_tensor"):
        assert f"fpexplore.{name}" in WITH_ROUNDING


@pytest.mark.parametrize("name", sorted(WITH_ROUNDING))
def test_rounding_follows_the_format_positional_or_keyword(name: str) -> None:
    parameters = list(inspect.signature(WITH_ROUNDING[name]).parameters.values())
    names = [p.name for p in parameters]
    rounding = parameters[names.index("rounding")]
    assert rounding.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
    assert rounding.default == "nearest_even", name
    before = parameters[names.index("rounding") - 1]
    assert before.name in FORMAT_NAMES, f"{name}: rounding follows {before.name}, not the format"
    for later in parameters[names.index("rounding") + 1 :]:
        assert later.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: {later.name}"


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_overflow_is_keyword_only(name: str) -> None:
    parameter = inspect.signature(CALLABLES[name]).parameters.get("overflow")
    if parameter is not None:
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, name


def test_old_calls_still_work() -> None:
    """Keyword calls of the design's signatures, and the positional ones of the others."""
    assert (
        fpx.decode("0.1", "float16", rounding="up").value
        == fpx.decode("0.1", "float16", "up").value
    )
    x = np.array([0.3, -1.7, 5.9, 100.0])
    by_keyword = fpx.quantize_blocks(x, "mxfp4", axis=-1, rounding="toward_zero").values
    assert np.array_equal(by_keyword, fpx.quantize_blocks(x, "mxfp4", "toward_zero").values)
    scaled = fpx.scale_per_tensor(x, "float8_e4m3fn", rounding="up")
    assert np.array_equal(scaled.values, fpx.scale_per_tensor(x, "float8_e4m3fn", "up").values)
    assert fpx.add(1, 2**-11, "float16", "up").value == 1 + 2**-10


def test_decode_defaults_to_float64() -> None:
    assert fpx.decode(0.1).format.name == "float64"
    assert fpx.decode(0.1).abs_error == 0.0


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_values_come_before_the_format(name: str) -> None:
    """'Values first, then the format': what precedes the format is required (the values)."""
    parameters = list(inspect.signature(CALLABLES[name]).parameters.values())
    names = [p.name for p in parameters]
    for format_name in FORMAT_NAMES:
        if format_name in names:
            for before in parameters[: names.index(format_name)]:
                assert before.default is inspect.Parameter.empty, f"{name}: {before.name}"
