"""The user-facing core: decode, round, measure, count.

``decode`` (:class:`FloatParts`, :func:`from_bits`, :func:`decode_array`),
``error`` (:func:`round_to`, :func:`representation_error`, :func:`ulp`, neighbours),
``density`` (:func:`count_between`, :func:`values_between`, binades), ``census``
(every code of a format) and ``rounding_explain`` (why a mode picks a neighbour).
Built on :mod:`fpexplore.codes`, :mod:`fpexplore.exact` and :mod:`fpexplore.formats`;
objects render themselves through lazy imports of :mod:`fpexplore.render`.
"""
