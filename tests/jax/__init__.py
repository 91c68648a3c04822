"""Tests of fpexplore.jax (skipped without JAX)."""
