"""``np.einsum`` and ``np.tensordot`` of FormatArrays: any operands, ``...`` included.

The subscripts are first written out (:func:`_explicit`: each ``...`` as letters of its
own, the implicit output made explicit as numpy reads it); each operand becomes a view
with one axis per letter of the output and the summed indices; the product of each
combination of indices is formed left to right, each multiplication rounded once into
the accumulator's format (for two operands: the single rounded product, exact before
it); then the products are summed over the summed indices, in C order of their first
appearance, in the array's ``order`` (:mod:`.accumulate`), and the sum rounded once
into the array's format. ``tensordot`` is an einsum of its axes.

>>> import numpy as np
>>> from fpexplore.array.core import FormatArray
>>> x = FormatArray(np.full((2, 3, 4096), 0.5), "float16")
>>> np.einsum("...k,...k->...", x, x)[0, 0]
FormatArray(512.0, float16)
"""

from __future__ import annotations

import copy
import string
from typing import Any

import numpy as np

from ... import codes as K
from .accumulate import accumulate_axis
from .flags import count_mask
from .products import merge_counts, round_products
from .records import Record
from .reduce import into

__all__ = ["einsum", "tensordot_subscripts"]


def _explicit(subscripts: str, arrays: list[np.ndarray]) -> tuple[list[str], str, list[np.ndarray]]:
    """``subscripts`` with every ``...`` written out as letters of its own and the output
    made explicit (numpy's implicit output: the broadcast axes, then the letters seen once,
    sorted); operands whose ``...`` axes broadcast are broadcast to the common shape."""
    if not isinstance(subscripts, str):
        raise TypeError(
            f"np.einsum on FormatArrays takes its subscripts as a string, got {subscripts!r}"
        )
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(arrays):
        raise ValueError(
            f"np.einsum: {subscripts!r} names {len(terms)} operands, {len(arrays)} were given"
        )
    used = set(spec) - {".", ",", "-", ">"}
    spare = [c for c in string.ascii_letters if c not in used]
    counts = [a.ndim - (len(t) - 3) if "..." in t else 0
              for t, a in zip(terms, arrays, strict=True)]  # fmt: skip
    if any(c < 0 for c in counts):
        raise ValueError(f"np.einsum: {subscripts!r} names more axes than an operand has")
    width = max(counts, default=0)
    ell = "".join(spare[:width])
    shapes = []
    for t, a, c in zip(terms, arrays, counts, strict=True):
        if "..." in t:
            at = t.index("...")
            shapes.append(a.shape[at : at + c])
    common = np.broadcast_shapes(*shapes) if shapes else ()
    out_terms, out_arrays = [], []
    for t, a, c in zip(terms, arrays, counts, strict=True):
        if "..." not in t:
            out_terms.append(t)
            out_arrays.append(a)
            continue
        at = t.index("...")
        head, tail = a.shape[:at], a.shape[at + c :]
        grown = a.reshape(*head, *(1,) * (width - c), *a.shape[at : at + c], *tail)
        out_arrays.append(np.broadcast_to(grown, (*head, *common, *tail)))
        out_terms.append(t.replace("...", ell))
    letters = "".join(out_terms)
    if arrow:
        output = output.replace("...", ell)
    else:
        output = ell + "".join(sorted(c for c in set(letters) - set(ell) if letters.count(c) == 1))
    return out_terms, output, out_arrays


def _expand(x: np.ndarray, term: str, full: str) -> np.ndarray:
    """``x`` (axes named by ``term``, a letter twice meaning its diagonal) as a view with
    one axis per letter of ``full``, of length 1 where ``term`` lacks the letter."""
    kept = "".join(c for c in full if c in term)
    x = np.einsum(f"{term}->{kept}", x)  # diagonals and transposition: a selection, exact
    return np.expand_dims(x, tuple(i for i, c in enumerate(full) if c not in term))


def einsum(like: Any, subscripts: str, arrays: list[np.ndarray]) -> Any:
    """``np.einsum`` of any number of arrays (``...`` and implicit output as numpy
    reads them): the product of each combination of indices formed left to right, each
    multiplication rounded into the accumulator's format, then the sum over the summed
    indices in ``order`` (see the module)."""
    terms_in, output, arrays = _explicit(subscripts, arrays)
    letters = "".join(terms_in)
    unknown = set(output) - set(letters)
    if unknown or len(set(output)) != len(output):
        raise ValueError(f"np.einsum: output {output!r} of {subscripts!r} is not valid")
    summed = "".join(dict.fromkeys(c for c in letters if c not in output))
    full_letters = output + summed
    arrays = [K.as_float64(x) for x in arrays]  # exact products
    sizes: dict[str, int] = {}
    for term, x in zip(terms_in, arrays, strict=True):
        for c, n in zip(term, x.shape, strict=True):
            if sizes.setdefault(c, n) != n and 1 not in (n, sizes[c]):
                raise ValueError(f"np.einsum: index {c!r} has lengths {sizes[c]} and {n}")
            sizes[c] = max(sizes[c], n)
    shape = tuple(sizes[c] for c in full_letters)
    factors = [_expand(x, t, full_letters) for t, x in zip(terms_in, arrays, strict=True)]
    k = len(summed)
    fmt, acc, order = like.format, like.accumulate, like.order
    rounding, overflow = like.rounding, like._overflow
    state = copy.deepcopy(like._rng) if rounding == "stochastic" else None
    wide = acc if acc.mantissa_bits > fmt.mantissa_bits else fmt  # the chain's widest factor

    def along(x: np.ndarray) -> np.ndarray:  # the summed indices flattened into axis 0
        x = np.broadcast_to(x, shape)
        return np.moveaxis(x.reshape(*x.shape[: x.ndim - k], -1), -1, 0) if k else x[None]

    def run(flags: bool, rng: Any) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        masks: list[Any] = []
        if len(factors) == 1:
            stored, pm = into(along(factors[0]), acc, fmt, rounding, overflow, rng, flags)
            masks.append(pm)
        else:
            stored = along(factors[0])
            for i, f in enumerate(factors[1:]):
                g = along(f)
                with np.errstate(all="ignore"):
                    raw = stored * g
                stored, pm = round_products(raw, stored, g, fmt if i == 0 else wide, acc,
                                            rounding, overflow, rng, flags)  # fmt: skip
                masks.append(pm)
        s, m, counts = accumulate_axis(stored, acc, order, rounding, overflow, rng, flags)
        for pm in masks:
            if flags and pm is not None and stored.shape[0]:
                m = m | np.bitwise_or.reduce(np.asarray(pm), axis=0)
                counts = merge_counts(counts, count_mask(pm))
        final, last = into(s, fmt, acc, rounding, overflow, rng, flags)
        if flags and last is not None:
            m, counts = m | last, merge_counts(counts, count_mask(last))
        return np.asarray(final, np.float64), np.asarray(m, np.uint8), counts

    result, _, _ = run(False, like._rng)

    def flags_of() -> tuple[np.ndarray, dict[str, int]]:
        _, mask, counts = run(True, copy.deepcopy(state))
        return mask.reshape(result.shape), counts

    return like._new(result, Record("np.einsum", result.shape, flags_of))


def tensordot_subscripts(a_ndim: int, b_ndim: int, axes: Any) -> str:
    """The einsum subscripts of ``np.tensordot(a, b, axes)``."""
    if isinstance(axes, int):
        axes = (list(range(a_ndim - axes, a_ndim)), list(range(axes)))
    a_axes, b_axes = (
        ([axes[0]] if isinstance(axes[0], int) else list(axes[0])),
        ([axes[1]] if isinstance(axes[1], int) else list(axes[1])),
    )
    a_axes = [x % a_ndim for x in a_axes]
    b_axes = [x % b_ndim for x in b_axes]
    letters = iter(string.ascii_letters)
    sa = [next(letters) for _ in range(a_ndim)]
    sb = [next(letters) for _ in range(b_ndim)]
    for i, j in zip(a_axes, b_axes, strict=True):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in a_axes] + [
        c for j, c in enumerate(sb) if j not in b_axes
    ]
    return f"{''.join(sa)},{''.join(sb)}->{''.join(out)}"
