"""The README's Python examples run as written: each block alone, in a fresh namespace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxmgr import to_openai

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def run_block(needle: str) -> dict[str, object]:
    block = next(b for b in python_blocks() if needle in b)
    scope: dict[str, object] = {"__name__": "readme_example"}
    exec(block, scope)  # noqa: S102 - the README's own example, as written
    return scope


def test_every_python_block_is_run_by_a_test() -> None:
    needles = ["AutoContextMemory(", "handle_archive_call(", "SessionEngine(",
               "LangGraphStore(pg)"]  # the last runs against PostgreSQL in its own test
    needles += NEEDLES_ELSEWHERE
    for block in python_blocks():
        assert any(n in block for n in needles), f"no test runs this README block:\n{block}"


NEEDLES_ELSEWHERE: list[str] = ["create_agent(", "create_react_agent(", "StateGraph(",
                                "ctxmgr_llamaindex", "PrintCompressions("]
"""Blocks run by the adapters' own tests (they need their framework or a database)."""


def test_the_core_example_compresses_and_reloads() -> None:
    scope = run_block("AutoContextMemory(")
    assert scope["prompt"] and len(scope["prompt"]) < len(scope["openai_messages"])  # type: ignore[arg-type]
    assert scope["originals"], "the example reloads the first compressed range"


def test_the_agent_driven_tools_example_archives_and_writes_a_memo() -> None:
    scope = run_block("handle_archive_call(")
    shown = to_openai(scope["prompt"])  # type: ignore[arg-type]
    assert any("has been archived" in str(m.get("content")) for m in shown)
    assert "plan" in str(scope["result_text"])


def test_the_session_engine_example_compresses_and_keeps_each_stand_in_once() -> None:
    scope = run_block("SessionEngine(")
    assert len(scope["history"]) < len(scope["run"]["messages"])  # type: ignore[index,arg-type]
    records = scope["state"]["compression"]["stand_ins"]  # type: ignore[index]
    assert records and all("message" not in r for r in records)
    assert scope["prompt"][1].id == "ctxmgr-reload-hint"  # type: ignore[index]


@pytest.mark.parametrize("line", ['pip install -e ".[langgraph]"', "not `pip install ctxmgr`"])
def test_install_says_to_install_from_the_checkout(line: str) -> None:
    assert line.lower() in README.read_text(encoding="utf-8").lower()


def test_every_install_command_says_where_ctxmgr_comes_from() -> None:
    """A bare ``ctxmgr`` requirement installs an unrelated project from the package index:
    every ``pip install`` in a shell block installs from the checkout, a path or a URL."""
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    commands = [line.split("#")[0] for b in blocks for line in b.splitlines()
                if line.startswith("pip install")]
    assert commands
    for command in commands:
        for req in re.findall(r'"([^"]*)"|(\S+)', command.removeprefix("pip install")):
            name = req[0] or req[1]
            assert not re.fullmatch(r"ctxmgr(\[[^\]]*\])?", name), command
