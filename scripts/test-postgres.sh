#!/usr/bin/env bash
# A PostgreSQL 15 server for the tests: a temporary cluster on 127.0.0.1 (port 54329 unless $OPENPHOTOKIT_PG_PORT),
# trust authentication on loopback only, a `photos` role owning a `photos` database. Prints the URL the tests read
# from OPENPHOTOKIT_TEST_POSTGRES, in a form to eval:
#
#   eval "$(scripts/test-postgres.sh start)"     # starts it (or finds it running) and exports the URL
#   scripts/test-postgres.sh stop                 # stops it and removes the cluster
#   scripts/test-postgres.sh crash                # stops it at once (-m immediate: what a power cut leaves); start
#                                                 # brings it back through crash recovery (the reliability tests)
#
# Idempotent: a running cluster is reused. Needs Debian's postgresql-15 (scripts/setup.sh installs it); as root it runs
# the server as the postgres user (PostgreSQL refuses root).
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
PORT=${OPENPHOTOKIT_PG_PORT:-54329}
DIR=${OPENPHOTOKIT_PG_DIR:-/tmp/openphotokit-postgres-$PORT}
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-start}" in
start)
  if ! as_postgres "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
      rm -rf "$DIR" && mkdir -p "$DIR" && chmod 700 "$DIR"
      [ "$(id -u)" -eq 0 ] && chown postgres "$DIR"
      as_postgres "$BIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    # Loopback and the cluster's own socket folder only; fsync on (the kill tests stop it with -m immediate).
    as_postgres "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 \
      -o "-p $PORT -k $DIR -h 127.0.0.1 -c max_connections=200" start >/dev/null
  fi
  as_postgres psql -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SELECT 'CREATE ROLE photos LOGIN CREATEDB' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photos') \gexec
SELECT 'CREATE DATABASE photos OWNER photos' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'photos') \gexec
SQL
  echo "export OPENPHOTOKIT_TEST_POSTGRES=postgres://photos@127.0.0.1:$PORT/photos"
  ;;
stop)
  as_postgres "$BIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
  ;;
crash)
  as_postgres "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null
  ;;
*)
  echo "usage: $0 start|stop|crash" >&2
  exit 64
  ;;
esac
