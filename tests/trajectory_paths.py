"""Where the recorded runs are, importable by any test module.

Kept out of ``conftest.py``: a test that imports ``conftest`` by name gets whichever
conftest module was loaded first under that name (tests/langgraph_adapter has its own),
which depends on the order a pytest-xdist worker collects in.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "trajectories"
"""The runs bundled with the tests (4 SWE runs, 12 tau-bench conversations)."""
SHARED = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
"""The 124 recorded runs every benchmark figure is measured on (part of the repository)."""
