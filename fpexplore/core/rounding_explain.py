"""Why a number rounds the way it does: neighbours, guard/round/sticky bits, each mode's pick.

:func:`explain_rounding` places an exact input between its two neighbouring
representable values, reads the bits that rounding throws away (guard, round
and sticky bits) and says which neighbour each IEEE rounding mode picks and
why. The results themselves come from :func:`fpexplore.decode`; this module
only explains them (:mod:`fpexplore.explain.rounding` draws the pictures). Needs
numpy alone (the widgets and the CLI both use it). Longer than 300 lines because
it spells out a reason for each of the six modes; it has one job, the explanation.

Examples
--------
>>> ex = explain_rounding("0.1", "float16")
>>> ex.below.value, ex.above.value
(0.0999755859375, 0.10003662109375)
>>> ex.guard, ex.round, ex.sticky
(0, 1, 1)
>>> ex.choices["nearest_even"].picks, ex.choices["up"].picks
('below', 'above')
>>> ex.probability_above  # stochastic rounding: (x - below) / (above - below)
Fraction(2, 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..exact import (
    ROUNDING_NAMES,
    check_overflow,
    parse_real,
    round_real,
    to_float,
    ulp_exponent,
)
from ..formats import Format, FormatLike, get_format
from .decode import FloatParts

__all__ = ["MODES", "STOCHASTIC", "ModeChoice", "RoundingExplanation", "explain_rounding"]

MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down")
"""The deterministic rounding modes, as :func:`fpexplore.decode` names them."""

STOCHASTIC = "stochastic"
"""Stochastic rounding: ``above`` with probability :attr:`RoundingExplanation.probability_above`."""


@dataclass(frozen=True)
class ModeChoice:
    """What one rounding mode does with the input.

    Attributes
    ----------
    rounding : str
        The mode, e.g. ``"nearest_even"``.
    result : FloatParts
        ``decode(input, format, rounding=rounding)``.
    picks : str
        ``"below"`` or ``"above"`` (the neighbour chosen, in value order),
        ``"exact"`` (no rounding needed) or ``"beyond"`` (no finite value there:
        overflow to inf, NaN, or saturation to max, as the format dictates).
    away : bool
        Whether the mode rounds the magnitude up (away from zero); worked out
        from the dropped bits alone, independently of ``result``.
    reason : str
        One sentence saying why.
    """

    rounding: str
    result: FloatParts
    picks: str
    away: bool
    reason: str


@dataclass(frozen=True)
class RoundingExplanation:
    """An input between its neighbours in a format, and what each mode makes of it.

    Attributes
    ----------
    input : Any
        The input as given.
    format : Format
    exact : Fraction or None
        The input's exact value (None for inf / NaN).
    below, above : FloatParts
        The largest representable value <= input (rounding ``down``) and the
        smallest >= input (rounding ``up``); both are the input when it is
        representable. Above the largest finite value ``above`` is inf (IEEE),
        NaN (``fn`` formats) or max itself (saturating formats).
    spacing : Fraction or None
        The gap (one ULP) between the neighbours, measured from the neighbour
        nearer zero.
    position : Fraction or None
        How far past the neighbour nearer zero the input lies, in ULPs (0 <= position).
        At least 1 means it is past the largest finite value by a whole ULP.
    guard, round, sticky : int or None
        The first and second bits after the last mantissa bit kept, and the OR
        of all later bits (None for inf / NaN or when ``position >= 1``).
    choices : dict of str to ModeChoice
        One per mode in :data:`MODES`.
    rounding : str
        The mode of interest; ``result`` is its pick. Under ``"stochastic"``, which
        has no single pick, ``result`` is the likelier neighbour (round to nearest's)
        and :attr:`probability_above` says how likely each one is.
    """

    input: Any
    format: Format
    exact: Fraction | None
    below: FloatParts
    above: FloatParts
    spacing: Fraction | None
    position: Fraction | None
    guard: int | None
    round: int | None
    sticky: int | None
    choices: dict[str, ModeChoice]
    rounding: str = "nearest_even"

    @property
    def result(self) -> FloatParts:
        """The value the selected rounding mode gives (see ``rounding``)."""
        mode = "nearest_even" if self.rounding == STOCHASTIC else self.rounding
        return self.choices[mode].result

    @property
    def probability_above(self) -> Fraction | None:
        """The chance that stochastic rounding picks ``above``, exactly:
        ``(x - below) / (above - below)``, the distance from the lower neighbour divided
        by the spacing; ``below`` gets the rest. None when there is nothing to choose
        (exact input, inf / NaN, or beyond the largest finite value)."""
        if self.is_exact or not (self.above.is_finite and self.below.is_finite):
            return None
        if self.below.code == self.above.code:
            return None
        low, high = self.below.exact, self.above.exact
        assert self.exact is not None and low is not None and high is not None  # all finite
        return (self.exact - low) / (high - low)

    def _chance_text(self, above: bool) -> str:
        """The probability of picking ``above`` (or ``below``) as a short fraction, or a
        decimal when the fraction is too long to read."""
        p = self.probability_above
        if p is None:
            return ""
        chance = p if above else 1 - p
        return str(chance) if chance.denominator < 10**9 else f"{float(chance):.6g}"

    def _stochastic_line(self) -> str:
        if self.probability_above is None:
            return "nothing to choose: as round to nearest"
        return (
            f"{self.below.value!r} with probability {self._chance_text(False)}, "
            f"{self.above.value!r} with probability {self._chance_text(True)} "
            "= (x - below) / spacing"
        )

    @property
    def is_exact(self) -> bool:
        """True when the input is representable (or inf / NaN)."""
        return self.position is None or self.position == 0

    @property
    def out_of_domain(self) -> bool:
        """True for a number the format has no value near on one side or both:
        a negative number in an unsigned format, zero or a value below
        ``2**-127`` in E8M0 (there the modes that find no value give NaN)."""
        finite = self.below.is_finite and self.above.is_finite
        return self.exact is not None and self.position is None and not finite

    @property
    def is_tie(self) -> bool:
        """True when the input is exactly halfway between its neighbours."""
        return self.position == Fraction(1, 2)

    def _where(self) -> list[str]:
        """Where the input lies (for the text and HTML forms)."""
        if self.exact is None:
            return [f"special value: {self.result.value!r} ({self.result.hex})"]
        if self.out_of_domain:
            return [f"outside the values of {self.format.name}: no value on one side or both"]
        if self.is_exact:
            return [f"exactly representable: {self.below.value!r} ({self.below.hex})"]
        assert self.position is not None  # set for every finite input that is not exact
        if self.position > 1 or self.below.code == self.above.code:
            largest = f"{self.below.value!r} ({self.below.hex})"
            return [f"beyond the largest finite value, {largest}: it overflows"]
        lines = [
            f"between {self.below.value!r} ({self.below.hex}) and "
            f"{self.above.value!r} ({self.above.hex})",
            f"{to_float(self.position):.6g} ULP past the one nearer zero",
        ]
        if self.guard is not None:
            lines.append(
                f"dropped bits: guard {self.guard}, round {self.round}, sticky {self.sticky}"
            )
        return lines

    def __str__(self) -> str:
        from ..render.text import short_repr  # rendering helpers live above the core

        lines = [
            f"{short_repr(self.input)} in {self.format.name}",
            *(f"  {w}" for w in self._where()),
        ]
        for mode, choice in self.choices.items():
            mark = "*" if mode == self.rounding else " "
            lines.append(f"{mark} {mode:<13} {choice.result.value!r:<22} {choice.reason}")
        mark = "*" if self.rounding == STOCHASTIC else " "
        lines.append(f"{mark} {STOCHASTIC:<13} {self._stochastic_line()}")
        return "\n".join(lines)

    def to_svg(self, width: int = 560) -> str:
        """A number-line picture: the two neighbours, the halfway point, the input
        and the selected mode's pick (a self-contained SVG string)."""
        from ..explain.rounding import to_svg  # rendering lives above the core

        return to_svg(self, width)

    def _repr_html_(self) -> str:
        """The picture, the dropped bits and a table of every mode's pick (the
        selected one in bold), as static HTML."""
        from ..explain.rounding import to_html

        return to_html(self)


def _picks(result: FloatParts, ex: RoundingExplanation, nearer_zero: FloatParts) -> str:
    if ex.is_exact:
        return "exact"
    assert ex.exact is not None and ex.position is not None  # finite and not representable
    if result.code == nearer_zero.code:
        return "above" if ex.exact < 0 else "below"
    if not result.is_finite or ex.position >= 1:
        return "beyond"
    return "below" if ex.exact < 0 else "above"


def _direction(mode: str, ex: RoundingExplanation) -> tuple[bool, str]:
    """Whether ``mode`` rounds the magnitude away from zero, and why, from the
    dropped bits alone."""
    assert ex.exact is not None and ex.position is not None  # finite and not representable
    pos, negative = ex.position, ex.exact < 0
    if pos >= 1:
        how = "past the largest finite value by a whole ULP or more"
    elif ex.guard == 0:
        how = "guard bit 0: less than half an ULP past the value nearer zero"
    elif not ex.is_tie:
        how = "guard bit 1, round/sticky bits not both 0: more than halfway"
    else:
        how = "guard 1, round 0, sticky 0: exactly halfway (a tie)"
    if mode == "nearest_even" and ex.is_tie:
        nearer_zero = ex.above if negative else ex.below
        away = bool(nearer_zero.code & 1)  # its last mantissa bit is 1: odd
        rule = "whose last mantissa bit is 0"
        if ex.format.mantissa_bits == 0 and not ex.format.ties_to_even_code:
            away, rule = nearer_zero.exact != 0, "with the even significand (here the larger)"
        elif ex.format.mantissa_bits == 0:
            rule = "whose code is even (P3109, as gfloat)"
        return away, f"{how}; ties to even takes the neighbour {rule}"
    if mode in ("nearest_even", "nearest_away"):
        tie_rule = "; ties go away from zero" if ex.is_tie else ""
        return pos >= Fraction(1, 2), how + tie_rule
    if mode == "toward_zero":
        return False, "drop the extra bits (truncate)"
    sign = "negative" if negative else "positive"
    return (mode == "up") != negative, f"{ROUNDING_NAMES[mode]}, and the number is {sign}"


def _special_reason(x: Any, result: FloatParts, fmt: Format) -> str:
    if result.input_exact is not None:
        return "representable: nothing to round"
    if parse_real(x).special == "nan":
        return "NaN stays NaN"
    if result.kind.value == "inf":
        return "infinity stays infinity"
    if result.kind.value == "nan":
        return f"{fmt.name} has no infinity: it becomes NaN"
    return f"{fmt.name} has no infinity: it saturates to {result.value!r}"


def explain_rounding(
    x: Any, fmt: FormatLike = "float16", rounding: str = "nearest_even", *,
    overflow: str | None = None,
) -> RoundingExplanation:  # fmt: skip
    """Explain how ``x`` rounds into ``fmt`` under every rounding mode.

    Parameters
    ----------
    x : str, int, float, Fraction or Decimal
        Taken exactly, as :func:`fpexplore.decode` takes it (pass decimals as
        strings: ``"0.1"``).
    fmt : format spec
    rounding : str
        The mode of interest: one of :data:`MODES`, or ``"stochastic"``.
    overflow : None or "saturate"
        As :func:`fpexplore.decode`: ``"saturate"`` gives +-max where the format
        would give inf or NaN, and the reasons say so.

    Returns
    -------
    RoundingExplanation

    Raises
    ------
    ValueError, TypeError
        As :func:`fpexplore.decode` does for input it cannot read.

    Examples
    --------
    >>> ex = explain_rounding("2049", "float16")  # halfway between 2048 and 2050
    >>> ex.is_tie, ex.choices["nearest_even"].result.value, ex.choices["nearest_away"].picks
    (True, 2048.0, 'above')
    >>> explain_rounding(70000, "float16").choices["nearest_even"].picks
    'beyond'
    >>> explain_rounding("2049.5", "float16", "stochastic").probability_above
    Fraction(3, 4)
    >>> up = explain_rounding(70000, "float16", overflow="saturate").choices["up"]
    >>> up.result.value, up.reason.split("; ")[1]
    (65504.0, 'no larger finite value: overflow="saturate" gives the largest, 65504.0')
    """
    fmt = get_format(fmt)
    check_overflow(overflow)
    if rounding not in (*MODES, STOCHASTIC):
        expected = ", ".join((*MODES, STOCHASTIC))
        raise ValueError(f"rounding must be one of {expected}, got {rounding!r}")
    exact_input = parse_real(x)  # read once, rounded once per mode (as decode() does)
    results = {
        mode: FloatParts(
            round_real(exact_input, fmt, mode, overflow),
            fmt,
            x,
            exact_input.value,
            mode,
            exact_input.special,
            exact_input.sign,
        )
        for mode in MODES
    }
    below, above = results["down"], results["up"]
    exact = results["nearest_even"].input_exact
    spacing = position = guard = round_bit = sticky = None
    nearer_zero = above if exact is not None and exact < 0 else below
    if exact is not None and exact != 0 and nearer_zero.is_finite:
        assert nearer_zero.exact is not None  # a finite neighbour
        magnitude = abs(nearer_zero.exact)
        spacing = Fraction(2) ** (
            ulp_exponent(magnitude, fmt) if magnitude else fmt.emin - fmt.mantissa_bits
        )
        position = (abs(exact) - magnitude) / spacing
        if position < 1:
            quarters = position * 4
            guard, round_bit = int(quarters) >> 1, int(quarters) & 1
            sticky = int(quarters.denominator != 1)
    ex = RoundingExplanation(
        x, fmt, exact, below, above, spacing, position, guard, round_bit, sticky, {}, rounding
    )
    nearer_zero = above if exact is not None and exact < 0 else below
    for mode, result in results.items():
        picks = _picks(result, ex, nearer_zero)
        if ex.out_of_domain:
            away = False
            reason = (
                f"{fmt.name} has no value there" if not result.is_finite else "its nearest value"
            )
        elif ex.is_exact:
            away, reason = False, _special_reason(x, result, fmt)
        else:
            away, reason = _direction(mode, ex)
            reason += " -> away from zero" if away else " -> toward zero"
            if away and result.code == nearer_zero.code:
                how = 'overflow="saturate" gives' if overflow else f"{fmt.name} saturates to"
                how += " the largest"
                reason += f"; no larger finite value: {how}, {result.value!r}"
            elif picks == "beyond":
                reason += f"; no finite value there: {fmt.name} gives {result.value!r}"
            elif not away and ex.position is not None and ex.position >= 1:
                reason += f"; the largest finite value is the nearest toward zero: {result.value!r}"
        ex.choices[mode] = ModeChoice(mode, result, picks, away, reason)
    return ex
