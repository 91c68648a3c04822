"""Tests of fpexplore.mixed."""
