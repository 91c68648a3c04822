"""Issue 21, "found by hand": round_to into the ml_dtypes types of 4 and 6 bits
(stored one per byte), FloatExplorer's steps against IEEE nextUp/nextDown on every
code, and a bad ``rng`` named on every stochastic path."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import fpexplore as fpx
from fpexplore import codes as K

SUB_BYTE = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"]


@pytest.mark.parametrize("name", [*SUB_BYTE, "float8_e4m3fn", "bfloat16", "float8_e8m0fnu"])
def test_round_to_the_formats_own_ml_dtypes_type(name: str) -> None:
    fmt = fpx.get_format(name)
    dtype = getattr(ml_dtypes, name)
    values = K.codes_to_values(np.arange(1 << min(fmt.bits, 12)).astype(K.code_dtype(fmt)), fmt)
    values = values[~np.isnan(values)]
    x = np.concatenate([values, values * 1.3, [0.3, -2.5, 1e3]])
    with np.errstate(invalid="ignore"):
        x = x[np.isfinite(x)] if not fmt.has_nan else x
    got = fpx.round_to(x, name, dtype=dtype)
    assert got.dtype == np.dtype(dtype)
    assert got.view(np.uint8 if fmt.bits <= 8 else np.uint16).tolist() == K.round_codes(
        x, fmt).tolist()  # fmt: skip
    assert np.array_equal(got.astype(np.float64), fpx.round_to(x, name), equal_nan=True)


def test_a_type_of_another_format_is_refused() -> None:
    with pytest.raises(ValueError, match="float6_e2m3fn"):
        fpx.round_to(np.ones(3), "float4_e2m1fn", dtype=ml_dtypes.float6_e2m3fn)


@pytest.mark.parametrize("name", [f for f, v in fpx.FORMATS.items() if v.bits <= 8] + ["float16"])
def test_float_explorer_steps_as_next_up(name: str) -> None:
    pytest.importorskip("ipywidgets")
    from fpexplore.widgets.float_explorer import FloatExplorer

    fmt = fpx.get_format(name)
    codes = np.arange(1 << fmt.bits)
    if fmt.bits > 8:
        codes = np.concatenate(
            [codes[:40], codes[-40:], codes[0x7B00:0x7C10], codes[0x8000:0x8010]]
        )
    values = K.codes_to_values(codes.astype(K.code_dtype(fmt)), fmt)
    w = FloatExplorer(1.0, name)
    for code in codes.tolist():
        for n, step in ((1, K.next_up_codes), (-1, K.next_down_codes)):
            w._show(fpx.from_bits(code, name))
            w.step(n)
            assert w.code == int(step([code], fmt)[0]), (name, hex(code), n)
    smallest = fmt.smallest_subnormal
    if fmt.has_negative_zero and fmt.is_signed:
        w._show(fpx.decode(-smallest, name))
        w.step(1)
        assert w.value == 0 and np.signbit(w.value)  # IEEE nextUp(-min) = -0
    assert values.size == codes.size


def test_a_bad_rng_is_named_everywhere() -> None:
    calls = [
        lambda rng: fpx.round_to([0.1], "bfloat16", "stochastic", rng=rng),
        lambda rng: fpx.add(np.array([0.1]), 0.2, "bfloat16", "stochastic", rng=rng),
        lambda rng: fpx.add(0.1, 0.2, "bfloat16", "stochastic", rng=rng),
        lambda rng: fpx.quantize_blocks(np.full(4, 0.3), "mxint8", rounding="stochastic", rng=rng),
        lambda rng: fpx.quantize_blocks(np.full(4, 0.3), "mxfp4", rounding="stochastic", rng=rng),
        lambda rng: fpx.scale_per_tensor([0.3, 1.0], "e4m3", rounding="stochastic", rng=rng),
        lambda rng: fpx.round_to(np.array([2**60 + 1]), "float32", "stochastic", rng=rng),
    ]
    for call in calls:
        for bad in ("seven", 1.5, [0.5], object()):
            with pytest.raises(TypeError, match="rng"):
                call(bad)
        with pytest.raises(ValueError, match="rng"):
            call(-1)
        call(np.random.default_rng(0))  # and the good ones work
        call(np.random.SeedSequence(1))
        call(3)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "bfloat16", "float8_e4m3fn"])
@pytest.mark.parametrize("order", [">", "<"])
def test_round_to_a_dtype_of_either_byte_order(name: str, order: str) -> None:
    """dtype=">f4" is read as the numbers it holds: the values, not the native
    codes viewed in the other byte order (float32 into ">f4" gave 6.9e-41 for 1.5)."""
    nan = np.array([0x7FF0000000000001, 0xFFF8000000000005], np.uint64).view(np.float64)
    x = np.concatenate([[1.5, 0.1, -3.0, -0.0, 1e-310, 7e4, np.inf], nan])
    want = fpx.round_to(x, name)  # float64
    narrow = fpx.round_to(x, name, dtype="narrow")
    for size in (2, 4, 8):
        target = np.dtype(f"{order}f{size}")
        if size < narrow.dtype.itemsize:
            continue
        got = fpx.round_to(x, name, dtype=target)
        assert got.dtype == target
        native = got.astype(target.newbyteorder("="))  # a byte swap: bits kept
        with np.errstate(invalid="ignore"):
            wide = native.astype(np.float64)
        assert np.array_equal(wide, want, equal_nan=True), (name, target, got, want)
        assert (np.signbit(wide) == np.signbit(want)).all()
        if size == narrow.dtype.itemsize:  # the narrow type itself: NaN bits too
            assert native.tobytes() == narrow.tobytes()
        scalar = fpx.round_to(1.5, name, dtype=target)
        assert scalar == 1.5 and scalar.dtype == target.newbyteorder("=")  # numpy scalars


@pytest.mark.parametrize("name", list(fpx.FORMATS))
def test_steps_from_an_infinite_input_as_next_up(name: str) -> None:
    """FloatParts.next_up/next_down of an infinite input step from the input, as
    fpx.next_up/next_down do, in every format: from -inf in unsigned E8M0 the
    step up is its least value (not its max), and there is none below."""
    for v in (-np.inf, np.inf):
        parts = fpx.decode(v, name)
        for got, want in ((parts.next_up(), fpx.next_up(v, name)),
                          (parts.next_down(), fpx.next_down(v, name))):  # fmt: skip
            assert (np.isnan(got.value) and np.isnan(want)) or (
                got.value == want and np.signbit(got.value) == np.signbit(want)
            ), (v, got.value, want)
