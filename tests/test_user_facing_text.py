"""What users read names no issue of ours: help texts, docstrings, the README, the
benchmark reports. (Upstream bugs are cited with their project, e.g. ``llama_index #21950``.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUR_ISSUE = re.compile(r"\bissues? ?#?\d+|\bthe issue'?s?\b", re.IGNORECASE)


def test_no_issue_numbers_in_user_facing_text() -> None:
    files = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("benchmarks/*.py"),
             *ROOT.glob("benchmarks/*.md"), *ROOT.glob("packages/*/*/**/*.py"),
             *ROOT.glob("examples/*.py")]
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in files for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if OUR_ISSUE.search(line)]
    assert not found, "\n".join(found)
