"""Stochastic rounding of dask arrays (issue 21, 6): each chunk draws from its own
stream, derived from the seed and the chunk's position, so equal chunks round
differently, a rerun (any scheduler, any subset of chunks) is identical, and the
draws are as unbiased as the numpy path's."""

from __future__ import annotations

import numpy as np
import pytest

import fpexplore as fpx

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

VALUE = 1 + 2.0**-9  # a quarter of bfloat16's spacing above 1: rounds up with p = 1/4
CHUNK = 10_000


def _rounded(rng: object, scheduler: str = "sync", chunks: int = CHUNK) -> np.ndarray:
    x = da.from_array(np.full(8 * CHUNK, VALUE), chunks=chunks)
    with dask.config.set(scheduler=scheduler):
        return fpx.round_to(x, "bfloat16", "stochastic", rng=rng).compute()


def test_equal_chunks_round_differently() -> None:
    out = _rounded(7).reshape(8, CHUNK)
    for i in range(8):
        for j in range(i):
            assert not np.array_equal(out[i], out[j]), (i, j)


def test_a_rerun_is_identical_whatever_the_scheduler() -> None:
    first = _rounded(7)
    assert np.array_equal(first, _rounded(7, "threads"))
    assert np.array_equal(first, _rounded(np.random.SeedSequence(7)))
    assert not np.array_equal(first, _rounded(8))
    x = da.from_array(np.full(8 * CHUNK, VALUE), chunks=CHUNK)
    part = fpx.round_to(x, "bfloat16", "stochastic", rng=7)[3 * CHUNK : 5 * CHUNK].compute()
    assert np.array_equal(part, first[3 * CHUNK : 5 * CHUNK])  # only those chunks computed


def test_draws_are_unbiased_in_every_chunk_as_on_numpy() -> None:
    up = _rounded(11).reshape(8, CHUNK) > 1.0
    sigma = np.sqrt(0.25 * 0.75 / CHUNK)
    assert (np.abs(up.mean(axis=1) - 0.25) < 5 * sigma).all()
    numpy_up = fpx.round_to(np.full(8 * CHUNK, VALUE), "bfloat16", "stochastic", rng=11) > 1.0
    assert abs(numpy_up.mean() - up.mean()) < 5 * sigma / np.sqrt(8) * np.sqrt(2)
    assert set(np.unique(_rounded(11))) == {1.0, 1.0078125}


def test_a_generator_seeds_the_chunks_too() -> None:
    a = _rounded(np.random.default_rng(3))
    b = _rounded(np.random.default_rng(3), "threads")
    assert np.array_equal(a, b)
    assert not np.array_equal(a[:CHUNK], a[CHUNK : 2 * CHUNK])


def test_a_bad_rng_is_named() -> None:
    x = da.from_array(np.full(10, VALUE), chunks=5)
    with pytest.raises(TypeError, match="rng"):
        fpx.round_to(x, "bfloat16", "stochastic", rng="seven")
