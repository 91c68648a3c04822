"""Tests of fpexplore.exact."""
