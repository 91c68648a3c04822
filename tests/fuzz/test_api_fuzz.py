"""The public API over arbitrary inputs: the right answer (checked against
tests/oracle.py, and the explanations of operations line by line against
tests/explain_check.py) or a clear ValueError/TypeError, within a time bound."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fpexplore as fpx
from fpexplore.core.rounding_explain import explain_rounding
from fpexplore.render.comparison import compare
from tests.cpu_time import within
from tests.explain_check import check_explanation
from tests.fuzz.strategies import FORMAT_NAMES, FUZZ, MODES, any_inputs, arrays, operands
from tests.oracle import exact_elements, exact_input, expected_code, oracle_round, round_exact

TIME_LIMIT = 1.0  # CPU seconds per public call (tests/cpu_time.py: shared machines stay fair)
CLEAR = (ValueError, TypeError)


def _within(call: Any) -> tuple[Any, Exception | None]:
    """(result, None) or (None, the clear error); fails on any other exception, a
    message that is not ours, or a call slower than TIME_LIMIT."""
    result, error = within(call, TIME_LIMIT, CLEAR)
    if error is not None:
        message = str(error)
        assert message and len(message) < 600, message[:200]
        assert "set_int_max_str_digits" not in message and "Traceback" not in message
    return result, error


def _oracle_input(x: Any) -> Any:
    """The exact input where the oracle reads it independently, else None."""
    if isinstance(x, bool | np.bool_) or not isinstance(
        x, int | float | Fraction | np.floating | np.integer | str
    ):
        return None
    if isinstance(x, str):
        text = x.strip().lower()
        plain = text.lstrip("+-").replace(".", "", 1).isdigit() and len(text) < 400
        if not plain and text.lstrip("+-") not in ("inf", "nan", "snan"):
            return None
    try:
        return exact_input(x)
    except (ValueError, ZeroDivisionError, TypeError):
        return None


@settings(FUZZ, max_examples=1000)
@given(any_inputs(), st.sampled_from(FORMAT_NAMES), st.sampled_from(MODES))
def test_decode_is_right_or_refuses_clearly(x: Any, fmt: str, mode: str) -> None:
    parts, error = _within(lambda: fpx.decode(x, fmt, rounding=mode))
    if error is not None:
        return
    f = fpx.get_format(fmt)
    exact = _oracle_input(x)
    if exact is not None:
        assert parts.code == expected_code(exact, f, mode), (x, fmt, mode)
    for name in ("abs_error", "rel_error", "ulp_error", "value"):
        assert isinstance(_within(lambda name=name: getattr(parts, name))[0], float)
    _within(lambda: str(parts))
    _within(lambda: parts._repr_html_())
    _within(lambda: (parts.next_up(), parts.next_down()))


@settings(FUZZ, max_examples=120)
@given(any_inputs(), st.sampled_from(MODES))
def test_renderings_answer_or_refuse(x: Any, mode: str) -> None:
    table, error = _within(lambda: compare(x, ["float32", "float16", "fp4", "e4m3"], mode))
    if error is None:
        _within(lambda: (str(table), table._repr_html_()))
    explanation, error = _within(lambda: explain_rounding(x, "float16", mode))
    if error is None:
        _within(lambda: (str(explanation), explanation.to_svg(), explanation._repr_html_()))


@settings(FUZZ, max_examples=800)
@given(arrays(), st.sampled_from(FORMAT_NAMES[:8]), st.sampled_from(MODES))
def test_array_paths_match_the_oracle(arr: np.ndarray, fmt: str, mode: str) -> None:
    f = fpx.get_format(fmt)
    elements = exact_elements(arr)
    if not f.has_nan and any(isinstance(e, tuple) and e[0] == "nan" for e in elements):
        _, error = _within(lambda: fpx.codes.round_codes(arr, fmt, mode))
        assert isinstance(error, ValueError)
        return
    expected = [expected_code(e, f, mode) for e in elements]
    got, _ = _within(lambda: fpx.codes.round_codes(arr, fmt, mode))
    assert got.ravel().tolist() == expected, (arr, arr.dtype, fmt, mode)
    rounded, _ = _within(lambda: fpx.round_to(arr, f, mode))
    stored = fpx.codes.codes_to_values(np.array(expected, fpx.codes.code_dtype(f)), f)
    assert np.array_equal(np.ravel(rounded), stored, equal_nan=True)
    err, _ = _within(lambda: fpx.representation_error(arr, fmt, mode))
    assert np.array_equal(err.rounded.ravel(), stored, equal_nan=True)
    _within(lambda: fpx.ulp(arr, fmt))
    tiny = Fraction(1, 2**1200)  # below every quantum: the oracle's "just past"
    for call, mode, sign in ((fpx.next_up, "up", 1), (fpx.next_down, "down", -1)):
        got, _ = _within(lambda call=call: call(arr, fmt))
        for x, value in zip(elements, np.ravel(got), strict=True):
            if isinstance(x, tuple) and x[0] != "zero":
                continue  # inf and NaN: tests/core/test_edges_scalar.py
            start = Fraction(0) if isinstance(x, tuple) else x
            want = round_exact(start + sign * tiny, f, mode)
            assert value == float(want) or (want == "nan" and np.isnan(value)), (x, fmt, mode)
    if mode == "nearest_even":
        d, _ = _within(lambda: fpx.decode_array(arr, fmt, codes=False))
        assert d.code.ravel().tolist() == expected


@settings(FUZZ, max_examples=60)
@given(
    st.sampled_from(["m8[s]", "M8[D]", "U3", "S2", "V2", "O", "?", "c8"]),
    st.sampled_from([fpx.round_to, fpx.representation_error, fpx.ulp, fpx.next_up]),
)
def test_non_numeric_arrays_refused_with_their_type(dtype: str, call: Any) -> None:
    _, error = _within(lambda: call(np.zeros(2, dtype), "float16"))
    assert isinstance(error, TypeError) and "dtype" in str(error)


@settings(FUZZ, max_examples=150)
@given(any_inputs(), any_inputs(), st.sampled_from(FORMAT_NAMES))
def test_counting_answers_or_refuses(lo: Any, hi: Any, fmt: str) -> None:
    _within(lambda: fpx.count_between(lo, hi, fmt))
    _within(lambda: fpx.values_between(lo, hi, fmt, limit=1000))


TABULATED = ("float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "p3109_p3", "p3109_p1")


@settings(FUZZ, max_examples=300)
@given(arrays(), st.sampled_from(TABULATED), st.sampled_from(MODES))
def test_tabulated_formats_match_the_table_oracle(arr: np.ndarray, fmt: str, mode: str) -> None:
    f = fpx.get_format(fmt)
    elements = exact_elements(arr)
    if any(isinstance(e, tuple) and e[0] != "zero" for e in elements):
        _within(lambda: fpx.round_to(arr, fmt, mode))  # inf and NaN: answered or refused
        return
    rounded, error = _within(lambda: fpx.round_to(arr, fmt, mode))
    if error is not None:
        return
    for x, value in zip(elements, np.ravel(rounded), strict=True):
        want = oracle_round(Fraction(0) if isinstance(x, tuple) else x, f, mode)
        if want == "nan":
            assert np.isnan(value), (x, fmt, mode)
        else:
            assert value == float(want), (x, fmt, mode)


REPORT_FORMATS = (*FORMAT_NAMES[:10], "mxfp4", "nvfp4", "mxint8", "mxfp8_e4m3", "float8_e8m0fnu",
                  "float8_e4m3fnuz")  # fmt: skip


def _shaped(arr: np.ndarray, split: int) -> np.ndarray:
    if arr.size and split and arr.size % split == 0:
        return arr.reshape(split, -1)
    return arr


@settings(FUZZ, max_examples=200)
@given(arrays(), st.integers(0, 3), st.lists(st.sampled_from(REPORT_FORMATS), min_size=0,
       max_size=3), st.sampled_from([None, -3, -1, 0, 1, 2]))  # fmt: skip
def test_reports_answer_or_refuse(arr: np.ndarray, split: int, formats: list[str],
                                  axis: int | None) -> None:  # fmt: skip
    x = _shaped(arr, split)
    report, error = _within(lambda: fpx.tensor_report(x, formats, axis=axis))
    if error is not None:
        return
    for r in report.to_records():
        assert 0 <= r["flushed_to_zero"] <= r["nonzero"] <= x.size
        assert r["overflow"] + r["clipped"] <= r["nonzero"]
        if r["nonzero"] and not np.isnan(r["max_rel_error"]):
            assert r["median_rel_error"] <= r["p99_rel_error"] <= r["max_rel_error"]
    checkpoint, error = _within(
        lambda: fpx.checkpoint_report({"t": x}, formats, axis=axis, progress=False)
    )
    if error is None and np.asarray(x).dtype.kind not in "iu":
        rows = [
            {
                k: v
                for k, v in r.items()
                if k not in ("tensor", "shape", "dtype", "size", "axis_source")
            }
            for r in checkpoint.records
        ]
        if axis is None or -max(x.ndim, 1) <= axis < max(x.ndim, 1):
            assert rows == report.to_records()


EXPLAINED = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "sqrt": 1, "remainder": 2,
             "neg": 1, "abs": 1}  # fmt: skip
ALL_FORMATS = tuple(fpx.FORMATS)


@settings(FUZZ, max_examples=300)
@given(
    st.sampled_from(list(EXPLAINED)), st.lists(operands(), min_size=3, max_size=3),
    st.sampled_from(ALL_FORMATS), st.sampled_from([*MODES, "stochastic"]),
    st.sampled_from([None, "saturate"]),
)  # fmt: skip
def test_explanations_add_up(
    op: str, values: list[Any], fmt: str, mode: str, overflow: str | None
) -> None:
    """str() of a random operation parses, and every line recomputes exactly
    (tests/explain_check.py); an operation the format cannot hold is refused."""
    args = tuple(values[: EXPLAINED[op]])
    kwargs: dict[str, Any] = {"overflow": overflow}
    if op not in ("neg", "abs"):
        kwargs["rng"] = 0
    result, error = _within(lambda: getattr(fpx, op)(*args, fmt, mode, **kwargs))
    if error is not None:
        assert not fpx.get_format(fmt).has_nan, (op, args, fmt, error)  # FP6/FP4: no NaN
        return
    text, _ = _within(lambda: str(result))
    check_explanation(text, op, fpx.get_format(fmt), mode, overflow)


@settings(FUZZ, max_examples=200)
@given(arrays(), st.sampled_from(["float64", "float32", "bfloat16", "float16"]),
       st.sampled_from(["sequential", "pairwise", "kahan"]))  # fmt: skip
def test_sums_and_dots_report_the_exact_value(arr: np.ndarray, fmt: str, order: str) -> None:
    """sum and dot of an array of any dtype (integers beyond 2**53 too) report the
    exact sum of the values as given, and round each value once into the format."""
    r, error = _within(lambda: fpx.sum(arr, fmt, order=order))
    if error is not None:
        return
    given = exact_elements(arr)
    if not all(isinstance(v, Fraction) or v[0] == "zero" for v in given):
        return
    values = [v if isinstance(v, Fraction) else Fraction(0) for v in given]
    assert r.exact == sum(values, Fraction(0))
    d = fpx.dot(arr, np.ones(arr.shape, np.int8), fmt, order=order)
    assert d.exact == r.exact
    if arr.size == 1:
        assert r.value == float(fpx.round_to(arr, fpx.get_format(fmt)).reshape(-1)[0]) or np.isnan(
            r.value
        )
