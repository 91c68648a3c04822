"""The user-facing core: decode, round, measure, count.

How a value travels: an input (a scalar of any kind, or an array) is read exactly by
:mod:`fpexplore.exact` (scalars) or widened into codes by :mod:`fpexplore.codes`
(arrays), rounded once into the format, and comes back as fields and errors:

- ``decode`` (:class:`FloatParts`, :func:`from_bits`; :func:`decode_array` in
  ``arrays``, bit patterns parsed in ``bits``): one value taken apart;
- ``error`` (:func:`round_to`, :func:`representation_error`, :func:`ulp`,
  neighbours; ``narrow`` gives the dtype of a narrow result): arrays rounded and
  measured;
- ``density`` (:func:`count_between`, :func:`values_between`, binades) and
  ``census`` (every code of a format): counting;
- ``rounding_explain``: why each rounding mode picks the neighbour it picks.

Operations and sums live in :mod:`fpexplore.arith`, scaled formats and tensor reports
in :mod:`fpexplore.scaling`, dask support in :mod:`fpexplore.lazy`.
Built on :mod:`fpexplore.codes`, :mod:`fpexplore.exact` and :mod:`fpexplore.formats`;
objects render themselves through lazy imports of :mod:`fpexplore.render`.
"""
