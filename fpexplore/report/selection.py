"""Which tensors of a checkpoint a report covers, and the block axis of each.

The filters, in this order (a tensor left out is listed in ``skipped`` with the
first reason that applies):

* ``include`` / ``exclude``: glob patterns (:func:`fnmatch.fnmatchcase`) on names,
  one pattern or several; a tensor is kept if it matches an ``include`` (when any is
  given) and no ``exclude``;
* ``min_size``: tensors of fewer values are left out (default 2: scalars, such as
  an ONNX LayerNorm's epsilon, and tensors of one value never fill the worst rows;
  ``min_size=0`` or ``1`` reports them);
* ``weights_only``: True: the layers' weights, as the file says (ONNX initializers
  that a Conv, Gemm, MatMul or Gather consumes; trainable Keras variables) and,
  where it says nothing, tensors of rank 2 or more. None (the default): every
  tensor but the constants. False: every tensor, the constants too.

**Constants** are tensors of 2 or more values that the file says are constants
rather than parameters: :meth:`fpexplore.io.Checkpoint.constant` gives the reason
(``""``: not a constant). ONNX files say so
(:class:`fpexplore.io.onnx_files.OnnxCheckpoint`; other files name no constants):
a tensor that no node consuming it sums over (an ``Add``, ``Mul``, ``Div`` or
``Pow``) and that is a ``Constant`` node's output or is filled with one value other
than 0 or 1 (an attention mask of -1e9, an epsilon broadcast to a shape). A bias or
a norm's scale of varied values is a parameter, and so is one at its initial zeros
or ones. A -1e9 mask overflows every FP8 and FP4 format and a small epsilon
flushes to zero: reported, they would fill the worst rows with numbers no weight
has. By default each is left out, and listed in ``skipped``: ``"constant: every one
of its 16 values is -1e+09; consumed by Add, which sums over no axis of it
(weights_only=False or include='mask' reports it)"``. Asked for, they are
reported: ``weights_only=False`` (every tensor), or an ``include`` pattern that is
the constant's very name (``include=["*.weight", "mask"]``; a pattern that matches
it by a wildcard does not bring a constant back).

The block axis (``axis="auto"``): the axis the tensor's layer sums over, where the
file says (:meth:`fpexplore.io.Checkpoint.role`: ``"graph"``, ``"layer"``,
``"layout"``), else the last axis (``"last"``); an int names one axis for every
tensor that has it (``"given"``).

Examples
--------
>>> import numpy as np
>>> from fpexplore.io import open_checkpoint
>>> ckpt = open_checkpoint({"w": np.ones((4, 8)), "b": np.ones(8), "eps": np.ones(())})
>>> kept, skipped = select(ckpt, min_size=None, include=None, exclude=["b"], weights_only=None)
>>> kept, skipped
(['w'], [('b', 'excluded by b'), ('eps', '1 value, fewer than min_size=2')])
>>> block_axis(ckpt, "w", "auto")
(1, 'last', '')
"""

from __future__ import annotations

import fnmatch
import operator
from collections.abc import Iterable
from typing import Any

from ..io import Checkpoint

__all__ = ["DEFAULT_MIN_SIZE", "block_axis", "check_axis", "select"]

DEFAULT_MIN_SIZE = 2
"""Tensors of fewer values are left out unless ``min_size`` says otherwise."""


def _patterns(value: Any, what: str) -> tuple[str, ...]:
    """``value`` (one glob pattern, several, or None) as a tuple of patterns."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    try:  # bytes iterate as ints: no patterns either
        patterns = None if isinstance(value, bytes | bytearray | memoryview) else tuple(value)
    except TypeError:  # not iterable: a number, say
        patterns = None
    if patterns is None:
        raise TypeError(
            f"{what} takes a glob pattern (str) or several, got {type(value).__name__} {value!r}"
        )
    for p in patterns:
        if not isinstance(p, str):
            raise TypeError(f"{what} takes glob patterns (str), got {type(p).__name__} {p!r}")
    return patterns


def _min_size(value: Any) -> int:
    if value is None:
        return DEFAULT_MIN_SIZE
    try:
        n = operator.index(value)
    except TypeError:
        n = -1
    if isinstance(value, bool) or n < 0:
        raise ValueError(f"min_size must be a non-negative int or None, got {value!r}")
    return n


def select(
    ckpt: Checkpoint, *, min_size: Any, include: Any, exclude: Any, weights_only: bool | None,
    names: Iterable[str] | None = None,
) -> tuple[list[str], list[tuple[str, str]]]:  # fmt: skip
    """The names kept (in the checkpoint's order), and (name, why) for those left out
    (the filters of the module notes, in their order: the first reason is given)."""
    if weights_only is not None and not isinstance(weights_only, bool):
        raise TypeError(f"weights_only must be True, False or None, got {weights_only!r}")
    smallest = _min_size(min_size)
    wanted, unwanted = _patterns(include, "include"), _patterns(exclude, "exclude")
    kept: list[str] = []
    skipped: list[tuple[str, str]] = []
    for name in ckpt if names is None else names:
        spec, role = ckpt.spec(name), ckpt.role(name)
        why = ""
        if wanted and not any(fnmatch.fnmatchcase(name, p) for p in wanted):
            why = f"not included by {', '.join(wanted)}"
        elif any(fnmatch.fnmatchcase(name, p) for p in unwanted):
            why = f"excluded by {next(p for p in unwanted if fnmatch.fnmatchcase(name, p))}"
        elif spec.size < smallest:
            why = (f"{spec.size} value{'s' if spec.size != 1 else ''}, fewer than "
                   f"min_size={smallest}")  # fmt: skip
        elif weights_only and role.weight is False:
            why = "not a weight (" + (role.note or "the file says so") + ")"
        elif weights_only and role.weight is None and len(spec.shape) < 2:
            why = f"rank {len(spec.shape)}: not a weight (weights_only)"
        elif weights_only is None and name not in wanted and (what := ckpt.constant(name)):
            note = f"; {role.note}" if role.note else ""
            why = f"constant: {what}{note} (weights_only=False or include={name!r} reports it)"
        if why:
            skipped.append((name, why))
        else:
            kept.append(name)
    return kept, skipped


def check_axis(axis: Any) -> int | str | None:
    """``axis`` checked: ``"auto"``, None or an int."""
    if axis == "auto" and isinstance(axis, str):
        return "auto"
    if axis is None:
        return None
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"axis must be 'auto', an int or None, got {axis!r}")
    return operator.index(axis)


def block_axis(ckpt: Checkpoint, name: str, axis: int | str | None) -> tuple[int, str, str]:
    """Tensor ``name``'s block axis (from 0), where it came from, and a note."""
    ndim = max(len(ckpt.spec(name).shape), 1)
    if isinstance(axis, int):
        if -ndim <= axis < ndim:
            return axis % ndim, "given", ""
        return ndim - 1, "last", f"has no axis {axis}; blocked along its last"
    if axis == "auto":
        role = ckpt.role(name)
        if role.axis is not None and -ndim <= role.axis < ndim:
            return role.axis % ndim, role.source, ""
        return ndim - 1, "last", role.note
    return ndim - 1, "last", ""
