# Sourced by the other scripts: create or reuse .venv and install ctxmgr into it with the extra
# the caller names in CTXMGR_EXTRA before sourcing: "demo" (what `ctxmgr demo` needs: the
# LangGraph agent and its progress bar) or "dev" (the default: every extra, the test and lint
# tools). One .venv serves both: demo.sh first and test.sh later adds the dev set to it.
#
# A stamp per extra records the pyproject.toml it was installed from; an install is redone only
# when pyproject.toml changed since. The dev set holds the demo's, so a current dev stamp
# satisfies demo.sh, while a demo stamp never satisfies test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CTXMGR_VENV:-$ROOT/.venv}"
EXTRA="${CTXMGR_EXTRA:-dev}"

say() { echo "[ctxmgr setup] $*" >&2; }

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

# The stamp of an extra; "dev" keeps the name it always had, so existing .venvs stay current.
stamp_of() {
  if [ "$1" = dev ]; then echo "$VENV/.ctxmgr-installed"; else echo "$VENV/.ctxmgr-installed-$1"; fi
}

if [ ! -x "$VENV/bin/python" ]; then
  PY="$(pick_python)"
  say "creating a virtual environment in $VENV with $PY"
  "$PY" -m venv "$VENV"
fi
WANT="$("$VENV/bin/python" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$ROOT/pyproject.toml")"
current() { [ -f "$(stamp_of "$1")" ] && [ "$(cat "$(stamp_of "$1")")" = "$WANT" ]; }

if current "$EXTRA" || { [ "$EXTRA" = demo ] && current dev; }; then
  :  # installed from this pyproject.toml already
else
  case "$EXTRA" in
    demo) say "installing ctxmgr[demo] into $VENV: the LangGraph agent the demo runs, about 50 packages and 130 MB (first run only)" ;;
    dev) say "installing ctxmgr[dev] into $VENV: every extra and the test tools, about 135 packages and 630 MB (first run only, a few minutes)" ;;
    *) say "installing ctxmgr[$EXTRA] into $VENV" ;;
  esac
  # pip's own lines (each package collected, a bar per download) show the progress.
  if ! "$VENV/bin/python" -c 'import sys, pip; sys.exit(int(pip.__version__.split(".")[0]) < 23)'; then
    say "upgrading pip (the one in $VENV is older than 23)"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade pip >&2
  fi
  "$VENV/bin/python" -m pip install --disable-pip-version-check -e "$ROOT[$EXTRA]" >&2
  echo "$WANT" > "$(stamp_of "$EXTRA")"
  say "installed ctxmgr[$EXTRA]"
fi
