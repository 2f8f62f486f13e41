#!/usr/bin/env bash
# Run the test suite in .venv (created and installed on first use). Extra args go to pytest.
# The Postgres tests use CTXMGR_TEST_POSTGRES_URI and the Redis tests CTXMGR_TEST_REDIS_URI
# when they are set; otherwise a throwaway PostgreSQL (scripts/postgres.sh) and Redis
# (scripts/redis.sh) are started for this run and stopped when it ends.
set -euo pipefail
CTXMGR_EXTRA=dev
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
cleanup() {
  if [ -n "${STARTED_POSTGRES:-}" ]; then
    bash "$ROOT/scripts/postgres.sh" stop "$CTXMGR_TEST_POSTGRES_DIR" || true
  fi
  if [ -n "${STARTED_REDIS:-}" ]; then
    bash "$ROOT/scripts/redis.sh" stop "$CTXMGR_TEST_REDIS_DIR" || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "${CTXMGR_TEST_POSTGRES_URI:-}" ]; then
  eval "$(bash "$ROOT/scripts/postgres.sh" start)"
  STARTED_POSTGRES=1
fi
if [ -z "${CTXMGR_TEST_REDIS_URI:-}" ]; then
  eval "$(bash "$ROOT/scripts/redis.sh" start)"
  STARTED_REDIS=1
fi
"$VENV/bin/python" -m pytest -n 2 "$@"
