"""benchmarks/bench_server.py drives the LangGraph server from a clone and prints its tables,
with every check at zero for ctxmgr's graph (a small load: 3 threads of 8 calls)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_server.py"


def test_bench_server_measures_both_graphs_and_ctxmgrs_checks_hold() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--threads", "3", "--windows", "8000",
                          "--calls", "8", "--profile"], capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    rows = {cells[0]: cells for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in run.stdout.splitlines()
        if line.startswith(("| plain | 3 |", "| agent | 3 |")))}
    header = next(line for line in run.stdout.splitlines() if line.startswith("| graph |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    plain, agent = (dict(zip(columns, rows[g], strict=True)) for g in ("plain", "agent"))
    assert plain["calls"] == agent["calls"] == "24", run.stdout
    assert plain["ratio"] == "1.00" and float(agent["ratio"]) > 0, run.stdout
    assert float(agent["server CPU ms/call"]) > 0 and float(agent["call p99 ms"]) > 0
    assert int(plain["over budget"]) > 0, "without ctxmgr the prompts outgrow the window"
    assert agent["over budget"] == agent["cross-thread"] == agent["lost offloads"] == "0"
    assert float(agent["store KB/thread"]) > 0
    assert re.search(r"^\| ctxmgr core: compressor \(autocontext\) \| [\d.]+ \| 0\.00 \|",
                     run.stdout, re.M), run.stdout
