#!/usr/bin/env bash
# A PostgreSQL 15 server for the tests: a temporary cluster on 127.0.0.1 (port 54329 unless $OPENPHOTOKIT_PG_PORT),
# trust authentication on loopback only (but for a `photos_password` role, password `right-password`), a `photos` role
# owning a `photos` database, TLS with a certificate authority of its own. Prints the URL the tests read from OPENPHOTOKIT_TEST_POSTGRES (and the authority's certificate,
# OPENPHOTOKIT_TEST_POSTGRES_CA), in a form to eval:
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
# Another address to listen on besides loopback (a test's network namespace: trusted from its /24).
HOST=${OPENPHOTOKIT_PG_HOST:-}
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
      -o "-p $PORT -k $DIR -h 127.0.0.1${HOST:+,$HOST} -c max_connections=400" start >/dev/null
  fi
  # TLS for the tests of sslmode: a certificate authority of the cluster's own and a certificate for localhost and
  # 127.0.0.1 that it signed (made once per cluster; the server reloads to take them).
  if [ ! -f "$DIR/ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=OpenPhotoKit test CA" \
      -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$DIR/server.ext"
    openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial -days 30 \
      -extfile "$DIR/server.ext" -out "$DIR/server.crt" 2>/dev/null
    chmod 600 "$DIR/server.key" && chmod 644 "$DIR/ca.crt"
    [ "$(id -u)" -eq 0 ] && chown postgres "$DIR/server.key" "$DIR/server.crt"
  fi
  # One role that must give a password (the tests of a wrong one); everyone else is trusted on loopback.
  if ! grep -q '^host all photos_password ' "$DIR/data/pg_hba.conf"; then
    as_postgres sed -i '1i host all photos_password 127.0.0.1/32 scram-sha-256' "$DIR/data/pg_hba.conf"
  fi
  if [ -n "$HOST" ] && ! grep -q "^host all all ${HOST%.*}.0/24 trust" "$DIR/data/pg_hba.conf"; then
    echo "host all all ${HOST%.*}.0/24 trust" | as_postgres tee -a "$DIR/data/pg_hba.conf" >/dev/null
  fi
  as_postgres psql -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT 'CREATE ROLE photos LOGIN CREATEDB' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photos') \\gexec
SELECT 'CREATE DATABASE photos OWNER photos' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'photos') \\gexec
SELECT 'CREATE ROLE photos_password LOGIN PASSWORD ''right-password''' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'photos_password') \\gexec
GRANT CREATE ON DATABASE photos TO photos_password;
ALTER SYSTEM SET ssl_cert_file = '$DIR/server.crt';
ALTER SYSTEM SET ssl_key_file = '$DIR/server.key';
ALTER SYSTEM SET ssl = on;
SELECT pg_reload_conf();
SQL
  echo "export OPENPHOTOKIT_TEST_POSTGRES=postgres://photos@${HOST:-127.0.0.1}:$PORT/photos"
  echo "export OPENPHOTOKIT_TEST_POSTGRES_CA=$DIR/ca.crt"
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
