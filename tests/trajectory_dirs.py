"""Where the recorded runs are: the bundled fixtures and the shared set.

A plain module rather than conftest constants, because ``from conftest import`` is
ambiguous once a test folder has a conftest of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "trajectories"
SHARED = Path(os.environ.get("CTXMGR_TRAJECTORIES",
                             Path(__file__).resolve().parents[2] / "shared" / "trajectories"))
