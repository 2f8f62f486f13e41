"""What people read: the README and the documentation site's pages, and their code blocks.

Every Python block is run by a test, or compiled and its imports checked where it needs
what no test has (a real LLM, a database): :data:`NOT_RUN` says which and why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SITE = ROOT / "docs"
PAGES = [README, *sorted(p for p in SITE.rglob("*.md") if "_hooks" not in p.parts)]
"""The README and every page of the site (``mkdocs.yml`` builds ``docs/``)."""

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def text() -> str:
    """Everything a reader reads, as one text."""
    return "\n".join(p.read_text(encoding="utf-8") for p in PAGES)


def python_blocks() -> list[tuple[Path, str]]:
    """Every Python block, with the page it is on."""
    return [(p, b) for p in PAGES for b in _BLOCK.findall(p.read_text(encoding="utf-8"))]


def blocks_with(needle: str) -> list[str]:
    """Every Python block holding ``needle`` (the README's and the guides' copies of one
    snippet are each run); at least one."""
    found = [b for _, b in python_blocks() if needle in b]
    assert found, f"no Python block holds {needle!r}"
    return found


def run_block(block: str, **scope: object) -> dict[str, object]:
    """Run ``block`` as written, in a fresh namespace holding ``scope``."""
    namespace: dict[str, object] = {"__name__": "docs_example", **scope}
    exec(compile(block, "<docs block>", "exec"), namespace)  # noqa: S102 - the docs' own
    return namespace


def imports_of(block: str) -> ast.Module:
    """The block's import statements alone, as a module."""
    tree = ast.parse(block)
    return ast.Module(body=[n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)],
                      type_ignores=[])
