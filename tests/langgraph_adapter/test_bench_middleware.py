"""benchmarks/bench_middleware.py runs from a clone and prints both of its tables."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_middleware.py"


def test_bench_middleware_prints_step_times_and_per_call_times_by_history_length() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--steps", "30", "--sizes", "100", "300",
                          "--calls", "3"], capture_output=True, text=True, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^\| without ctxmgr \| [\d.]+ ms \| [\d.]+ ms \| 1\.00x \|", run.stdout,
                     re.M), run.stdout
    assert re.search(r"^\| with ContextMiddleware \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+x \| "
                     r"[\d.]+ ms \| [\d.]+ ms \|$", run.stdout, re.M), run.stdout
    for size in ("100", "300"):
        assert re.search(rf"^\| {size} \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+ ms \|$", run.stdout,
                         re.M), run.stdout
