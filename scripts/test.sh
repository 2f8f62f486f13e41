#!/usr/bin/env bash
# Run the test suite in .venv (created and installed on first use). Extra args go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
exec "$VENV/bin/python" -m pytest -n 2 "$@"
