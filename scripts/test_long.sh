#!/usr/bin/env bash
# The long profile, to run by hand: every race and fault scenario repeated (two processes x 200
# memo writes, 20 times) and many more Hypothesis examples. Extra args go to pytest, e.g.
#   bash scripts/test_long.sh tests/core/test_memo_concurrency.py
set -euo pipefail
CTXMGR_PROFILE=long exec bash "$(dirname "${BASH_SOURCE[0]}")/test.sh" "$@"
