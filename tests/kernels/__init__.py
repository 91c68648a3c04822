"""Tests of fpexplore._kernels."""
