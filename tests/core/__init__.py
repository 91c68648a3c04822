"""Tests of fpexplore.core."""
