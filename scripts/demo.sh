#!/usr/bin/env bash
# Run `ctxmgr demo` in .venv (created and installed on first use). Extra args go to the demo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
exec "$VENV/bin/ctxmgr" demo "$@"
