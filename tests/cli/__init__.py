"""Tests of fpexplore.cli."""
