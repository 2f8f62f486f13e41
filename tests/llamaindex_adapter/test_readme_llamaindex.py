"""The LlamaIndex snippet of the README and of the guide runs as written (offline, on the
bundled run), and the guide names every public name of the adapter."""

from __future__ import annotations

import pytest
from doc_pages import SITE, blocks_with, run_block

import ctxmgr_llamaindex
from ctxmgr_llamaindex.testing import FINAL_ANSWER


def test_the_llamaindex_example_runs_one_long_agent_run(
        capsys: pytest.CaptureFixture[str]) -> None:
    # the multi-agent guide's AgentWorkflow block runs in test_agent_workflow.py
    blocks = [b for b in blocks_with("ContextFunctionAgent(") if "AgentWorkflow(" not in b]
    assert len(blocks) == 2, "one in the README, one in the guide"
    for block in blocks:
        scope = run_block(block)
        assert scope["llm"].answered == 115  # type: ignore[attr-defined]
        assert FINAL_ANSWER in capsys.readouterr().out


def test_every_public_name_of_the_adapter_is_in_the_guide() -> None:
    text = (SITE / "guides" / "llamaindex.md").read_text(encoding="utf-8")
    missing = [n for n in ctxmgr_llamaindex.__all__ if f"`{n}`" not in text]
    assert missing == []
