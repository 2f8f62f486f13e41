# Sourced by the other scripts: create or reuse .venv and install ctxmgr[dev] into it.
# Reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CTXMGR_VENV:-$ROOT/.venv}"

pick_python() {
  for py in "${PYTHON:-}" python3.11 python3.12 python3.13 python3; do
    [ -n "$py" ] || continue
    if command -v "$py" >/dev/null 2>&1 &&
       "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "ctxmgr needs Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

if [ ! -x "$VENV/bin/python" ]; then
  PY="$(pick_python)"
  echo "creating virtual environment in $VENV with $PY" >&2
  "$PY" -m venv "$VENV"
fi
STAMP="$VENV/.ctxmgr-installed"
WANT="$(cat "$ROOT/pyproject.toml" | "$VENV/bin/python" -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "installing ctxmgr[dev] into $VENV (first run takes a few minutes)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[dev]" >&2
  echo "$WANT" > "$STAMP"
fi
