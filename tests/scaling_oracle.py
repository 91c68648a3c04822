"""Exact oracles for scaled formats, on Fractions: block scaling as the OCP MX
v1.0 specification (section 6.3) and NVIDIA's NVFP4 recipe define it, element by
element in every rounding mode, and ``x * scale`` rounded once."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from fpexplore import BLOCK_FORMATS, BlockFormat, Format, get_format
from tests.explain_check import Value, oracle
from tests.oracle import round_exact


def _log2_floor(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > x else e


def _round_integer(t: Fraction, mode: str) -> int:
    floor = math.floor(t)
    if t == floor:
        return floor
    if mode in ("toward_zero", "up", "down"):
        up = mode == "up" or (mode == "toward_zero" and t < 0)
        return floor + up
    fraction = t - floor
    if fraction != Fraction(1, 2):
        return floor + (fraction > Fraction(1, 2))
    if mode == "nearest_away":
        return floor + (t > 0)
    return floor + floor % 2  # ties to even


def _element(t: Fraction, name: str, element: str, mode: str) -> Fraction:
    """``t = V / X`` rounded once into the element format, saturating."""
    if name == "mxint8":
        return Fraction(min(max(_round_integer(t * 64, mode), -128), 127), 64)
    v = oracle(t, get_format(element), mode, "saturate")
    assert v.kind == "finite"
    return v.value


def expected_blocks(x: np.ndarray, name: str, mode: str) -> list[Fraction]:
    """OCP MX v1.0 6.3 / NVIDIA's NVFP4 recipe on Fractions, block by block along a
    1-d ``x`` of finite values of any real dtype: the dequantized values."""
    spec = BLOCK_FORMATS[name]
    items = x.tolist() if x.dtype.kind in "iu" else x.astype(np.float64).tolist()
    exact = [Fraction(v) for v in items]  # Python ints and floats: exact
    k = spec.block_size
    out: list[Fraction] = []
    if spec.scale == "e8m0":
        for b in range(0, len(exact), k):
            block = exact[b : b + k]
            amax = max(abs(v) for v in block)
            shared = max(_log2_floor(amax) - spec.emax_elem, -127) if amax else -127
            scale = Fraction(2) ** shared
            out += [_element(v / scale, name, spec.element, mode) * scale for v in block]
        return out
    e4m3, f32 = get_format("float8_e4m3fn"), get_format("float32")
    amax = max(abs(v) for v in exact)
    g = round_exact(amax / 2688, f32, "nearest_even") if amax else Fraction(1)
    g = max(g, Fraction(2) ** -149)  # at least float32's smallest subnormal
    for b in range(0, len(exact), k):
        block = exact[b : b + k]
        target = max(abs(v) for v in block) / (6 * g)
        s = oracle(target, e4m3, "nearest_even", "saturate").value
        if s == 0:
            out += [Fraction(0)] * len(block)
            continue
        out += [_element(v / (s * g), name, spec.element, mode) * s * g for v in block]
    return out


def expected_scaled(
    given: Fraction, scale: float, fmt: Format, mode: str, overflow: str | None,
    negative: bool = False,
) -> Value:  # fmt: skip
    """``given * scale`` rounded once into ``fmt``; a zero keeps the sign of ``given``
    (``negative``: a zero ``given`` is -0) where the format has -0."""
    want = oracle(given * Fraction(scale), fmt, mode, overflow)
    if want.kind == "finite" and want.value == 0:
        want.neg = (given < 0 or (given == 0 and negative)) and fmt.has_negative_zero
    return want


def _log2_ceil(x: Fraction) -> int:
    e = _log2_floor(x)
    return e if Fraction(2) ** e == x else e + 1


def pow2_exponent(amax: Fraction, spec: BlockFormat, rule: str) -> int:
    """The power-of-two scale's exponent by ``rule``, on the exact amax, clamped to
    E8M0's -127..127 (torchao's ScaleCalculationMode, OCP MX v1.0 6.3)."""
    if amax == 0:
        return -127
    m = 6 if spec.element == "int8" else get_format(spec.element).mantissa_bits
    top = Fraction(127, 64) if spec.element == "int8" else Fraction(get_format(spec.element).max)
    if rule == "floor":
        e = _log2_floor(amax) - spec.emax_elem
    elif rule == "ceil":
        e = _log2_ceil(amax) - spec.emax_elem
    elif rule == "even":  # amax rounded half up to m fraction bits, then the floor rule
        q = Fraction(2) ** (_log2_floor(amax) - m)
        e = _log2_floor(math.floor(amax / q + Fraction(1, 2)) * q) - spec.emax_elem
    else:
        e = _log2_ceil(amax / top)
    return max(min(e, 127), -127)


def expected_tiles(
    x: np.ndarray, spec: BlockFormat, mode: str, axes: tuple[int, ...], sizes: tuple[int, ...],
    rule: str = "floor",
) -> np.ndarray:  # fmt: skip
    """Block scaling on Fractions, block by block (1-D blocks or 2-D tiles over
    ``axes`` of ``sizes``, edges scaled on their own), for finite ``x`` and any
    scale kind: the dequantized values as an object array of Fractions."""
    exact = np.empty(x.shape, object)
    for index in np.ndindex(x.shape):
        exact[index] = Fraction(float(x[index]))
    out = np.empty(x.shape, object)
    ranges = [range(0, n, sizes[axes.index(a)]) if a in axes else range(n)
              for a, n in enumerate(x.shape)]  # fmt: skip
    g = None
    if spec.scale == "e4m3":
        amax = max((abs(v) for v in exact.flat), default=Fraction(0))
        g = round_exact(amax / 2688, get_format("float32"), "nearest_even") if amax else Fraction(1)
        g = max(g, Fraction(2) ** -149)
    for start in itertools.product(*ranges):
        where = tuple(slice(s, s + sizes[axes.index(a)]) if a in axes else s
                      for a, s in enumerate(start))  # fmt: skip
        block = exact[where]
        amax = max(abs(v) for v in block.flat)
        if spec.scale in ("e8m0", "float32_pow2"):
            scale = Fraction(2) ** pow2_exponent(amax, spec, rule)
        elif spec.scale == "float32":
            scale = round_exact(amax / Fraction(spec.max_elem), get_format("float32"),
                                "nearest_even")  # fmt: skip
        else:
            assert g is not None
            s = oracle(amax / (6 * g), get_format("float8_e4m3fn"), "nearest_even", "saturate")
            scale = s.value * g
        if scale == 0:
            out[where] = Fraction(0)
            continue
        name = "mxint8" if spec.element == "int8" else spec.name
        for index in np.ndindex(block.shape):
            block[index] = _element(block[index] / scale, name, spec.element, mode) * scale
        out[where] = block
    return out
