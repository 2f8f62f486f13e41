"""The public surface is a promise: pin it exactly, and keep the core framework-free.

Each package's ``__all__`` is compared with the list below, so an addition that was
not planned fails as a removal does: change the list, the API reference's tables
(docs/reference/api.md) and the changelog together.
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import warnings

import pytest

import ctxmgr

PUBLIC = {
    "ctxmgr": [
        "AutoContextConfig", "AutoContextMemory", "CompressionEvent", "ConfigError",
        "ContextOverflowError", "CtxmgrError", "ExtractiveSummarizer", "FileStore",
        "InMemoryStore", "MemoStore", "Message", "OffloadNotFoundError", "OpaqueBlock", "Store",
        "StoreRetry", "Summarizer", "TextBlock", "TokenCounter", "ToolResultBlock", "ToolSpec",
        "ToolUseBlock", "Tuning", "__version__", "default_counter", "from_anthropic",
        "from_openai", "handle_archive_call", "to_anthropic", "to_openai", "validate_pairing",
    ],
    "ctxmgr_langgraph": [
        "COMPRESSION_EVENT", "CONTEXT_KEY", "ContextAgentState", "ContextHook", "ContextMiddleware",
        "ContextMiddlewareState", "ContextNode", "ContextState", "DEFAULT_PREFIX",
        "LangChainSummarizer", "LangGraphStore", "from_langchain", "merge_context_state",
        "resolve_store", "to_langchain",
    ],
    "ctxmgr_llamaindex": [
        "ContextCompressionEvent", "ContextFunctionAgent", "ContextMemory", "ContextReActAgent",
        "LlamaIndexConverter", "LlamaIndexKVStore", "LlamaIndexSummarizer", "from_llamaindex",
        "to_llamaindex",
    ],
}
"""Exactly the names each package promises, sorted."""

TESTING = {"ctxmgr_langgraph.testing": {"RecordedRun", "ScriptedChatModel"},
           "ctxmgr_llamaindex.testing": {"RecordedRun", "ScriptedLLM"}}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_all_is_exactly_the_planned_names_sorted_and_each_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == PUBLIC[package]
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_the_core_promises_at_most_thirty_names() -> None:
    assert len(ctxmgr.__all__) <= 30


def test_internals_are_left_to_their_submodules() -> None:
    assert not {"SummaryWorker", "OffloadStore", "handle_reload_call"} & set(ctxmgr.__all__)
    from ctxmgr.autocontext import OffloadStore, SummaryWorker, handle_reload_call

    assert OffloadStore and SummaryWorker and handle_reload_call


@pytest.mark.parametrize(("name", "replacement"), [
    ("ContextProcessor", "ctxmgr.session.SessionEngine"),
    ("history_processor", "ctxmgr.AutoContextMemory"),
    ("compress", "ctxmgr.AutoContextMemory"),
    ("SessionEngine", "from ctxmgr.session import SessionEngine"),
    ("Settings", "ctxmgr.AutoContextConfig"),
    ("ApproximateCounter", "from ctxmgr.tokens import ApproximateCounter"),
    ("PairingError", "from ctxmgr.errors import PairingError"),
    ("MEMO_TOOL", "from ctxmgr.memo import MEMO_TOOL"),
])
def test_a_name_that_left_the_public_api_names_its_replacement(
        name: str, replacement: str) -> None:
    with pytest.raises(ImportError, match=re.escape(replacement)):
        getattr(ctxmgr, name)
    with pytest.raises(ImportError, match=re.escape(replacement)):
        exec(f"from ctxmgr import {name}", {})  # noqa: S102 - the import statement itself


def test_an_unknown_name_is_a_plain_attribute_error() -> None:
    assert not hasattr(ctxmgr, "no_such_name")


@pytest.mark.parametrize("module", sorted(TESTING))
def test_the_test_doubles_live_in_each_adapter_s_testing_module(module: str) -> None:
    testing = importlib.import_module(module)
    package = importlib.import_module(module.rpartition(".")[0])
    assert TESTING[module] <= set(testing.__all__)
    assert not TESTING[module] & set(package.__all__)
    with warnings.catch_warnings(record=True) as caught:  # old imports still resolve
        warnings.simplefilter("always")
        for name in TESTING[module]:
            assert getattr(package, name) is getattr(testing, name)
    assert all(issubclass(w.category, DeprecationWarning) for w in caught) and caught


def test_the_examples_import_public_names_only() -> None:
    import ast
    from pathlib import Path

    allowed = {*PUBLIC, *TESTING}
    for path in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ctxmgr"):
                assert node.module in allowed, f"{path.name} imports {node.module}"
                public = PUBLIC.get(node.module or "", [])
                testing = TESTING.get(node.module or "", set())
                for alias in node.names:
                    assert alias.name in public or alias.name in testing, (
                        f"{path.name} imports {node.module}.{alias.name}")


def test_importing_the_core_imports_no_agent_framework():
    code = ("import sys, ctxmgr; "
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('langchain', 'langchain_core', 'langgraph', 'llama_index')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_three_packages_import():
    code = "import ctxmgr, ctxmgr_langgraph, ctxmgr_llamaindex"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_version_is_exposed_on_the_command_line(capsys):
    from ctxmgr.cli import main

    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"ctxmgr {ctxmgr.__version__}"


def test_every_public_name_is_documented():
    from doc_pages import text

    docs = text()
    missing = [name for names in PUBLIC.values() for name in names
               if f"`{name}`" not in docs]
    assert missing == []


def test_every_public_name_has_a_docstring():
    undocumented = [name for name in ctxmgr.__all__
                    if (inspect.isclass(getattr(ctxmgr, name))
                        or inspect.isfunction(getattr(ctxmgr, name)))
                    and not (getattr(ctxmgr, name).__doc__ or "").strip()]
    assert undocumented == []
