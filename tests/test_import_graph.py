"""The three packages import each other in one direction only: no module reaches back.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import``
of a module counts, at the top, inside a function and under ``TYPE_CHECKING`` alike (a
type-only import is still a dependency a reader has to follow). A cycle is a strongly
connected set of modules; the test names each one with the imports that close it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "packages"
PACKAGES = {
    "ctxmgr": ROOT / "core" / "ctxmgr",
    "ctxmgr_langgraph": ROOT / "langgraph_adapter" / "ctxmgr_langgraph",
    "ctxmgr_llamaindex": ROOT / "llamaindex_adapter" / "ctxmgr_llamaindex",
}

PENDING: list[frozenset[str]] = [
]
"""Cycles in code this branch does not own (the replay package): each must still exist,
so that the entry is removed the day it is fixed."""


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module name an import statement of ``path`` names (relative ones resolved):
    ``from ctxmgr.tokens import TokenCounter`` names ctxmgr.tokens, ``from ctxmgr.memo
    import store`` names ctxmgr.memo.store (a package is not a module's dependency for
    being its parent)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield submodule if submodule in known else base


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the three packages it imports (a name is resolved to the
    longest module it names)."""
    known = modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        for name in imported_names(module, path, set(known)):
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                graph[module].add(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def describe(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = [f"{a} -> {b}" for a in sorted(component) for b in sorted(graph[a] & component)]
    return "{" + ", ".join(edges) + "}"


def test_the_finder_sees_a_cycle_through_a_type_only_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_three_packages_imports_itself_back() -> None:
    graph = import_graph()
    assert "ctxmgr.errors" in graph and "ctxmgr_langgraph.middleware" in graph
    found = cycles(graph)
    unexpected = [describe(c, graph) for c in found if c not in PENDING]
    assert unexpected == []
    fixed = [sorted(c) for c in PENDING if c not in found]
    assert fixed == [], "a pending cycle is gone: remove it from PENDING"


ADAPTERS = ("ctxmgr_langgraph", "ctxmgr_llamaindex")
MEASURING = ("ctxmgr.replay", "ctxmgr.demo")
"""What an adapter's measuring code (replay peers and sources, the demo, the test doubles)
may import besides: the replay harness it plugs into, never imported at run time."""


def core_imports(path: Path) -> Iterator[tuple[str, str]]:
    """(module, name) of every import of a ``ctxmgr`` module in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((a.name, "") for a in node.names if a.name.split(".")[0] == "ctxmgr")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                node.module.split(".")[0] == "ctxmgr":
            yield from ((node.module, a.name) for a in node.names)


def test_adapters_import_only_the_public_names_and_the_session_engine() -> None:
    """An adapter translates: it builds on ``ctxmgr``'s public names and ``ctxmgr.session``
    (the engine, the rules, and :mod:`ctxmgr.session.kit`), so the core's internals can
    move without breaking one."""
    import ctxmgr

    public = set(ctxmgr.__all__)
    wrong = []
    for package in ADAPTERS:
        folder = PACKAGES[package]
        for path in sorted(folder.rglob("*.py")):
            where = path.relative_to(folder).as_posix()
            measuring = where.startswith(("replay_", "demo", "testing"))
            for module, name in core_imports(path):
                if module == "ctxmgr" and name in public:
                    continue
                if module == "ctxmgr.session" or module.startswith("ctxmgr.session."):
                    continue
                if measuring and module.startswith(MEASURING):
                    continue
                wrong.append(f"{package}/{where}: {module}.{name}")
    assert wrong == []


def test_the_rule_sees_an_import_below_the_public_names(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("from ctxmgr.autocontext.parts import X\nfrom ctxmgr import Message\n")
    assert list(core_imports(path)) == [("ctxmgr.autocontext.parts", "X"),
                                        ("ctxmgr", "Message")]
