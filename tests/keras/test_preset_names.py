"""An unknown preset name says which preset was probably meant."""

from __future__ import annotations

import pytest

from fpexplore.keras.policies.presets import get_policy


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("fp9", "fp8"), ("bf16_weights", "bfloat16_weights"), ("mxfp", "mxfp8"), ("nvfp", "nvfp4")],
)
def test_an_unknown_preset_says_did_you_mean(typed, meant) -> None:
    with pytest.raises(ValueError, match=rf"unknown preset '{typed}'; did you mean '{meant}'"):
        get_policy(typed)


def test_a_name_like_none_lists_the_presets() -> None:
    with pytest.raises(ValueError, match=r"unknown preset 'zzzz'; expected a FormatPolicy or one"):
        get_policy("zzzz")
