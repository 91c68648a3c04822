"""Tests of fpexplore.formats."""
