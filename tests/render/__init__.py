"""Tests of fpexplore.render."""
