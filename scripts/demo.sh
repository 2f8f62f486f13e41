#!/usr/bin/env bash
# Run `ctxmgr demo` in .venv (created on first use, with only what the demo needs: ctxmgr[demo]).
# Extra args go to the demo. scripts/test.sh later adds the dev set to the same .venv.
set -euo pipefail
CTXMGR_EXTRA=demo
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
exec "$VENV/bin/ctxmgr" demo "$@"
