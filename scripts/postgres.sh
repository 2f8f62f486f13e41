#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on 127.0.0.1 for the tests and benchmarks (trust auth, a
# free port, data in a temp folder). Used by scripts/test.sh and .ci/run.
#
#   bash scripts/postgres.sh install     install Debian's postgresql package if absent (root)
#   eval "$(bash scripts/postgres.sh start)"
#                                        start a cluster; prints the export lines of
#                                        CTXMGR_TEST_POSTGRES_URI and CTXMGR_TEST_POSTGRES_DIR
#   bash scripts/postgres.sh stop [DIR]  stop it and delete its folder
#                                        (default: $CTXMGR_TEST_POSTGRES_DIR)
#
# Messages go to stderr, so `start`'s stdout is only the export lines.
set -euo pipefail

say() { echo "postgres.sh: $*" >&2; }

# The folder holding initdb and pg_ctl: PATH first (Homebrew, Postgres.app), then
# Debian's /usr/lib/postgresql/<version>/bin, newest version first.
pg_bindir() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

install_postgres() {
  if pg_bindir >/dev/null; then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "PostgreSQL is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y"
    say "postgresql; macOS: brew install postgresql) or point the tests at a server you"
    say "have: export CTXMGR_TEST_POSTGRES_URI=postgresql://USER@HOST:PORT/DB"
    return 1
  fi
  say "installing Debian's postgresql package (once per machine)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  pg_bindir >/dev/null || { say "apt-get installed postgresql but no initdb was found"; return 1; }
}

# Run a command as the cluster's owner: initdb and the server refuse to run as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_postgres() {
  install_postgres
  local bin dir port try
  bin="$(pg_bindir)"
  # A throwaway cluster need not survive a crash: no flush to disk at each commit.
  THROWAWAY="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  dir="$(mktemp -d "${TMPDIR:-/tmp}/ctxmgr-postgres.XXXXXX")"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  as_owner "'$bin/initdb' -D '$dir/data' -U postgres -A trust --no-sync -E UTF8 >'$dir/initdb.log' 2>&1" \
    || { say "initdb failed:"; cat "$dir/initdb.log" >&2; rm -rf "$dir"; return 1; }
  for try in 1 2 3 4 5; do  # a port found free can be taken before the server binds it
    port="$(free_port)"
    if as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 \
        -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 $THROWAWAY\" start >/dev/null"; then
      say "PostgreSQL running on 127.0.0.1:$port (data in $dir)"
      echo "export CTXMGR_TEST_POSTGRES_URI='postgresql://postgres@127.0.0.1:$port/postgres?sslmode=disable'"
      echo "export CTXMGR_TEST_POSTGRES_DIR='$dir'"
      return 0
    fi
  done
  say "the server did not start; its log:"; cat "$dir/server.log" >&2
  rm -rf "$dir"
  return 1
}

stop_postgres() {
  local dir="${1:-${CTXMGR_TEST_POSTGRES_DIR:-}}" bin
  if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
    say "no cluster to stop (give its folder or set CTXMGR_TEST_POSTGRES_DIR)"; return 1
  fi
  bin="$(pg_bindir)"
  as_owner "'$bin/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null" || say "pg_ctl stop failed"
  rm -rf "$dir"
}

case "${1:-}" in
  install) install_postgres ;;
  start) start_postgres ;;
  stop) stop_postgres "${2:-}" ;;
  *) say "usage: bash scripts/postgres.sh install | start | stop [DIR]"; exit 2 ;;
esac
