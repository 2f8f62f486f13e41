#!/usr/bin/env bash
# Regenerate every generated table of benchmarks/RESULTS.md (and benchmarks/frontier*.png) from
# the recorded runs in benchmarks/data, in .venv (created and installed on first use). About 25
# minutes on 2 cores.
# JSON reports go to ./replay-results (or $CTXMGR_BENCH_OUT).
set -euo pipefail
CTXMGR_EXTRA=dev
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
OUT="${CTXMGR_BENCH_OUT:-replay-results}"
"$VENV/bin/python" benchmarks/bench_replay.py --out "$OUT" --markdown benchmarks/RESULTS.md
"$VENV/bin/python" benchmarks/bench_frontier.py --json "$OUT/frontier.json" \
  --markdown benchmarks/RESULTS.md --plot benchmarks/frontier.png
"$VENV/bin/python" benchmarks/bench_cache.py --json "$OUT/cache.json" \
  --markdown benchmarks/RESULTS.md
"$VENV/bin/python" benchmarks/bench_overhead.py --json "$OUT/overhead.json" \
  --markdown benchmarks/RESULTS.md
"$VENV/bin/python" benchmarks/bench_llamaindex.py --markdown benchmarks/RESULTS.md
"$VENV/bin/python" benchmarks/bench_instructions.py --json "$OUT/instructions.json" \
  --markdown benchmarks/RESULTS.md
"$VENV/bin/python" benchmarks/bench_languages.py --json "$OUT/languages.json" \
  --markdown benchmarks/RESULTS.md
