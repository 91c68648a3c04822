"""Shared test configuration."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI runs on shared machines: no per-example deadline, and a fixed sequence of
# examples so that a run is reproducible (failures still print their example).
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
