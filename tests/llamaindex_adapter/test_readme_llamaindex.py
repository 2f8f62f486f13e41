"""The README's LlamaIndex example runs as written (offline, on the bundled run)."""

from __future__ import annotations

import re
from pathlib import Path

import ctxmgr_llamaindex
from ctxmgr_llamaindex.testing import FINAL_ANSWER

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_llamaindex_example_runs_one_long_agent_run(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    block = next(b for b in blocks if "ContextFunctionAgent(" in b)
    scope: dict[str, object] = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    assert scope["llm"].answered == 115  # type: ignore[attr-defined]
    assert FINAL_ANSWER in capsys.readouterr().out  # type: ignore[attr-defined]


def test_every_public_name_of_the_adapter_is_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [n for n in ctxmgr_llamaindex.__all__ if f"`{n}`" not in text]
    assert missing == []
