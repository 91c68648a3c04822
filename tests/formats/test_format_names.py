"""Unknown format names: a short ValueError that names the input and suggests the nearest
names, or the members of a family (``fp8``); never another exception."""

from __future__ import annotations

import pytest

from fpexplore import FORMATS, get_format
from fpexplore.formats import format_family, suggest_formats

# Strings numpy's dtype parser chokes on in its own ways (SyntaxError for 5000 digits,
# TypeError, a bool dtype for "\x00", structured dtypes for "f4,f4").
ODD = ["9" * 5000, "f4" * 3000, "(", "[('a', 'f4')]", "\x00", "f4,f4", "(2,)f4", "V8", "U",
       "", " ", "e" * 5000, "1" * 4301, "e4m3" * 500, "-", "f" + "9" * 5000,
       "float8_e4m3fn\x00"]  # fmt: skip


@pytest.mark.parametrize("spec", ODD, ids=range(len(ODD)))
def test_any_unreadable_string_is_a_value_error_naming_it(spec: str) -> None:
    with pytest.raises(ValueError) as caught:
        get_format(spec)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 600, message
    assert repr(spec)[:20] in message, message


def test_long_names_are_shortened_in_the_message() -> None:
    with pytest.raises(ValueError, match=r"5000 characters"):
        get_format("9" * 5000)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("flaot32", "float32"), ("bfloat61", "bfloat16"), ("e4m3fnn", "float8_e4m3fn"),
     ("float8_e4m3f", "float8_e4m3fn"), ("hlaf", "half"), ("p3109_p9", "p3109_p")],
)  # fmt: skip
def test_typos_get_the_nearest_names(typo: str, meant: str) -> None:
    with pytest.raises(ValueError, match="did you mean") as caught:
        get_format(typo)
    assert meant in str(caught.value)


@pytest.mark.parametrize("family", ["fp8", "float8", "FP8", "fp6", "float6", "float4", "p3109"])
def test_a_family_name_lists_its_members_with_their_max(family: str) -> None:
    members = format_family(family)
    assert members, family
    with pytest.raises(ValueError) as caught:
        get_format(family)
    message = str(caught.value)
    for fmt in members:
        assert fmt.name in message
    assert f"max {fmt.max:g}" in message


def test_fp8_family_names_e4m3_as_float8_e4m3fn_and_the_ieee_variant() -> None:
    names = [f.name for f in format_family("fp8")]
    assert names[:2] == ["float8_e4m3fn", "float8_e5m2"]
    assert {n for n in FORMATS if FORMATS[n].bits == 8} <= set(names)
    assert "float8_e4m3" in names  # ml_dtypes' IEEE-style E4M3 (max 240)
    text = suggest_formats("fp8")
    assert "float8_e4m3fn (e4m3, max 448)" in text and "float8_e4m3 (max 240" in text


def test_nothing_close_still_says_what_is_expected() -> None:
    with pytest.raises(ValueError) as caught:
        get_format("quad")
    message = str(caught.value)
    assert "did you mean" not in message
    for word in ("alias", "dtype", "eXmY", "format_names()"):
        assert word in message


def test_known_names_are_unaffected() -> None:
    assert get_format("f8").name == "float64"  # a numpy dtype string, not the fp8 family
    assert get_format("fp4").name == "float4_e2m1fn"
    assert get_format("  E4M3 ").name == "float8_e4m3fn"
