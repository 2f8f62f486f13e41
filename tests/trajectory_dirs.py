"""Where the recorded runs are: the bundled fixtures and the whole set.

A plain module rather than conftest constants, because ``from conftest import`` is
ambiguous once a test folder has a conftest of its own.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "trajectories"
SHARED = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
"""All 124 recorded runs, in the repository (see benchmarks/data/README.md)."""
