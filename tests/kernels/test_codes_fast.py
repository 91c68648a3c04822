"""The blocked fast paths of fpexplore.codes, bit for bit against the exact reference.

Inputs are chosen where rounding is hard: exact midpoints between neighbours and
one float64 ULP either side of them, the subnormal and overflow boundaries,
signed zeros, infinities, NaNs with payloads and random float64 bit patterns,
in arrays longer than one block so that every block boundary case is crossed.
"""

from __future__ import annotations

import numpy as np
import pytest

from fpexplore import FORMATS, Format, decode_array, get_format
from fpexplore import codes as K
from fpexplore.exact import parse_real, round_real

MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]
CUSTOM = [Format.ieee_like(3, 4), Format.ieee_like(9, 40), Format("e4m3b3", 4, 3, 3, "fn")]
ALL_FORMATS = [*FORMATS.values(), *CUSTOM]
NAN_PAYLOADS = [
    0x7FF8_0000_0000_0000,  # canonical quiet NaN
    0x7FF0_0000_0000_0001,  # signalling, payload only in the lowest bit
    0x7FF4_0000_0000_0000,  # signalling, top payload bit
    0x7FFF_FFFF_FFFF_FFFF,  # every payload bit
    0xFFF8_0000_0000_0001,  # negative quiet NaN with a payload
    0x7FF0_0200_0000_0000,  # payload bits at float16's last place
]


def f64(bits: list[int] | np.ndarray) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def ulp_at_max(fmt: Format) -> float:
    """The spacing of the top binade."""
    return 2.0 ** (fmt.emax - fmt.mantissa_bits)


def sample_codes(fmt: Format, rng: np.random.Generator, n: int = 120) -> np.ndarray:
    """Non-negative finite codes: the edges of every range plus random ones."""
    m, top = fmt.mantissa_bits, fmt.max_code
    edges = [0, 1, 2, 3, (1 << m) - 2, (1 << m) - 1, 1 << m, (1 << m) + 1, top - 1, top]
    edges += list(range(max(0, (1 << m) - 4), min(top, (1 << m) + 4)))
    random = rng.integers(0, top + 1, size=n, dtype=np.uint64)
    codes = np.unique(np.array([c for c in edges if 0 <= c <= top], dtype=np.uint64))
    return np.unique(np.concatenate([codes, random]))


def hard_inputs(fmt: Format, seed: int = 0) -> np.ndarray:
    """float64 inputs near every kind of rounding decision of ``fmt``."""
    rng = np.random.default_rng(seed)
    codes = sample_codes(fmt, rng).astype(K.code_dtype(fmt))
    values = K.codes_to_values(codes, fmt)
    above = K.codes_to_values(K.next_up_codes(codes, fmt), fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        step = np.where(np.isfinite(above), above - values, ulp_at_max(fmt))
        mids = values + step / 2  # exact midpoints: m + 2 bits fit in float64 for m <= 51
        points = [values, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf)]
        points += [np.nextafter(values, 0), np.nextafter(values, np.inf)]
    special = [
        fmt.smallest_subnormal / 2, fmt.smallest_subnormal / 4, fmt.smallest_normal,
        fmt.smallest_normal - fmt.smallest_subnormal / 2, fmt.max, fmt.max + ulp_at_max(fmt) / 2,
        fmt.max + ulp_at_max(fmt), 2 * fmt.max, 1e300, 5e-324, 2.2250738585072014e-308, 0.0,
        np.inf,
    ]  # fmt: skip
    positives = np.concatenate([*points, np.array(special)])
    positives = positives[np.isfinite(positives) | np.isinf(positives)]
    random_bits = rng.integers(0, 2**64, size=200, dtype=np.uint64).view(np.float64)
    near = rng.uniform(fmt.emin - fmt.mantissa_bits - 3, fmt.emax + 2, size=200)
    scaled = np.exp2(near) * rng.uniform(1, 2, size=200)
    x = np.concatenate([positives, -positives, scaled, -scaled, random_bits])
    if fmt.has_nan:
        x = np.concatenate([x, f64(NAN_PAYLOADS)])
    return x[~(np.isnan(x) & ~np.isin(x.view(np.uint64), NAN_PAYLOADS))]


def exact_codes(x: np.ndarray, fmt: Format, mode: str, overflow: str | None = None) -> np.ndarray:
    expected = [round_real(parse_real(float(v)), fmt, mode, overflow) for v in x]
    return np.array(expected, dtype=np.uint64).astype(K.code_dtype(fmt))


def magnitude_groups(x: np.ndarray, size: int = 3) -> list[np.ndarray]:
    """Indices of ``x`` in groups of a few neighbouring magnitudes."""
    order = np.argsort(np.abs(x), kind="stable")
    return np.array_split(order, max(1, x.size // size))


def tiled(x: np.ndarray, length: int = K.BLOCK + 1000) -> tuple[np.ndarray, np.ndarray]:
    """``x`` placed at both ends of an array longer than one block (ones between),
    so specials land in the first and the last, partial, block."""
    big = np.ones(length + 2 * x.size)
    big[: x.size] = x
    big[-x.size :] = x
    return big, np.r_[0 : x.size, length + x.size : length + 2 * x.size]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_round_codes_match_exact_reference(fmt: Format, mode: str) -> None:
    x = hard_inputs(fmt)
    if not fmt.has_nan:
        x = x[~np.isnan(x)]
    expected = exact_codes(x, fmt, mode)
    big, where = tiled(x)
    codes = K.round_codes(big, fmt, mode)
    np.testing.assert_array_equal(codes[where], np.concatenate([expected, expected]))
    values = K.round_values(big, fmt, mode)
    np.testing.assert_array_equal(
        values.view(np.uint64), K.codes_to_values(codes, fmt).view(np.uint64)
    )
    # small arrays of neighbouring magnitudes: blocks that only just reach a range
    for group in magnitude_groups(x):
        np.testing.assert_array_equal(K.round_codes(x[group], fmt, mode), expected[group])
        np.testing.assert_array_equal(
            K.round_values(x[group], fmt, mode).view(np.uint64),
            K.codes_to_values(expected[group], fmt).view(np.uint64),
        )


@pytest.mark.parametrize("mode", ["nearest_even", "toward_zero", "up"])
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float8_e4m3fn", "float4_e2m1fn"])
def test_saturating_overflow_matches_exact_reference(name: str, mode: str) -> None:
    fmt = get_format(name)
    x = hard_inputs(fmt, seed=1)
    x = x[~np.isnan(x)] if not fmt.has_nan else x
    codes = K.round_codes(x, fmt, mode, overflow="saturate")
    np.testing.assert_array_equal(codes, exact_codes(x, fmt, mode, "saturate"))


@pytest.mark.parametrize("name", ["float6_e3m2fn", "float4_e2m1fn"])
def test_nan_into_a_format_without_nan_is_refused(name: str) -> None:
    x = np.ones(K.BLOCK + 10)
    x[-1] = np.nan
    with pytest.raises(ValueError, match="no NaN"):
        K.round_codes(x, name)
    with pytest.raises(ValueError, match="no NaN"):
        K.round_values(x, name)


def test_float16_is_numpys_cast_on_random_bit_patterns() -> None:
    rng = np.random.default_rng(16)
    x = rng.integers(0, 2**64, size=300_000, dtype=np.uint64).view(np.float64)
    near = np.exp2(rng.uniform(-26, 17, size=300_000)) * rng.choice([-1, 1], size=300_000)
    for values in (x, near):
        with np.errstate(over="ignore", invalid="ignore"):
            theirs = values.astype(np.float16)
        ours = K.round_codes(values, "float16")
        nan = np.isnan(values)
        np.testing.assert_array_equal(ours[~nan], theirs.view(np.uint16)[~nan])
        # NaNs: numpy keeps a signalling payload; the exact reference quiets it
        assert np.isnan(ours[nan].view(np.float16)).all()
        np.testing.assert_array_equal(K.round_values(values, "float16"), theirs.astype(np.float64))


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16"])
def test_random_bit_patterns_match_exact_reference(name: str) -> None:
    fmt = get_format(name)
    x = np.random.default_rng(32).integers(0, 2**64, size=3000, dtype=np.uint64).view(np.float64)
    for mode in MODES:
        np.testing.assert_array_equal(K.round_codes(x, fmt, mode), exact_codes(x, fmt, mode))


def test_inputs_of_other_dtypes_and_shapes() -> None:
    x = np.random.default_rng(3).standard_normal((70, 1000)) * 100
    expected = K.round_codes(x.ravel(), "bfloat16").reshape(x.shape)
    np.testing.assert_array_equal(K.round_codes(x, "bfloat16"), expected)
    np.testing.assert_array_equal(K.round_codes(x.astype(">f8"), "bfloat16"), expected)
    np.testing.assert_array_equal(
        K.round_codes(x.T, "bfloat16"), K.round_codes(np.ascontiguousarray(x.T), "bfloat16")
    )
    single = x.astype(np.float32)
    np.testing.assert_array_equal(
        K.round_values(single, "e4m3"), K.round_values(single.astype(np.float64), "e4m3")
    )
    ints = np.arange(-300, 300)
    np.testing.assert_array_equal(K.round_values(ints, "e5m2"), K.round_values(ints * 1.0, "e5m2"))
    assert K.round_codes(np.float64(1.0), "bfloat16").shape == ()
    assert K.round_values(1.5 * 2.0**-134, "bfloat16") == 2.0**-133  # 0.75 of a quantum
    assert K.round_codes(np.empty(0), "e4m3").shape == (0,)


def test_rounding_errors_agree_with_their_definitions() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate(
        [
            rng.standard_normal(K.BLOCK + 5000) * 1e3,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, 5e-324, 65520.0, 1e-8],
        ]
    )
    names = ("float16", "float32", "bfloat16", "float8_e4m3fn", "e3m4", "float64")
    for fmt in [*map(get_format, names), Format.ieee_like(2, 1)]:  # the last: emin = 0
        for overflow in (None, "saturate"):
            rounded, abs_error, rel_error, ulp_error = K.rounding_errors(x, fmt, overflow=overflow)
            expected_rounded = K.round_values(x, fmt, overflow=overflow)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                expected_abs = np.abs(expected_rounded - x)
                expected_abs[expected_rounded == x] = 0.0
                exponent = np.frexp(np.abs(x))[1] - 1
                exponent[x == 0] = fmt.emin  # frexp(0) has exponent 0
                spacing = np.ldexp(1.0, np.maximum(exponent, fmt.emin) - fmt.mantissa_bits)
                expected_rel = expected_abs / np.abs(x)
                expected_ulp = expected_abs / np.where(np.isfinite(x), spacing, np.nan)
            zero = expected_abs == 0
            expected_rel[zero] = 0.0
            expected_ulp[zero] = 0.0
            expected_ulp[np.isinf(expected_abs)] = np.inf
            np.testing.assert_array_equal(rounded, expected_rounded)
            np.testing.assert_array_equal(abs_error, expected_abs)
            np.testing.assert_array_equal(rel_error, expected_rel)
            np.testing.assert_array_equal(ulp_error, expected_ulp)
            finite = np.isfinite(x) & (np.abs(x) <= fmt.max)
            assert (ulp_error[finite] <= 0.5).all()


def test_split_codes_against_numpy_views_every_float16() -> None:
    codes = np.arange(2**16, dtype=np.uint16)
    d = decode_array(codes.view(np.float16), "float16")
    np.testing.assert_array_equal(d.sign, codes >> 15)
    np.testing.assert_array_equal(d.exponent, (codes >> 10) & 0x1F)
    np.testing.assert_array_equal(d.mantissa, codes & 0x3FF)
    values = codes.view(np.float16)
    with np.errstate(invalid="ignore"):
        wide = values.astype(np.float64)
    expected = np.select(
        [np.isnan(wide), np.isinf(wide), wide == 0, np.abs(wide) < 2.0**-14],
        [4, 3, 0, 1],
        default=2,
    )
    np.testing.assert_array_equal(d.kind.view(np.ndarray), expected)
    np.testing.assert_array_equal(d.value.view(np.uint64), wide.view(np.uint64))


def test_split_codes_against_numpy_views_random_float32() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 2**32, size=K.BLOCK * 3 + 17, dtype=np.uint32)
    codes[:6] = [0, 0x80000000, 1, 0x7F800000, 0xFF800001, 0x00800000]
    values = codes.view(np.float32)
    for d in (decode_array(values, "float32"), decode_array(codes, "float32")):
        np.testing.assert_array_equal(d.sign, np.signbit(values))
        np.testing.assert_array_equal(d.exponent, (codes >> 23) & 0xFF)
        np.testing.assert_array_equal(d.mantissa, codes & 0x7FFFFF)
        kind = np.select(
            [np.isnan(values), np.isinf(values), values == 0, np.abs(values) < 2.0**-126],
            [4, 3, 0, 1],
            default=2,
        )
        np.testing.assert_array_equal(d.kind.view(np.ndarray), kind)
        assert (d.sign.dtype, d.exponent.dtype, d.mantissa.dtype) == (np.uint8,) * 2 + (np.uint32,)


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_split_codes_match_the_field_formulas(fmt: Format) -> None:
    rng = np.random.default_rng(fmt.bits)
    codes = rng.integers(0, fmt.n_codes, size=5000, dtype=np.uint64).astype(K.code_dtype(fmt))
    codes[:3] = [0, fmt.max_code, fmt.n_codes - 1]
    sign, exponent, mantissa, kind = K.split_codes(codes.reshape(50, 100), fmt)
    assert sign.shape == (50, 100)
    c = codes.astype(object)
    m, e = fmt.mantissa_bits, fmt.exponent_bits
    np.testing.assert_array_equal(sign.ravel(), [v >> (m + e) for v in c])
    np.testing.assert_array_equal(exponent.ravel(), [(v >> m) % 2**e for v in c])
    np.testing.assert_array_equal(mantissa.ravel(), [v % 2**m for v in c])
    values = K.codes_to_values(codes, fmt)
    for group in magnitude_groups(values):  # blocks that only just reach a class
        np.testing.assert_array_equal(K.classify(codes[group], fmt), kind.ravel()[group])
    np.testing.assert_array_equal(np.isnan(values), kind.ravel() == 4)
    np.testing.assert_array_equal(np.isinf(values), kind.ravel() == 3)
    np.testing.assert_array_equal(values == 0, kind.ravel() == 0)
    tiny = np.isfinite(values) & (values != 0) & (np.abs(values) < fmt.smallest_normal)
    np.testing.assert_array_equal(tiny, kind.ravel() == 1)


def test_codes_to_values_every_code_of_small_formats() -> None:
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn"):
        fmt = get_format(name)
        codes = np.arange(fmt.n_codes, dtype=np.uint64).astype(K.code_dtype(fmt))
        values = K.codes_to_values(codes, fmt)
        kind = K.classify(codes, fmt)
        for code, value, k in zip(codes[::7].tolist(), values[::7], kind[::7], strict=True):
            if k == 4:
                assert np.isnan(value)
            elif k == 3:
                assert value == (-np.inf if code >> (fmt.bits - 1) else np.inf)
            else:
                exact = round_real(parse_real(float(value)), fmt)
                assert exact == code or (value == 0 and exact ^ code == fmt.sign_mask)
                assert np.signbit(value) == bool(code >> (fmt.bits - 1))


def test_integer_codes_are_checked_once() -> None:
    with pytest.raises(ValueError, match="out of range"):
        K.split_codes(np.array([0, 256]), "e4m3")
    with pytest.raises(ValueError, match="out of range"):
        K.split_codes(np.array([-1]), "e4m3")
    sign, *_ = K.split_codes(np.arange(256, dtype=np.uint8), "e4m3")  # every uint8 is valid
    assert sign.sum() == 128


def test_threads_do_not_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal(50_000) * np.exp2(rng.uniform(-20, 20, 50_000))
    x[[7, 30_000, 49_999]] = [np.nan, np.inf, -0.0]
    codes = rng.integers(0, 2**32, size=50_000, dtype=np.uint32)

    def everything() -> list[np.ndarray]:
        return [
            K.round_codes(x, "e4m3", "up"),
            K.round_values(x, "bfloat16"),
            K.round_values(x, "float16"),
            *K.split_codes(codes, "float32"),
            K.codes_to_values(codes, "float32"),
            K.codes_to_values(codes.astype(np.uint16), "bfloat16"),
            *K.rounding_errors(x, "float8_e5m2"),
        ]

    monkeypatch.setattr(K, "THREADS", 1)
    alone = everything()
    monkeypatch.setattr(K, "PARALLEL_MIN", 1000)
    monkeypatch.setattr(K, "THREADS", 3)
    assert K.threads_for(x.size) == 3
    for a, b in zip(everything(), alone, strict=True):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    with pytest.raises(ValueError, match="no NaN"):  # raised in a worker, seen here
        K.round_codes(x, "float4_e2m1fn")


def test_split_codes_into_preallocated_outputs() -> None:
    codes = np.arange(2**16, dtype=np.uint16)
    kind = np.empty(codes.shape, np.uint8)
    result = K.split_codes(codes, "float16", parts=False, out=(None, None, None, kind))
    assert result[3] is kind and result[0] is None
    np.testing.assert_array_equal(kind, K.classify(codes, "float16"))
    with pytest.raises(ValueError, match="out must hold four"):
        K.split_codes(codes, "float16", out=(None, None, None, np.empty(3, np.uint8)))
