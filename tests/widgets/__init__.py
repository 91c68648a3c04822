"""Tests of fpexplore.widgets."""
