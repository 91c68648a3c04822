"""The textbook explanation of an operation, as text and HTML."""

from __future__ import annotations

import fpexplore as fpx
from fpexplore.explain.arithmetic import operation_html, operation_steps, operation_text


def test_done_when_bfloat16_point_one_plus_point_two() -> None:
    text = str(fpx.add("0.1", "0.2", "bfloat16"))
    lines = text.splitlines()
    assert lines[0] == "0.1 + 0.2 in bfloat16 (round to nearest, ties to even)"
    assert "'0.1' is not a bfloat16 value: rounded to 0.10009765625" in text
    assert "a has the smaller exponent: shift its significand right 1 place" in text
    assert "(+0.11001101 + 1.1001101) x 2^-3 = +10.01100111 x 2^-3" in text
    assert "= 0.30029296875" in text
    assert "normalize" in text and "guard bit 1 (the first bit dropped)" in text
    assert "more than halfway -> away from zero" in text
    assert lines[-3].strip().endswith("= 0.30078125   (0x3E9A)")
    assert lines[-1].split() == ["flags", "inexact"]


def test_each_operation_has_its_steps() -> None:
    labels = {
        "mul": fpx.mul(3, "0.1", "float16"),
        "div": fpx.div(1, 3, "float16"),
        "sqrt": fpx.sqrt(2, "float16"),
        "fma": fpx.fma(2, 3, "0.1", "float16"),
        "sub": fpx.sub(1, "0.999", "float16"),
    }
    expected = {"mul": "multiply", "div": "divide", "sqrt": "root", "fma": "multiply",
                "sub": "subtract"}  # fmt: skip
    for op, result in labels.items():
        steps = dict(operation_steps(result))
        assert expected[op] in steps, op
        assert "round" in steps and "flags" in steps
    assert "irrational" in str(labels["sqrt"])
    assert "no finite binary expansion" in str(labels["div"])


def test_subnormal_underflow_and_specials_are_explained() -> None:
    text = operation_text(fpx.mul("0.000061", "0.5", "float16"))
    assert "below the smallest normal 2^-14" in text and "underflow, inexact" in text
    assert "exactly halfway (a tie)" in text
    assert "division by zero" in str(fpx.div(1, 0, "float16"))
    assert "invalid operation" in str(fpx.sub("inf", "inf", "float16"))
    assert "sign bit" in str(fpx.neg(2, "float16"))
    long = str(fpx.add(0.1, 1e-300, "float64"))
    assert "shift its significand right 993 places" in long
    assert max(len(line) for line in long.splitlines()) < 200


def test_html_reuses_field_boxes_and_number_line() -> None:
    html = operation_html(fpx.add("0.1", "0.2", "bfloat16"))
    assert html.count('class="fpx-bit') == 3 * 16
    assert "<svg" in html and "<script" not in html
    assert "inexact" in html and "0.30078125" in html
    assert fpx.add(1, 2, "float16")._repr_html_().startswith('<div class="fpx-operation"')


def test_every_case_renders() -> None:
    """Text and HTML for each operation, format family and mode, specials included."""
    values = ["0.1", "-3", "0", "-0", "inf", "nan", "1e-7", "448", "1e30"]
    for fmt in ("float16", "bfloat16", "float8_e4m3fn", "float4_e2m1fn", "float64"):
        for mode in ("nearest_even", "up", "stochastic"):
            for op in ("add", "sub", "mul", "div"):
                for a in values[::2]:
                    for b in values[1::2]:
                        try:
                            r = getattr(fpx, op)(a, b, fmt, mode, rng=0)
                        except ValueError as err:  # FP4 has no NaN, no infinity
                            assert fmt == "float4_e2m1fn" and "no NaN" in str(err)
                            continue
                        assert str(r).splitlines()[-1].split()[0] == "flags"
                        assert r._repr_html_().startswith("<div")
            for x in values:
                try:
                    r = fpx.sqrt(x, fmt, mode, rng=0)
                except ValueError:
                    continue
                assert "result" in str(r)
    r = fpx.fma("0.1", "0.2", "-0.02", "float16")
    assert "one rounding" in str(r) and r._repr_html_()


def test_html_flags_name_an_operand_that_overflowed_on_the_way_in() -> None:
    """The flags line of the HTML says what the text says: the operation raised none,
    and operand a overflowed on its way into float16."""
    page = fpx.add("70000", 1, "float16")._repr_html_()
    footer = page[page.rindex("flags:") :]
    assert "on the way in: a overflow" in footer
    assert "on the way in" not in fpx.add(1, 2, "float16")._repr_html_()
