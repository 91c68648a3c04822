"""A reader of arithmetic explanations: parse what ``str(Operation)`` prints and
recompute every line exactly, with Fractions and integer square roots.

:func:`check_explanation` takes the printed text and what was asked (operation,
format, mode, overflow) and nothing else: the operands are read from their
lines (``(value, hex)``, checked against the bits written beside them and the
code), the exact result is recomputed from them by IEEE 754's rules, and each
line after them must be a true equation about these numbers: the alignment and
the exact sum, significands and exponents, the root, the normalization, the
kept and dropped bits around ``|``, guard/round/sticky, the direction the mode
takes, the sign of an exact zero, the special cases, the stored result (an
independent oracle's rounding) and its error. Binary strings are compared with
the truncation of the exact number at the printed length (``...`` exactly when
bits remain); an abbreviated string ``head...(n bits)...tail`` must agree with
that truncation on its head, its tail and its length.

No fpexplore code computes anything here: rounding comes from
:mod:`tests.oracle`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from fpexplore import Format
from tests.oracle import code_of, finite_values, format_max, oracle_round, round_exact

BITS = r"[01.]+(?:\(\d+ bits\)[01.]+)?"
SCI = rf"([+-])({BITS}) x 2\^(-?\d+)"
MODE_NAMES = {
    "nearest_even": "round to nearest, ties to even",
    "nearest_away": "round to nearest, ties away from zero",
    "toward_zero": "round toward zero",
    "up": "round up, toward +inf",
    "down": "round down, toward -inf",
    "stochastic": "stochastic",
}


class ExplanationError(AssertionError):
    pass


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise ExplanationError(what)


# -- exact reals: a Fraction or the square root of one --------------------------------


@dataclass(frozen=True)
class Real:
    """``value`` itself, or its square root when ``root``."""

    value: Fraction
    root: bool = False

    @property
    def negative(self) -> bool:
        return self.value < 0 and not self.root

    def floor_scaled(self, n: int) -> tuple[int, bool]:
        """``floor(|x| * 2**n)`` and whether ``|x| * 2**n`` is that integer."""
        if self.root:
            y = self.value * Fraction(4) ** n
            r = math.isqrt(y.numerator // y.denominator)
            return r, y.denominator == 1 and r * r == y.numerator
        y = abs(self.value) * Fraction(2) ** n
        whole, rest = divmod(y.numerator, y.denominator)
        return whole, rest == 0

    def log2(self) -> int:
        """``floor(log2(|x|))`` (x nonzero)."""
        e = _log2(abs(self.value))
        return e // 2 if self.root else e

    def approx(self, bits: int = 200) -> Fraction:
        """The value itself (a Fraction), or the root truncated to ``bits`` bits."""
        if not self.root:
            return self.value
        n = bits - self.log2()
        return Fraction(self.floor_scaled(n)[0], 1 << n) if n >= 0 else Fraction(
            self.floor_scaled(n)[0] << -n)  # fmt: skip

    @property
    def dyadic(self) -> bool:
        if self.root:
            return False
        return not self.value.denominator & (self.value.denominator - 1)

    def is_zero(self) -> bool:
        return self.value == 0


def _log2(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def render(x: Real, exponent: int, frac: int | None) -> str:
    """``|x| / 2**exponent`` with ``frac`` bits after the point, ``...`` if more."""
    if frac is None:
        assert x.dyadic
        scaled = abs(x.value) / Fraction(2) ** exponent
        frac = scaled.denominator.bit_length() - 1
    whole, exact = x.floor_scaled(frac - exponent)
    text = f"{whole >> frac:b}"
    if frac:
        text += "." + format(whole & ((1 << frac) - 1), f"0{frac}b")
    return text + ("" if exact else "...")


def _unabbreviate(printed: str) -> tuple[int, str, str]:
    """(full length, head, tail) of a possibly abbreviated string."""
    m = re.fullmatch(r"([01.]+?)\.\.\.\((\d+) bits\)\.\.\.([01.]*)", printed)
    if not m:
        return len(printed), printed, ""
    head, n, tail = m.group(1), int(m.group(2)), m.group(3)
    _require(n > 0 and len(head) >= 8 and len(tail) >= 8, f"odd abbreviation {printed!r}")
    return len(head) + n + len(tail), head, tail


def _agrees(full: str, printed: str) -> bool:
    length, head, tail = _unabbreviate(printed)
    return len(full) == length and full.startswith(head) and full.endswith(tail)


def frac_bits(printed: str) -> int:
    """How many bits after the point a printed binary string holds."""
    length, head, tail = _unabbreviate(printed)
    ellipsis = (tail or head).endswith("...")
    body_length = length - 3 * ellipsis
    if "." not in head[:body_length]:
        return 0
    return body_length - head.index(".") - 1


def check_bits(printed: str, x: Real, exponent: int, what: str) -> None:
    expected = render(x, exponent, frac_bits(printed))
    _require(_agrees(expected, printed), f"{what}: printed {printed!r}, exact {expected!r}")


def check_sci(match: tuple[str, str, str], x: Real, what: str, exponent: int | None = None) -> int:
    sign, bits, e = match[0], match[1], int(match[2])
    _require((sign == "-") == x.negative, f"{what}: sign {sign} of {x}")
    if exponent is not None:
        _require(e == exponent, f"{what}: written at 2^{e}, expected 2^{exponent}")
    check_bits(bits, x, e, what)
    return e


def _sci(text: str, what: str) -> tuple[str, str, str]:
    m = re.fullmatch(SCI, text)
    _require(m is not None, f"{what}: not binary scientific notation: {text!r}")
    assert m is not None
    return m.group(1), m.group(2), m.group(3)


def _signed_zero(text: str) -> bool | None:
    """True for ``-0``, False for ``+0``, None for anything else."""
    return {"-0": True, "+0": False}.get(text)


# -- operands -----------------------------------------------------------------------


@dataclass
class Value:
    """A value of the format: ``kind`` "finite", "inf" or "nan"; ``neg`` its sign."""

    kind: str
    value: Fraction
    neg: bool
    signalling: bool = False

    @classmethod
    def of(cls, text: str) -> Value:
        v = float(text)
        neg = math.copysign(1.0, v) < 0
        if math.isnan(v):
            return cls("nan", Fraction(0), neg)
        if math.isinf(v):
            return cls("inf", Fraction(0), neg)
        return cls("finite", Fraction(v), neg)

    @property
    def zero(self) -> bool:
        return self.kind == "finite" and self.value == 0

    @property
    def signed(self) -> Fraction:
        return self.value


def lead(v: Fraction, fmt: Format) -> int:
    return max(_log2(abs(v)), fmt.emin) if v else fmt.emin


def expected_code(v: Value, fmt: Format) -> int | None:
    """The code of a value (None for NaN, whose payload varies)."""
    if v.kind == "nan":
        return None
    sign_bit = (1 << (fmt.bits - 1)) if (v.neg and fmt.is_signed) else 0
    if not fmt.tabulated:
        if v.kind == "inf":
            return code_of("-inf" if v.neg else "inf", fmt)
        return code_of(v.value, fmt, negative=v.neg)
    magnitudes = finite_values(fmt)  # fnuz, P3109, E8M0: codes in value order
    if v.kind == "inf":
        return sign_bit | len(magnitudes)
    zero_sign = v.neg and fmt.has_negative_zero  # "fn" tabulated formats (s8m0) have -0
    return (sign_bit if v.value or zero_sign else 0) | magnitudes.index(abs(v.value))


def is_nan_code(code: int, fmt: Format) -> bool:
    m = fmt.mantissa_bits
    magnitude = code & ((1 << (fmt.bits - int(fmt.is_signed))) - 1)
    if fmt.nan_encoding == "ieee":
        return magnitude >> m == (1 << fmt.exponent_bits) - 1 and magnitude & ((1 << m) - 1) != 0
    if fmt.nan_encoding == "fn":
        return magnitude == (1 << (fmt.bits - int(fmt.is_signed))) - 1
    return code == 1 << (fmt.bits - 1)  # fnuz, P3109: the code of -0


def check_value_line(text: str, fmt: Format, what: str) -> Value:
    """``= +1.01 x 2^3 = 10.0   (0x4900)`` (a result), ``= +1.01 x 2^3   (10.0,
    0x4900)`` (an operand) or ``= 0.0   (0x0000)``: the value, checked."""
    _require(text.startswith("= "), f"{what}: not a value line: {text!r}")
    body = text[2:]
    hexa = r"(0x[0-9A-F]+)"
    if m := re.fullmatch(rf"({SCI}) = (\S+) \({hexa}\)", body):
        sci_text, value_text, code_text = m.group(1), m.group(5), m.group(6)
    elif m := re.fullmatch(rf"({SCI}) \((\S+), {hexa}\)", body):
        sci_text, value_text, code_text = m.group(1), m.group(5), m.group(6)
    elif m := re.fullmatch(rf"(\S+) \({hexa}\)", body):
        sci_text, value_text, code_text = None, m.group(1), m.group(2)
    else:
        raise ExplanationError(f"{what}: not a value line: {text!r}")
    v = Value.of(value_text)
    code = int(code_text, 16)
    _require(len(code_text) - 2 == (fmt.bits + 3) // 4, f"{what}: {code_text} has the wrong width")
    if v.kind == "nan":
        _require(is_nan_code(code, fmt), f"{what}: {code_text} is not a NaN of {fmt.name}")
        quiet_bit = 1 << (fmt.mantissa_bits - 1) if fmt.mantissa_bits else 0
        v.signalling = fmt.nan_encoding == "ieee" and not code & quiet_bit
    else:
        _require(code == expected_code(v, fmt), f"{what}: {code_text} is not the code of {v}")
    if sci_text is not None:
        _require(v.kind == "finite" and v.value != 0, f"{what}: binary of a non-number")
        parts = _sci(sci_text, what)
        check_sci(parts, Real(v.value), what, lead(v.value, fmt))
        _require(frac_bits(parts[1]) == fmt.mantissa_bits, f"{what}: not {fmt.mantissa_bits} bits")
    else:
        _require(not (v.kind == "finite" and v.value != 0), f"{what}: finite without its bits")
    return v


def given_value(text: str) -> Fraction | None:
    """The exact value of an input as ``short_repr`` prints it (None: inf, NaN, or
    a form this reader does not take, such as a huge int's magnitude)."""
    try:
        if text[0] in "'\"":
            inner = text[1:-1]
            if inner.strip().lower().lstrip("+-") in ("inf", "infinity", "nan", "snan"):
                return None
            return Fraction(inner.replace("_", ""))
        if text.lstrip("-") in ("inf", "nan"):
            return None
        if re.fullmatch(r"-?\d+", text):
            return Fraction(int(text))
        return Fraction(float(text))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def oracle(x: Fraction, fmt: Format, mode: str, overflow: str | None) -> Value:
    """The stored value for the exact ``x``: the tests' oracles, then the
    overflow policy ("saturate": +-max for a finite x that overflows)."""
    mode = "nearest_even" if mode == "stochastic" else mode
    if fmt.tabulated:
        r = oracle_round(x, fmt, mode)
    else:
        r = round_exact(x, fmt, mode)
    if isinstance(r, str):
        top = finite_values(fmt)[-1] if fmt.tabulated else format_max(fmt)
        if overflow == "saturate" and abs(x) > top and (fmt.is_signed or x > 0):
            return Value("finite", -top if x < 0 else top, x < 0)
        if r == "nan":
            return Value("nan", Fraction(0), False)
        return Value("inf", Fraction(0), r.startswith("-"))
    negative = r < 0 or (r == 0 and x < 0 and fmt.has_negative_zero)
    return Value("finite", r, negative)


# -- the exact result, by IEEE 754's rules --------------------------------------------


@dataclass
class Expected:
    exact: Real | None  # the finite exact result
    special: str | None = None  # "nan", "inf", "-inf"
    invalid: bool = False
    div0: bool = False
    zero_neg: bool = False  # the sign IEEE 754 gives an exact zero
    rule: str = ""  # which zero rule applies


def _sum_zero(x_neg: bool, x_zero: bool, y_neg: bool, y_zero: bool, mode: str) -> tuple[bool, str]:
    if x_zero and y_zero and x_neg == y_neg:
        return x_neg, "same sign"
    return mode == "down", "exact zero sum"


def _inf(neg: bool) -> Expected:
    return Expected(None, "-inf" if neg else "inf")


def expected_result(op: str, xs: list[Value], mode: str) -> Expected:
    nan = Expected(None, "nan", invalid=True)
    if any(x.kind == "nan" for x in xs):
        return Expected(None, "nan", invalid=any(x.signalling for x in xs))
    if op == "sub":
        op, xs = "add", [xs[0], Value(xs[1].kind, -xs[1].value, not xs[1].neg)]
    inf = [x.kind == "inf" for x in xs]
    zero = [x.zero for x in xs]
    if op == "add":
        if all(inf):
            return nan if xs[0].neg != xs[1].neg else _inf(xs[0].neg)
        if any(inf):
            return _inf(xs[0].neg if inf[0] else xs[1].neg)
        neg, rule = _sum_zero(xs[0].neg, zero[0], xs[1].neg, zero[1], mode)
        return Expected(Real(xs[0].value + xs[1].value), zero_neg=neg, rule=rule)
    if op in ("mul", "fma"):
        if (inf[0] and zero[1]) or (zero[0] and inf[1]):
            return nan
        sign = xs[0].neg != xs[1].neg
        if inf[0] or inf[1]:
            if op == "fma" and inf[2] and xs[2].neg != sign:
                return nan
            return _inf(sign)
        if op == "mul":
            return Expected(Real(xs[0].value * xs[1].value), zero_neg=sign, rule="xor")
        if inf[2]:
            return _inf(xs[2].neg)
        product = xs[0].value * xs[1].value
        neg, rule = _sum_zero(sign, product == 0, xs[2].neg, zero[2], mode)
        return Expected(Real(product + xs[2].value), zero_neg=neg, rule=rule)
    if op == "div":
        sign = xs[0].neg != xs[1].neg
        if all(inf) or all(zero):
            return nan
        if inf[0]:
            return _inf(sign)
        if inf[1]:
            return Expected(Real(Fraction(0)), zero_neg=sign, rule="xor")
        if zero[1]:
            result = _inf(sign)
            result.div0 = True
            return result
        return Expected(Real(xs[0].value / xs[1].value), zero_neg=sign, rule="xor")
    if op == "sqrt":
        if xs[0].neg and not zero[0]:
            return nan
        if inf[0]:
            return _inf(False)
        v = xs[0].value  # dyadic: p / q with q a power of two; sqrt = sqrt(p q) / q
        r = math.isqrt(v.numerator * v.denominator)
        if r * r == v.numerator * v.denominator:
            return Expected(Real(Fraction(r, v.denominator)), zero_neg=xs[0].neg, rule="sqrt")
        return Expected(Real(v, root=True), zero_neg=xs[0].neg, rule="sqrt")
    # remainder
    if inf[0] or zero[1]:
        return nan
    if inf[1]:
        return Expected(Real(xs[0].value), zero_neg=xs[0].neg, rule="remainder")
    n = round(xs[0].value / xs[1].value)  # Fraction.__round__: ties to even
    return Expected(Real(xs[0].value - n * xs[1].value), zero_neg=xs[0].neg, rule="remainder")


def stored_special(special: str, fmt: Format, overflow: str | None) -> Value:
    """What an exact infinity or NaN is stored as."""
    if special == "nan":
        return Value("nan", Fraction(0), False)
    neg = special == "-inf"
    if fmt.nan_encoding in ("ieee", "p3109"):
        return Value("inf", Fraction(0), neg)
    if overflow == "saturate" or fmt.nan_encoding == "none":
        top = finite_values(fmt)[-1] if fmt.tabulated else format_max(fmt)
        return Value("finite", -top if neg else top, neg)
    return Value("nan", Fraction(0), False)


# -- reading the text ----------------------------------------------------------------


def read_steps(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The title and the (label, text) steps, wrapped lines joined, spaces collapsed."""
    lines = text.splitlines()
    steps: list[tuple[str, str]] = []
    for line in lines[1:]:
        _require(line.startswith("  "), f"not a step: {line!r}")
        label, body = line[2:12].strip(), line[13:]
        if not label and body.startswith("  "):
            _require(bool(steps), "a continuation line first")
            steps[-1] = (steps[-1][0], steps[-1][1] + " " + body.strip())
        else:
            steps.append((label, body))
    return lines[0], [(label, " ".join(body.split())) for label, body in steps]


class Cursor:
    def __init__(self, steps: list[tuple[str, str]]) -> None:
        self.steps, self.i = steps, 0

    def peek(self) -> str | None:
        return self.steps[self.i][0] if self.i < len(self.steps) else None

    def take(self, label: str) -> str:
        _require(self.i < len(self.steps), f"missing the {label!r} line")
        found, body = self.steps[self.i]
        _require(found == label, f"expected a {label!r} line, got {found!r}: {body!r}")
        self.i += 1
        return body

    def match(self, label: str, pattern: str) -> re.Match[str]:
        body = self.take(label)
        m = re.fullmatch(pattern, body)
        _require(m is not None, f"{label!r} line does not read as expected: {body!r}")
        assert m is not None
        return m

    def done(self) -> None:
        _require(self.i == len(self.steps), f"unexpected lines: {self.steps[self.i :]}")


def same(a: Value, b: Value) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "nan":
        return True
    return a.value == b.value and a.neg == b.neg


def check_number(text: str, x: Fraction, what: str) -> None:
    """An exact decimal, or an approximation ending in ``...`` (6 digits at least)."""
    if text.endswith("..."):
        _close(text[:-3], x, what)
    else:
        _require(Fraction(text) == x, f"{what}: {text} is not {x}")


def _close(text: str, x: Fraction, what: str) -> None:
    """A decimal (``1.5e-300``, of any size) within 1e-5 relative of ``x``."""
    _require(abs(Fraction(text) - x) <= abs(x) / 10**5, f"{what}: {text} is not {float_of(x)}")


def float_of(x: Fraction) -> float:
    """``float(x)``, inf beyond float64's range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _exact_decimal(x: Fraction) -> str:
    """All the digits of a dyadic ``x`` (no sign)."""
    k = x.denominator.bit_length() - 1
    digits = str(abs(x.numerator) * 5**k)
    if k == 0:
        return digits
    digits = digits.rjust(k + 1, "0")
    return f"{digits[:-k]}.{digits[-k:]}"


def _check_cut(text: str, x: Fraction, significant: int) -> None:
    """``d.ddd...`` or ``d.ddd...e+N``: the leading digits of ``x``, cut (not
    rounded); ``significant``: how many significant digits ``x`` has in all."""
    _require("..." in text, f"a cut decimal without '...': {text}")
    shown = Decimal(text.replace("...", ""))
    value = Fraction(shown)
    unit = Fraction(Decimal(1).scaleb(shown.as_tuple().exponent))
    _require((value < 0) == (x < 0) and 0 <= abs(x) - abs(value) < unit, f"{text} is not {x}")
    digits = _exact_decimal(x).replace(".", "").lstrip("0").rstrip("0")
    _require(len(digits) == significant, f"{significant} significant digits, exact {len(digits)}")


def _decimal_digits(x: Fraction) -> int:
    """Characters of the exact decimal expansion of a dyadic ``x``."""
    k = x.denominator.bit_length() - 1
    digits = str(abs(x.numerator) * 5**k)
    text = digits if k == 0 else digits.rjust(k + 1, "0")
    return len(text) + (1 if k else 0) + (1 if x < 0 else 0)


# -- the steps of a finite exact result --------------------------------------------


def _add_steps(c: Cursor, op: str, xs: list[Value], fmt: Format) -> int | None:
    m = fmt.mantissa_bits
    second = xs[1] if op == "add" else Value(xs[1].kind, -xs[1].value, not xs[1].neg)
    terms, names = [xs[0], second], ["a", "b" if op == "add" else "-b"]
    if op == "sub":
        written = c.match("negate", r"-b = (.+): a - b = a \+ \(-b\)").group(1)
        if second.zero:
            _require(_signed_zero(written) == second.neg, f"-b of {xs[1]} written {written}")
        else:
            check_sci(_sci(written, "-b"), Real(second.value), "-b", lead(second.value, fmt))
    if terms[0].zero and terms[1].zero:
        zeros = c.match(
            "add", r"\(([+-]0)\) \+ \(([+-]0)\): both terms are zero, the exact sum is 0"
        )
        _require([_signed_zero(zeros.group(i)) for i in (1, 2)] == [t.neg for t in terms], "zeros")
        return None
    exps = [lead(t.value, fmt) for t in terms]
    small, shift = None, 0
    align = c.take("align")
    if terms[0].zero or terms[1].zero:
        zero = 0 if terms[0].zero else 1
        _require(align == f"{names[zero]} is zero: nothing to shift", f"align: {align!r}")
        top = exps[1 - zero]
    elif exps[0] == exps[1]:
        top = exps[0]
        _require(align == f"same exponent 2^{top}: no shift", f"align: {align!r}")
    else:
        top, shift = max(exps), abs(exps[0] - exps[1])
        small = names[exps.index(min(exps))]
        s = "s" if shift > 1 else ""
        expected = (f"{small} has the smaller exponent: shift its significand right {shift} "
                    f"place{s}, to 2^{top}")  # fmt: skip
        _require(align == expected, f"align: {align!r}, expected {expected!r}")
        shifted = _sci(c.take(small)[2:], small)
        check_sci(shifted, Real(terms[names.index(small)].value), small, top)
        _require(frac_bits(shifted[1]) == m + shift, f"{small}: {m + shift} bits after the point")
    verb = "add" if terms[0].neg == terms[1].neg else "subtract"
    line = c.match(verb, rf"\(([+-])({BITS}|0) ([+-]) ({BITS}|0)\) x 2\^(-?\d+) = (.+)")
    _require(int(line.group(5)) == top, f"{verb}: at 2^{line.group(5)}, expected 2^{top}")
    for t, sign, bits in ((terms[0], line.group(1), line.group(2)), (terms[1], line.group(3),
                                                                    line.group(4))):  # fmt: skip
        _require((sign == "-") == t.neg, f"{verb}: sign {sign} of {t}")
        if t.zero:
            _require(bits == "0", f"{verb}: zero term written {bits}")
        else:
            check_bits(bits, Real(t.value), top, f"{verb} term")
    total = terms[0].value + terms[1].value
    if total == 0:
        _require(line.group(6) == "0", f"{verb}: an exact zero written {line.group(6)}")
    else:
        check_sci(_sci(line.group(6), verb), Real(total), f"{verb} total", top)
    return top


def _product_steps(c: Cursor, op: str, xs: list[Value], fmt: Format) -> int | None:
    verb, symbol, sign_of = ("multiply", "x", r"\+") if op == "mul" else ("divide", "/", "-")
    what = "product" if op == "mul" else "quotient"
    for name, x in zip("ab", xs, strict=True):
        if x.zero:
            _require(c.take(verb) == f"{name} = 0: the {what} is exactly 0", f"{verb} of a zero")
            return None
    if xs[1].kind == "inf":
        expected = "b is infinite and a is finite: the quotient is exactly 0"
        _require(c.take(verb) == expected, "x / inf")
        return None
    line = c.match(verb, rf"significands ({BITS}) {re.escape(symbol)} ({BITS}) = ({BITS})")
    ea, eb = lead(xs[0].value, fmt), lead(xs[1].value, fmt)
    sa, sb = abs(xs[0].value) / Fraction(2) ** ea, abs(xs[1].value) / Fraction(2) ** eb
    check_bits(line.group(1), Real(sa), 0, "significand of a")
    check_bits(line.group(2), Real(sb), 0, "significand of b")
    check_bits(line.group(3), Real(sa * sb if op == "mul" else sa / sb), 0, f"the {what}")
    exps = c.match("", rf"exponents (-?\d+) {sign_of} \(?(-?\d+)\)? = (-?\d+); sign ([+-])")
    shown = ea + eb if op == "mul" else ea - eb
    _require([int(exps.group(i)) for i in (1, 2, 3)] == [ea, eb, shown], f"exponents {exps[0]}")
    _require((exps.group(4) == "-") == (xs[0].neg != xs[1].neg), "sign of the result")
    return shown


def _root_steps(c: Cursor, xs: list[Value], fmt: Format) -> int | None:
    a = xs[0]
    if a.zero:
        z = "-0" if a.neg else "+0"
        _require(c.take("root") == f"sqrt({z}) = {z} (IEEE 754 keeps the sign of a zero)", "sqrt 0")
        return None
    pattern = (
        rf"sqrt\(({BITS}) x 2\^(-?\d+)\) = ({BITS}) x 2\^(-?\d+)"
        r"( \(the exponent (-?\d+) is odd: one factor 2 moves into the significand\))?"
    )
    line = c.match("root", pattern)  # fmt: skip
    e = lead(a.value, fmt)
    even, half = int(line.group(2)), int(line.group(4))
    _require(even == e - e % 2 and half * 2 == even, f"root exponents {line[0]}")
    _require((line.group(5) is not None) == bool(e % 2), "the odd-exponent note")
    if e % 2:
        _require(int(line.group(6)) == e, "the odd exponent")
    check_bits(line.group(1), Real(a.value), even, "the radicand")
    check_bits(line.group(3), Real(a.value, root=True), half, "the root")
    return half


def _fma_steps(c: Cursor, xs: list[Value], fmt: Format) -> None:
    product = xs[0].value * xs[1].value
    written = c.match("multiply", r"a x b = (.+) exactly \(not rounded\)").group(1)
    if product == 0:
        _require(_signed_zero(written) == (xs[0].neg != xs[1].neg), f"a x b = {written}")
    else:
        check_sci(_sci(written, "a x b"), Real(product), "a x b", _log2(abs(product)))
    total = product + xs[2].value
    written = c.match("add", r"a x b \+ c = (.+) exactly: one rounding follows").group(1)
    if total == 0:
        _require(written == "0", f"a x b + c = {written}")
    else:
        check_sci(_sci(written, "a x b + c"), Real(total), "a x b + c", _log2(abs(total)))


def _remainder_steps(c: Cursor, xs: list[Value]) -> None:
    if xs[1].kind == "inf":
        expected = "b is infinite and a is finite: n = 0, the remainder is a"
        _require(c.take("divide") == expected, "remainder(x, inf)")
        return
    a, b = xs[0].value, xs[1].value
    n = round(a / b)
    line = c.match("divide", r"a / b = (\S+); the nearest integer \(ties to even\) is n = (\S+)")
    check_number(line.group(1), a / b, "a / b")
    _require(line.group(2) == str(n) or not re.fullmatch(r"-?\d+", line.group(2)), "n")
    line = c.match("subtract", r"a - n x b = (\S+) - \((\S+)\) x (\S+) = (\S+): exact, always "
                   r"a value of the format")  # fmt: skip
    check_number(line.group(1), a, "a")
    check_number(line.group(3), b, "b")
    check_number(line.group(4), a - n * b, "a - n x b")


def _exact_line(c: Cursor, x: Real) -> None:
    body = c.take("exact")
    if x.is_zero():
        _require(body == "= 0", f"exact: {body!r} for 0")
    elif m := re.fullmatch(r"= (\S+)\.\.\. \((irrational: )?no finite binary expansion\)", body):
        _require(not x.dyadic and bool(m.group(2)) == x.root, f"exact: {body!r}")
        check_number(m.group(1) + "...", x.approx(), "exact")
    elif m := re.fullmatch(r"= (\S+) \((\d+) significant digits, cut\)", body):
        _require(x.dyadic, f"exact: {body!r}")
        _check_cut(m.group(1), x.value, int(m.group(2)))
    elif m := re.fullmatch(r"= (\S+) \((\d+) digits\)", body):
        _require(x.dyadic and int(m.group(2)) == _decimal_digits(x.value), f"exact: {body!r}")
        check_number(m.group(1) + "...", x.value, "exact")
    else:
        _require(x.dyadic, f"exact: {body!r}")
        check_number(body[2:], x.value, "exact")


def _magnitude_away(mode: str, negative: bool) -> str:
    """What a mode does to the magnitude: "toward", "away" or a nearest mode."""
    if mode == "toward_zero":
        return "toward"
    if mode in ("up", "down"):
        return "away" if (mode == "up") != negative else "toward"
    return mode


def round_unbounded(x: Real, m: int, mode: str) -> Fraction:
    """|x| rounded to m + 1 significant bits with an unbounded exponent range."""
    n = m - x.log2()
    q, exact = x.floor_scaled(n)
    if exact:
        return Fraction(q) / Fraction(2) ** n
    how = _magnitude_away(mode, x.negative)
    if how in ("nearest_even", "nearest_away", "stochastic"):
        q2, exact2 = x.floor_scaled(n + 1)
        if not q2 & 1:
            how = "toward"
        elif not exact2:
            how = "away"
        else:
            how = "away" if how == "nearest_away" or q & 1 else "toward"
    return Fraction(q + (how == "away")) / Fraction(2) ** n


def _round_steps(c: Cursor, x: Real, shown: int | None, fmt: Format, mode: str) -> tuple[
        Fraction, Fraction, bool]:  # fmt: skip
    """Check normalization and rounding; return the truncated magnitude, the ULP
    there, and whether the rounding is settled (the stochastic line read, or
    E8M0's smallest value)."""
    m, e = fmt.mantissa_bits, x.log2()
    k = max(e, fmt.emin)
    if (shown is not None and shown != e) or c.peek() == "normalize":
        line = c.match("normalize", rf"= ({SCI}) \(the leading 1 moves to 2\^(-?\d+)\)")
        check_sci((line.group(2), line.group(3), line.group(4)), x, "normalize", e)
        _require(int(line.group(5)) == e, "normalize: the leading 1's power")
    if not fmt.has_subnormals and e < fmt.emin:
        line = c.match("round", r"below the smallest value 2\^(-?\d+), with no subnormals or "
                       r"zero: (.+)")  # fmt: skip
        _require(int(line.group(1)) == fmt.emin, "the smallest value")
        toward = _magnitude_away(mode, x.negative) == "toward"
        if mode != "stochastic":  # else either
            _require(("NaN" in line.group(2)) == toward, f"below the smallest value: {line[0]}")
        return Fraction(0), Fraction(2) ** fmt.emin, True
    if e < fmt.emin:
        line = c.match("subnormal", rf"below the smallest normal 2\^(-?\d+): written ({SCI}), "
                       r"so fewer significant bits are kept")  # fmt: skip
        _require(int(line.group(1)) == fmt.emin, "the smallest normal")
        check_sci((line.group(3), line.group(4), line.group(5)), x, "subnormal", fmt.emin)
    body = c.take("round")
    ulp = Fraction(2) ** (k - m)
    q, exact = x.floor_scaled(m - k)
    trunc = q * ulp
    if fits := re.fullmatch(rf"([+-])({BITS}) x 2\^(-?\d+) fits in (\d+) bits after the point: "
                            r"exact", body):  # fmt: skip
        _require(exact and int(fits.group(4)) == m, f"round: {body!r} but it is not exact")
        check_sci((fits.group(1), fits.group(2), fits.group(3)), x, "round", k)
        return trunc, ulp, False
    if past := re.fullmatch(rf"([+-])({BITS}) x 2\^(-?\d+) fits in (\d+) bits after the point, "
                            r"but lies past the largest finite value, (\S+)", body):  # fmt: skip
        _require(exact and trunc > top_of(fmt) and int(past.group(4)) == m, f"round: {body!r}")
        check_sci((past.group(1), past.group(2), past.group(3)), x, "round", k)
        _require(float(past.group(5)) == float(top_of(fmt)), f"round: {body!r}")
        return trunc, ulp, False
    keep = re.fullmatch(rf"keep (\d+) bits after the point: ([+-])({BITS})\|({BITS}) x "
                        r"2\^(-?\d+)", body)  # fmt: skip
    _require(keep is not None and not exact, f"round: {body!r}")
    assert keep is not None
    _require(int(keep.group(1)) == m and int(keep.group(5)) == k, f"round: {body!r} (2^{k})")
    _require((keep.group(2) == "-") == x.negative, "round: sign")
    kept, dropped = keep.group(3), keep.group(4)
    length, head, _ = _unabbreviate(kept)
    _require(length - head.index(".") - 1 == m, f"round: {kept!r} does not keep {m} bits")
    d_length, d_head, d_tail = _unabbreviate(dropped)
    full = render(x, k, m + d_length - 3 * (d_tail or d_head).endswith("..."))
    _require(_agrees(full[:length], kept) and _agrees(full[length:], dropped),
             f"round: {kept}|{dropped} is not {full}")  # fmt: skip
    if mode == "stochastic" and trunc <= top_of(fmt):
        line = c.match("", r"stochastic: away from zero with probability (\S+), the dropped part "
                       r"in ULPs -> (\S+) this time")  # fmt: skip
        p = (abs(x.approx()) - trunc) / ulp
        chance = line.group(1)
        if re.fullmatch(r"\d+(/\d+)?", chance):
            _require(Fraction(chance) == p, f"probability {chance}, exact {p}")
        elif chance.startswith("1-"):
            _close(chance[2:], 1 - p, "probability")
        else:
            _close(chance, p, "probability")
        return trunc, ulp, True
    if trunc <= top_of(fmt):
        g = x.floor_scaled(m - k + 1)[0] & 1
        r_bit, rest_exact = x.floor_scaled(m - k + 2)
        line = c.match("", r"guard bit (\d) \(the first bit dropped\), round bit (\d) \(the "
                       r"next\), sticky bit (\d) \(the OR of all later bits\)")  # fmt: skip
        sticky = int(not rest_exact)
        _require([int(line.group(i)) for i in (1, 2, 3)] == [g, r_bit & 1, sticky], line[0])
    return trunc, ulp, False


def top_of(fmt: Format) -> Fraction:
    return finite_values(fmt)[-1] if fmt.tabulated else format_max(fmt)


def _direction_line(c: Cursor, x: Real, fmt: Format, mode: str, trunc: Fraction, ulp: Fraction,
                    stored: Value) -> None:  # fmt: skip
    """The reason: the dropped bits' verdict, the direction, what the format does."""
    body = c.take("")
    if mode == "stochastic":  # past the largest value
        _require(body.startswith("stochastic, past the largest finite value"), body)
        return
    _require(body.count(" -> ") == 1, f"no single direction: {body!r}")
    why, after = body.split(" -> ")
    away = after.startswith("away from zero")
    _require(away or after.startswith("toward zero"), f"direction: {after!r}")
    top, beyond = top_of(fmt), trunc > top_of(fmt)
    how = _magnitude_away(mode, x.negative)
    if how in ("toward", "away"):
        _require(away == (how == "away"), f"{mode} of {x}: {body!r}")
        if mode == "toward_zero":
            _require(why == "drop the extra bits (truncate)", why)
        else:
            sign = "negative" if x.negative else "positive"
            _require(why == f"{MODE_NAMES[mode]}, and the number is {sign}", why)
    else:
        q2, exact2 = x.floor_scaled(fmt.mantissa_bits - max(x.log2(), fmt.emin) + 1)
        tie = bool(q2 & 1) and exact2
        if beyond:
            _require(why.startswith("past the largest finite value by a whole ULP or more"), why)
            _require(away, "nearest, past the largest value: away")
        elif not q2 & 1:
            _require(why.startswith("guard bit 0: less than half") and not away, body)
        elif not tie:
            _require(why.startswith("guard bit 1, round/sticky bits not both 0") and away, body)
        else:
            _require(why.startswith("guard 1, round 0, sticky 0: exactly halfway"), body)
            if mode == "nearest_away":
                _require(away, body)
            elif fmt.mantissa_bits:
                q = int(trunc / ulp)
                _require(away == bool(q & 1), f"ties to even from {q}: {body!r}")
    magnitude = abs(stored.value)
    signed_top = float(-top if x.negative else top)
    if not away and beyond:
        _require(stored.kind == "finite" and magnitude == top, "toward zero past max: max")
        _require(after.endswith(f"the largest finite value is the nearest toward zero: "
                                f"{signed_top!r}"), after)  # fmt: skip
    elif not away:
        _require(stored.kind == "finite" and magnitude == trunc, f"toward zero: {stored}")
    elif not beyond and trunc + ulp <= top:
        _require(stored.kind == "finite" and magnitude == trunc + ulp, f"away: {stored}")
    elif stored.kind == "finite":
        _require(magnitude == top and "no larger finite value" in after, f"saturation: {after}")
        _require(after.endswith(f"the largest, {signed_top!r}"), after)
    else:
        shown = "nan" if stored.kind == "nan" else ("-inf" if stored.neg else "inf")
        _require(after.endswith(f"no finite value there: {fmt.name} gives {shown}"), after)


def _zero_rule(exp: Expected, op: str) -> str:
    if exp.rule == "same sign":
        return "a sum of two zeros of the same sign keeps it"
    if exp.rule == "exact zero sum":
        return "an exact zero sum is +0, or -0 when rounding down (IEEE 754)"
    if exp.rule == "xor":
        what = "product" if op == "mul" else "quotient"
        return f"a zero {what} takes the XOR of the operands' signs"
    if exp.rule == "sqrt":
        return "sqrt keeps the sign of a zero"
    return "a zero remainder takes the sign of a"


# -- the whole explanation --------------------------------------------------------


_LOUD = ("overflow", "underflow", "invalid")


def _operand_flags(text: str, given: Fraction | None, fmt: Format, mode: str) -> list[str]:
    """An operand's flags line (``overflow, inexact: above the largest value...``):
    the loud flags it names, checked against the given value where it is a number."""
    names = text.split(":")[0].split(", ")
    _require(set(names) <= {"invalid", "division_by_zero", "overflow", "underflow", "inexact"},
             f"operand flags: {text!r}")  # fmt: skip
    if given is not None and given != 0:
        mode = "nearest_even" if mode == "stochastic" else mode
        rounded = round_unbounded(Real(given), fmt.mantissa_bits, mode)
        unsigned_negative = given < 0 and not fmt.is_signed
        if not unsigned_negative:
            _require(("overflow" in names) == (rounded > top_of(fmt)), f"operand flags: {text!r}")
    return [f for f in _LOUD if f in names]


def _operands(
    c: Cursor, arity: int, fmt: Format, mode: str, overflow: str | None
) -> tuple[list[Value], list[str]]:
    """The operands, checked, and the loud flags of each (``"a overflow"``)."""
    xs, loud = [], []
    for name in "abc"[:arity]:
        body, given = c.take(name), None
        rounded = re.fullmatch(rf"(.+) is not a {re.escape(fmt.name)} value: rounded to (\S+) "
                               r"\((0x[0-9A-F]+)\), error (\S+)", body)  # fmt: skip
        if rounded is not None:
            given = given_value(rounded.group(1))
            body = c.take("")
        if not body.startswith("= "):
            flags = _operand_flags(body, given, fmt, mode)
            if flags:
                loud.append(f"{name} {', '.join(flags)}")
            body = c.take("")
        v = check_value_line(body, fmt, name)
        if rounded is not None:
            _require(float(rounded.group(2)) == float(v.value) or v.kind != "finite", name)
            if given is not None:
                want = oracle(given, fmt, mode, overflow)
                if given == 0:
                    want.neg = v.neg  # the sign of a zero comes from the text
                _require(same(v, want), f"operand {name}: {given} rounds to {want}, not {v}")
                if v.kind == "finite":
                    error = f"{float_of(abs(given - v.value)):.3g}"
                    _require(rounded.group(4) == error, f"operand {name}: error {error}")
        xs.append(v)
    return xs, loud


def _check_sign_op(c: Cursor, op: str, x: Value, fmt: Format, stored: Value) -> set[str]:
    body = c.take(op)
    if x.kind == "nan":
        if fmt.tabulated and not (fmt.nan_encoding == "fn" and fmt.is_signed):
            _require(body == f"the one NaN of {fmt.name} has no sign: NaN, no flags", body)
        else:
            _require(body == "only the sign bit changes: still NaN, no flags", body)
        _require(stored.kind == "nan", "NaN stays NaN")
        return set()
    if op == "neg" and not fmt.is_signed:
        _require(body == f"{fmt.name} has no sign: -a has no value: NaN (invalid operation)", body)
        _require(stored.kind == "nan", "neg in an unsigned format: NaN")
        return {"invalid"}
    want = Value(
        x.kind, -x.value if op == "neg" else abs(x.value), not x.neg if op == "neg" else False
    )
    if op == "neg" and x.zero and not fmt.has_negative_zero:
        _require(body == f"{fmt.name} has no -0: -(+0) is +0, no flags", body)
        want.neg = False
    else:
        what = "-a flips it" if op == "neg" else "|a| clears it"
        _require(body == f"only the sign bit changes: {what}; no rounding, no flags", body)
    _require(same(stored, want), f"{op}({x}) = {stored}, expected {want}")
    return set()


def _check_special(body: str, exp: Expected, xs: list[Value], fmt: Format) -> None:
    if any(x.kind == "nan" for x in xs):
        if exp.invalid:
            _require(body == "a signalling NaN operand: invalid operation, the result is NaN", body)
        else:
            _require(body == "a NaN operand: the result is NaN (no flag for a quiet NaN)", body)
    elif exp.invalid:
        _require(body.endswith(": invalid operation, the result is NaN"), body)
    elif exp.div0:
        _require(body.startswith("a nonzero number over zero: an exact infinity"), body)
    else:
        _require(any(x.kind == "inf" for x in xs), f"{body!r} without an infinite operand")
        sign = "-" if exp.special == "-inf" else "+"
        _require(body == f"an infinite operand: the exact result is {sign}inf", body)


def check_explanation(
    text: str, op: str, fmt: Format, mode: str, overflow: str | None = None
) -> None:
    """Raise :class:`ExplanationError` unless every line of ``text`` (what
    ``str(fpexplore.<op>(..., fmt, mode, overflow=overflow))`` printed) holds."""
    title, steps = read_steps(text)
    saturating = "; overflow saturates" if overflow == "saturate" else ""
    _require(title.endswith(f" in {fmt.name} ({MODE_NAMES[mode]}{saturating})"), title)
    where = [label for label, _ in steps].index("result")
    c = Cursor(steps[:where])
    stored = check_value_line(steps[where][1], fmt, "result")
    tail = Cursor(steps[where + 1 :])
    arity = {"sqrt": 1, "neg": 1, "abs": 1, "fma": 3}.get(op, 2)
    xs, loud = _operands(c, arity, fmt, mode, overflow)
    if op in ("neg", "abs"):
        flags = _check_sign_op(c, op, xs[0], fmt, stored)
        c.done()
        _check_flags(tail, flags, loud=loud)
        return
    exp = expected_result(op, xs, mode)
    if exp.exact is None:
        assert exp.special is not None
        _check_special(c.take("special"), exp, xs, fmt)
        c.done()
        _require(same(stored, stored_special(exp.special, fmt, overflow)), f"stored {stored}")
        expected = {"invalid"} if exp.invalid else {"division_by_zero"} if exp.div0 else set()
        _check_flags(tail, expected, loud=loud)
        return
    x = exp.exact
    if op in ("add", "sub"):
        shown = _add_steps(c, op, xs, fmt)
    elif op in ("mul", "div"):
        shown = _product_steps(c, op, xs, fmt)
    elif op == "sqrt":
        shown = _root_steps(c, xs, fmt)
    elif op == "fma":
        shown = _fma_steps(c, xs, fmt)
    else:
        shown = _remainder_steps(c, xs)
    _exact_line(c, x)
    flags: set[str] = set()
    if x.is_zero():
        if fmt.tabulated and finite_values(fmt)[0] != 0:  # E8M0: no zero
            _require("has no zero" in c.take("special"), "zero in a format without zero")
            _require(stored.kind == "nan", "no zero: NaN")
            flags = {"invalid"}
        else:
            line = c.match("zero", r"(.+?): ([+-]0)(; (\S+) has no -0: \+0)?")
            _require(line.group(1) == _zero_rule(exp, op), f"zero rule: {line.group(1)!r}")
            _require(_signed_zero(line.group(2)) == exp.zero_neg, f"zero sign {line.group(2)}")
            no_minus_zero = exp.zero_neg and not fmt.has_negative_zero
            _require((line.group(3) is not None) == no_minus_zero, "the no -0 note")
            want = Value("finite", Fraction(0), exp.zero_neg and fmt.has_negative_zero)
            _require(same(stored, want), f"zero stored as {stored}")
        c.done()
    elif x.negative and not fmt.is_signed:
        _require("has no value for it (no sign)" in c.take("special"), "negative in E8M0")
        _require(stored.kind == "nan", "negative in an unsigned format: NaN")
        c.done()
        flags = {"invalid"}
    else:
        trunc, ulp, stochastic = _round_steps(c, x, shown, fmt, mode)
        if c.peek() == "":
            _direction_line(c, x, fmt, mode, trunc, ulp, stored)
        if mode == "stochastic":
            inexact = trunc != abs(x.approx(300))
            _require(stochastic or not inexact or trunc > top_of(fmt), "the stochastic line")
            magnitude = abs(stored.value) if stored.kind == "finite" else None
            below_least = stored.kind == "nan" and trunc == 0  # E8M0: NaN toward zero
            settled = magnitude in (trunc, trunc + ulp) or below_least
            _require(settled or trunc + ulp > top_of(fmt), f"stochastic gave {stored}")
        else:
            want = oracle(x.approx(300) if x.root else x.value, fmt, mode, overflow)
            _require(same(stored, want), f"stored {stored}, the oracle gives {want}")
        c.done()
        flags = _flags(x, stored, fmt, mode)
    _check_error(tail, x, stored, fmt)
    _check_flags(tail, flags, partial=mode == "stochastic", loud=loud)


def _flags(x: Real, stored: Value, fmt: Format, mode: str) -> set[str]:
    flags = set()
    value = x.approx(300)
    if stored.kind != "finite" or stored.value != value:
        flags.add("inexact")
        rounded = round_unbounded(x, fmt.mantissa_bits, mode)
        if rounded > top_of(fmt):
            flags.add("overflow")
        elif rounded < Fraction(2) ** fmt.emin:
            flags.add("underflow")
    return flags


def _check_error(tail: Cursor, x: Real, stored: Value, fmt: Format) -> None:
    if stored.kind != "finite":
        return
    line = tail.match("error", r"abs (\S+) rel (\S+) (\S+) ULP")
    exact = x.approx(300)
    error = abs(stored.value - exact)
    _require(line.group(1) == f"{float_of(error):.5g}", f"abs error {line.group(1)}")
    rel = error / abs(exact) if exact else Fraction(0)
    _require(line.group(2) == f"{float_of(rel):.5g}", f"rel error {line.group(2)}")
    spacing = Fraction(2) ** ((max(x.log2(), fmt.emin) if exact else fmt.emin) - fmt.mantissa_bits)
    _require(line.group(3) == f"{float_of(error / spacing):.4g}", f"ULP error {line.group(3)}")


def _check_flags(
    tail: Cursor, flags: set[str], partial: bool = False, loud: list[str] | None = None
) -> None:
    body = tail.take("flags")
    tail.done()
    if loud:
        suffix = f" (this operation); on the way in: {'; '.join(loud)}"
        _require(body.endswith(suffix), f"flags {body!r}: expected {suffix!r}")
        body = body[: -len(suffix)]
    printed = set() if body == "none" else set(body.split(", "))
    if partial:  # stochastic: the draw decides inexact and the rest
        _require(flags - {"inexact", "overflow", "underflow"} <= printed, f"flags {body}")
    else:
        _require(printed == flags, f"flags {body!r}, expected {sorted(flags)}")
