"""Fixtures of the command-line tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def plain_terminal(monkeypatch):
    """No NO_COLOR from the environment, and a 100-column terminal."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "100")
