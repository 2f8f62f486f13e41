"""docs/guarantees.md links each promise to tests: every test it names exists where it says."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "guarantees.md"
LINK = re.compile(r"\[`(test_\w+)`\]\(\.\./(tests/[\w/]+\.py)\)")


def test_every_test_named_in_the_guarantees_exists_in_the_file_it_links() -> None:
    links = LINK.findall(DOC.read_text(encoding="utf-8"))
    assert len(links) > 40
    missing = [f"{path}::{name}" for name, path in links
               if not re.search(rf"^\s*(async )?def {name}\(", (ROOT / path).read_text(
                   encoding="utf-8"), re.MULTILINE)]
    assert missing == []


def test_the_readme_points_to_the_guarantees() -> None:
    assert "docs/guarantees.md" in (ROOT / "README.md").read_text(encoding="utf-8")
