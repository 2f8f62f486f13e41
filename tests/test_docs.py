"""What people read runs as written: every Python block of the README and of the
documentation site (``docs/``), each alone in a fresh namespace, and every install line
says where ctxmgr comes from."""

from __future__ import annotations

import inspect
import re

import pytest
from doc_pages import (
    PAGES,
    README,
    ROOT,
    blocks_with,
    imports_of,
    python_blocks,
    run_block,
    text,
)

from ctxmgr import FileStore, to_openai
from ctxmgr.autocontext import CONTEXT_RELOAD_TOOL, CONTEXT_SEARCH_TOOL

RUN_HERE = ["AutoContextMemory(", "handle_archive_call(", "SessionEngine(", "Pricing("]
RUN_ELSEWHERE = {
    "create_agent(": "tests/langgraph_adapter/test_langgraph_examples.py",
    "create_react_agent(": "tests/langgraph_adapter/test_langgraph_examples.py",
    "StateGraph(": "tests/langgraph_adapter/test_langgraph_examples.py",
    "ContextFunctionAgent(": "tests/llamaindex_adapter/test_readme_llamaindex.py",
    "PrintCompressions(": "tests/langgraph_adapter/test_compression_tracing.py",
    "LangGraphStore(pg)": "tests/langgraph_adapter/test_langgraph_store.py (needs PostgreSQL)",
    "create_deep_agent(": "tests/langgraph_adapter/test_multi_agent_examples.py",
    "AgentWorkflow(": "tests/llamaindex_adapter/test_agent_workflow.py",
    "RedisKVStore(redis_uri": "tests/llamaindex_adapter/test_llamaindex_redis.py (needs Redis)",
}
"""Blocks run by the adapters' own tests: they need their framework or a database."""


def test_every_python_block_is_run_by_a_test() -> None:
    needles = [*RUN_HERE, *RUN_ELSEWHERE]
    for page, block in python_blocks():
        compile(block, str(page), "exec")  # at least valid Python, whoever runs it
        assert any(n in block for n in needles), f"no test runs this block of {page}:\n{block}"
    for path in RUN_ELSEWHERE.values():
        assert (ROOT / path.split(" ")[0]).is_file()


def test_every_block_imports_only_names_that_exist() -> None:
    for page, block in python_blocks():
        try:
            exec(compile(imports_of(block), str(page), "exec"), {})  # noqa: S102
        except ImportError as exc:
            if exc.name and exc.name.split(".")[0] in ("langgraph", "langchain",
                                                        "langchain_core", "llama_index"):
                continue  # a framework the core tests may run without
            raise AssertionError(f"{page}: {exc}") from exc


def test_the_core_example_compresses_and_reloads() -> None:
    for block in blocks_with("AutoContextMemory("):
        scope = run_block(block)
        assert scope["prompt"] and len(scope["prompt"]) < len(scope["openai_messages"])  # type: ignore[arg-type]
        assert scope["originals"], "the example reloads the first compressed range"


def test_the_agent_driven_tools_example_archives_and_writes_a_memo(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_HOME", str(tmp_path))
    for block in blocks_with("handle_archive_call("):
        scope = run_block(block)
        shown = to_openai(scope["prompt"])  # type: ignore[arg-type]
        assert any("has been archived" in str(m.get("content")) for m in shown)
        assert "plan" in str(scope["result_text"])


def test_the_session_engine_example_compresses_and_keeps_each_stand_in_once() -> None:
    for block in blocks_with("SessionEngine("):
        scope = run_block(block)
        assert len(scope["history"]) < len(scope["run"]["messages"])  # type: ignore[index,arg-type]
        records = scope["state"]["compression"]["stand_ins"]  # type: ignore[index]
        assert records and all("message" not in r for r in records)
        assert scope["prompt"][1].id == "ctxmgr-reload-hint"  # type: ignore[index]


def test_the_cost_example_sets_the_cached_price_and_replays_at_the_providers_rates(
        capsys: pytest.CaptureFixture[str]) -> None:
    for block in blocks_with("Pricing("):
        scope = run_block(block)
        assert scope["config"].tuning.cached_token_price == 0.5  # type: ignore[attr-defined]
        report = scope["report"]
        assert report.pricing.cache_write == 1.25  # type: ignore[attr-defined]
        row = scope["row"]
        assert row["compressions"] > 0 and row["prefix_changed_calls"] > 0  # type: ignore[index]
        assert f"cost / none {row['effective_cost_ratio']:.3f}" in capsys.readouterr().out  # type: ignore[index]


def test_the_readme_is_short_and_keeps_the_two_commands() -> None:
    readme = README.read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "bash scripts/demo.sh" in readme and "bash scripts/test.sh" in readme


def test_every_page_the_readme_links_to_exists() -> None:
    links = re.findall(r"\]\(([^)#\s]+)", README.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not (ROOT / link).exists()] == []


@pytest.mark.parametrize("line", ['pip install -e ".[langgraph]"', "not `pip install ctxmgr`"])
def test_install_says_to_install_from_the_checkout(line: str) -> None:
    for page in (README, ROOT / "docs" / "install.md"):
        assert line.lower() in page.read_text(encoding="utf-8").lower(), page


def test_every_install_command_says_where_ctxmgr_comes_from() -> None:
    """A bare ``ctxmgr`` requirement installs an unrelated project from the package index:
    every ``pip install`` in a shell block installs from the checkout, a path or a URL."""
    blocks = [b for p in PAGES for b in re.findall(r"```bash\n(.*?)```",
                                                   p.read_text(encoding="utf-8"), re.DOTALL)]
    commands = [line.split("#")[0] for b in blocks for line in b.splitlines()
                if line.startswith("pip install")]
    assert len(commands) > 5
    for command in commands:
        for req in re.findall(r'"([^"]*)"|(\S+)', command.removeprefix("pip install")):
            name = req[0] or req[1]
            assert not re.fullmatch(r"ctxmgr(\[[^\]]*\])?", name), command


def test_the_docs_say_what_the_tools_and_the_file_store_take() -> None:
    """The arguments a user or model passes, as the code names them."""
    docs = text()
    for spec in (CONTEXT_RELOAD_TOOL, CONTEXT_SEARCH_TOOL):
        for name in spec.parameters["properties"]:
            assert f"`{name}`" in docs, (spec.name, name)
    for name in inspect.signature(FileStore).parameters:
        assert f"{name}=" in docs, f"FileStore's {name}"
    assert "ContextMiddleware(...).tools" in docs
