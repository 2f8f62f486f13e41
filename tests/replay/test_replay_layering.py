"""Layering: the core holds no framework code, peers are found through entry points, and
a machine without the extras gets one line naming the extra to install."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmgr.cli import main
from ctxmgr.replay import peer_names, policy_status

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "packages" / "core" / "ctxmgr"
FIXTURES = ROOT / "tests" / "fixtures" / "trajectories"
FRAMEWORKS = ("langchain", "langchain_core", "langchain_openai", "langchain_anthropic",
              "langgraph", "langmem", "llama_index")
ADAPTERS = ("ctxmgr_langgraph", "ctxmgr_llamaindex")
PEERS = {"langchain_summarization": ".[langgraph]",
         "langchain_context_editing": ".[langgraph]",
         "langmem_summarize": ".[langmem]",
         "llamaindex_memory": ".[llamaindex]",
         "llamaindex_summary_buffer": ".[llamaindex]"}


def _smallest_swe_run() -> Path:
    return min(FIXTURES.glob("swe__*.json"), key=lambda p: p.stat().st_size)


# ------------------------------------------------------------------ the core's source


def test_the_core_imports_no_framework_and_no_adapter_anywhere() -> None:
    offending = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offending += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                          if n.split(".")[0] in FRAMEWORKS + ADAPTERS]
    assert offending == []


def test_import_ctxmgr_loads_no_framework_module_per_importtime() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import ctxmgr"],
                          capture_output=True, text=True, timeout=120, check=True)
    modules = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line]
    assert "ctxmgr" in modules
    loaded = [m for m in modules if m.split(".")[0] in FRAMEWORKS + ADAPTERS]
    assert loaded == []


# ------------------------------------------------------------------ peers by entry point


def test_with_every_extra_installed_all_five_peers_are_registered_and_available() -> None:
    assert sorted(peer_names()) == sorted(PEERS)
    status = policy_status()
    assert list(status)[:2] == ["none", "ctxmgr"]
    assert status == dict.fromkeys(["none", "ctxmgr", *peer_names()])


def test_list_policies_shows_all_seven(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--list-policies"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["none", "ctxmgr", *peer_names()]
    assert all(line.split()[1] == "available" for line in lines)


# ------------------------------------------------------------------ without the extras

# Runs the command line in a fresh interpreter where the frameworks and the replay
# extra cannot be imported, as on a machine with `pip install ctxmgr` and no extras.
_WITHOUT_EXTRAS = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None
from ctxmgr.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _without_extras(*argv: object) -> subprocess.CompletedProcess[str]:
    code = _WITHOUT_EXTRAS.format(blocked=(*FRAMEWORKS, "rich", "matplotlib"))
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                          text=True, timeout=300, check=False)


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def test_without_extras_none_and_ctxmgr_replay_with_a_plain_table() -> None:
    done = _without_extras("replay", _smallest_swe_run(), "--policy", "none", "--policy",
                           "ctxmgr", "--max-tokens", 8000)
    assert done.returncode == 0, done.stderr
    assert "| policy |" in done.stdout
    assert "| none |" in done.stdout and "| ctxmgr |" in done.stdout


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_without_extras_asking_for_a_peer_names_the_extra(peer: str) -> None:
    line = _one_error_line(_without_extras("replay", _smallest_swe_run(), "--policy", peer))
    assert f"policy {peer!r} is not available" in line
    assert f'pip install "{PEERS[peer]}"' in line


def test_without_extras_list_policies_names_each_extra() -> None:
    done = _without_extras("replay", "--list-policies")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(None, 1) for line in done.stdout.splitlines())
    assert lines["none"] == lines["ctxmgr"] == "available"
    for peer, extra in PEERS.items():
        assert f'pip install "{extra}"' in lines[peer], lines[peer]


def test_without_extras_a_plot_names_the_replay_extra(tmp_path: Path) -> None:
    line = _one_error_line(_without_extras("replay", _smallest_swe_run(), "--policy", "none",
                                           "--plot", tmp_path / "p.png"))
    assert 'pip install ".[replay]"' in line


@pytest.mark.parametrize("command", ["compress", "replay"])
def test_without_extras_a_model_summarizer_names_the_langgraph_extra(command: str) -> None:
    line = _one_error_line(_without_extras(command, _smallest_swe_run(), "--summarizer",
                                           "openai:gpt-4o"))
    assert 'pip install ".[langgraph]"' in line


def test_without_extras_the_demo_runs() -> None:
    done = _without_extras("demo")
    assert done.returncode == 0, done.stderr
    assert "tool-pairing violations: 0" in done.stdout
