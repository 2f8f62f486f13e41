"""The public surface is a promise: pin it, and keep the core framework-free."""

from __future__ import annotations

import subprocess
import sys

import ctxmgr

EXPECTED = sorted(ctxmgr.__all__)


def test_all_is_sorted_and_every_name_resolves():
    assert ctxmgr.__all__ == EXPECTED
    for name in ctxmgr.__all__:
        assert getattr(ctxmgr, name) is not None, name


def test_public_api_names_are_pinned():
    assert set(ctxmgr.__all__) >= {
        "Message", "TextBlock", "ToolUseBlock", "ToolResultBlock", "OpaqueBlock",
        "from_openai", "to_openai", "from_anthropic", "to_anthropic", "validate_pairing",
        "TokenCounter", "TiktokenCounter", "ApproximateCounter", "CallableCounter",
        "Store", "InMemoryStore", "FileStore", "AutoContextMemory", "AutoContextConfig",
        "Summarizer", "ExtractiveSummarizer", "CompressionEvent", "CtxmgrError",
        "ContextOverflowError", "PairingError", "ARCHIVE_TOOL", "MEMO_TOOL",
        "CONTEXT_RELOAD_TOOL",
    }


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


def test_every_public_name_is_documented_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    missing = [name for name in ctxmgr.__all__ if f"`{name}`" not in readme]
    assert missing == []


def test_every_public_name_has_a_docstring():
    import inspect

    undocumented = [name for name in ctxmgr.__all__
                    if (inspect.isclass(getattr(ctxmgr, name))
                        or inspect.isfunction(getattr(ctxmgr, name)))
                    and not (getattr(ctxmgr, name).__doc__ or "").strip()]
    assert undocumented == []
