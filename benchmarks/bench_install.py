"""What an install costs: the wheel's size and contents, and the time to import each package.

Builds the wheel from this checkout (hatchling, the project's own build backend, without
build isolation so nothing is downloaded), then prints:

* the wheel's size, file count and Python lines, per top-level package, and every file
  that looks like a test-session generator or test data (``replay/instructions``,
  ``planted``, ``tests/``, ``benchmarks/``, ``fixtures/``), which should be none;
* the import time of ``ctxmgr``, ``ctxmgr_langgraph`` and ``ctxmgr_llamaindex``, and of
  each adapter's first use beside its framework's own import: the median of ``--runs``
  fresh interpreters, each timing its own ``import`` statement (so the interpreter's
  start-up, also shown, is not counted), with bytecode cached as after an install;
* for each package, the modules that take most of that time (``python -X importtime``
  self time summed by top-level module: ``ctxmgr`` itself, ``asyncio``, ``tiktoken``...).

The imports run from this checkout's ``packages/`` folders, not from an installed copy.
Usage::

    python benchmarks/bench_install.py [--runs 15] [--top 8] [--keep-wheel DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOTS = [ROOT / "packages" / "core", ROOT / "packages" / "langgraph_adapter",
                 ROOT / "packages" / "llamaindex_adapter"]
IMPORTS = (
    "import ctxmgr",
    "import ctxmgr_langgraph",
    "from ctxmgr_langgraph import ContextMiddleware",
    "from langchain.agents import create_agent",
    "import ctxmgr_llamaindex",
    "from ctxmgr_llamaindex import ContextMemory",
    "from llama_index.core.agent.workflow import FunctionAgent",
)
"""Each package, then its first use beside the framework's own import: an adapter's
names import their framework when first used, so the framework's time is theirs too."""
NOT_IN_WHEEL = ("replay/instructions", "planted", "tests/", "benchmarks/", "fixtures/",
                "conftest")
"""Path fragments of generators and test data: none of them belongs in the wheel."""


def build_wheel(out_dir: Path) -> Path:
    """The wheel hatchling builds from this checkout, as ``pip install .`` would."""
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation",
                    "--outdir", str(out_dir), str(ROOT)],
                   check=True, capture_output=True, text=True)
    return next(out_dir.glob("ctxmgr-*.whl"))


def unwanted_files(names: Sequence[str]) -> list[str]:
    """Files of the wheel under a generator or test-data path."""
    return [n for n in names if any(part in n for part in NOT_IN_WHEEL)]


def wheel_table(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        infos = [i for i in archive.infolist() if not i.is_dir()]
        lines = {i.filename: archive.read(i).count(b"\n")
                 for i in infos if i.filename.endswith(".py")}
    by_package: dict[str, list[zipfile.ZipInfo]] = {}
    for info in infos:
        by_package.setdefault(info.filename.split("/")[0], []).append(info)
    rows = ["| part of the wheel | files | Python lines | uncompressed |",
            "|---|---:|---:|---:|"]
    for package, members in sorted(by_package.items()):
        py_lines = sum(lines.get(m.filename, 0) for m in members)
        size = sum(m.file_size for m in members)
        rows.append(f"| `{package}` | {len(members)} | {py_lines:,} | {size / 1024:,.0f} KB |")
    rows.append(f"| **wheel** ({wheel.name}) | {len(infos)} | {sum(lines.values()):,} | "
                f"{sum(i.file_size for i in infos) / 1024:,.0f} KB "
                f"({wheel.stat().st_size / 1024:,.0f} KB compressed) |")
    return rows


_PYCACHE = tempfile.mkdtemp(prefix="bench-install-pycache-")


def _env() -> dict[str, str]:
    """This checkout first on the path, bytecode cached (in a folder of this run's own,
    filled by a first, untimed import) as ``pip install`` leaves it: compiling every
    module from source, as under ``PYTHONDONTWRITEBYTECODE``, doubles the time."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in PACKAGE_ROOTS)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE
    for name in ("PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def import_seconds(statement: str | None, runs: int) -> float:
    """Median over ``runs`` fresh interpreters of the ``import`` statement's own time
    (``statement=None``: a bare interpreter's start-up, timed from outside)."""
    if statement is not None:  # compiles what the statement loads, untimed
        subprocess.run([sys.executable, "-c", statement], check=True, env=_env())
    times = []
    for _ in range(runs):
        if statement is None:
            code = "pass"
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=_env())
            times.append(time.perf_counter() - start)
            continue
        code = (f"import time; t = time.perf_counter(); {statement}; "
                "print(time.perf_counter() - t)")
        out = subprocess.run([sys.executable, "-c", code], check=True, env=_env(),
                             capture_output=True, text=True).stdout
        times.append(float(out))
    return statistics.median(times)


def self_time_by_module(statement: str) -> tuple[Counter[str], int]:
    """``-X importtime``'s self time (µs) summed by top-level module, and how many modules
    the statement loads."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", statement],
                         check=True, env=_env(), capture_output=True, text=True).stderr
    totals: Counter[str] = Counter()
    count = 0
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = line.removeprefix("import time:").split("|")
        totals[name.strip().split(".")[0]] += int(self_us)
        count += 1
    return totals, count


def import_table(runs: int, top: int) -> list[str]:
    bare = import_seconds(None, runs)
    rows = [f"Median of {runs} fresh interpreters; a bare interpreter starts in "
            f"{bare * 1000:.0f} ms (not included below).", "",
            "| import | time | ratio to `ctxmgr` | modules loaded | where the time goes "
            "(`-X importtime` self time) |",
            "|---|---:|---:|---:|---|"]
    base: float | None = None
    for statement in IMPORTS:
        seconds = import_seconds(statement, runs)
        base = base or seconds
        totals, count = self_time_by_module(statement)
        spent = sum(totals.values()) or 1
        split = ", ".join(f"{name} {us / 1000:.0f} ms ({us / spent:.0%})"
                          for name, us in totals.most_common(top))
        rows.append(f"| `{statement}` | {seconds * 1000:.0f} ms | {seconds / base:.1f}x | "
                    f"{count} | {split} |")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh interpreters per import")
    parser.add_argument("--top", type=int, default=8, help="modules shown per import")
    parser.add_argument("--keep-wheel", type=Path, help="build the wheel into this folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(args.keep_wheel or Path(tmp))
        print("## The wheel\n")
        print("\n".join(wheel_table(wheel)))
        with zipfile.ZipFile(wheel) as archive:
            unwanted = unwanted_files(archive.namelist())
    print(f"\nGenerator or test-data files in the wheel: {len(unwanted)}")
    for name in unwanted:
        print(f"  {name}")
    print("\n## Import time\n")
    print("\n".join(import_table(args.runs, args.top)))
    shutil.rmtree(_PYCACHE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
