"""Tests of fpexplore.plot."""
