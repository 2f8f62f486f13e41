#!/usr/bin/env bash
# A throwaway Redis server on 127.0.0.1 for the tests (Debian's redis-server: a free port, no
# persistence, files in a temp folder). Used by scripts/test.sh and .ci/run.
#
#   bash scripts/redis.sh install     install Debian's redis-server package if absent (root)
#   eval "$(bash scripts/redis.sh start)"
#                                     start a server; prints the export lines of
#                                     CTXMGR_TEST_REDIS_URI and CTXMGR_TEST_REDIS_DIR
#   bash scripts/redis.sh stop [DIR]  stop it and delete its folder
#                                     (default: $CTXMGR_TEST_REDIS_DIR)
#
# Messages go to stderr, so `start`'s stdout is only the export lines.
set -euo pipefail

say() { echo "redis.sh: $*" >&2; }

install_redis() {
  if command -v redis-server >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "Redis is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y"
    say "redis-server; macOS: brew install redis) or point the tests at a server you have:"
    say "export CTXMGR_TEST_REDIS_URI=redis://HOST:PORT"
    return 1
  fi
  say "installing Debian's redis-server package (once per machine)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >&2
  command -v redis-server >/dev/null 2>&1 || { say "apt-get installed redis-server but it is not on PATH"; return 1; }
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_redis() {
  install_redis
  local dir port try
  dir="$(mktemp -d "${TMPDIR:-/tmp}/ctxmgr-redis.XXXXXX")"
  for try in 1 2 3 4 5; do  # a port found free can be taken before the server binds it
    port="$(free_port)"
    if redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save "" \
        --appendonly no --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
        >/dev/null 2>&1; then
      for _ in $(seq 100); do  # up to 10 s for it to answer
        if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
          say "Redis running on 127.0.0.1:$port (files in $dir)"
          echo "export CTXMGR_TEST_REDIS_URI='redis://127.0.0.1:$port'"
          echo "export CTXMGR_TEST_REDIS_DIR='$dir'"
          return 0
        fi
        sleep 0.1
      done
      [ -f "$dir/redis.pid" ] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
    fi
  done
  say "the server did not start; its log:"; cat "$dir/redis.log" >&2 || true
  rm -rf "$dir"
  return 1
}

stop_redis() {
  local dir="${1:-${CTXMGR_TEST_REDIS_DIR:-}}" pid
  if [ -z "$dir" ] || [ ! -f "$dir/redis.pid" ]; then
    say "no server to stop (give its folder or set CTXMGR_TEST_REDIS_DIR)"; return 1
  fi
  pid="$(cat "$dir/redis.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -rf "$dir"
}

case "${1:-}" in
  install) install_redis ;;
  start) start_redis ;;
  stop) stop_redis "${2:-}" ;;
  *) say "usage: bash scripts/redis.sh install | start | stop [DIR]"; exit 2 ;;
esac
