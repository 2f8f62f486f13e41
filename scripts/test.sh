#!/usr/bin/env bash
# Run the test suite in .venv (created and installed on first use). Extra args go to pytest.
# The Postgres tests use CTXMGR_TEST_POSTGRES_URI when it is set; otherwise a throwaway
# PostgreSQL is started for this run (scripts/postgres.sh) and stopped when it ends.
set -euo pipefail
CTXMGR_EXTRA=dev
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
if [ -z "${CTXMGR_TEST_POSTGRES_URI:-}" ]; then
  eval "$(bash "$ROOT/scripts/postgres.sh" start)"
  trap 'bash "$ROOT/scripts/postgres.sh" stop "$CTXMGR_TEST_POSTGRES_DIR"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi
"$VENV/bin/python" -m pytest -n 2 "$@"
