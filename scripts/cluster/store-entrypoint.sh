#!/usr/bin/env bash
# Starts PostgreSQL on loopback with its data in /var/lib/store, then FerretDB on :27017; when
# FerretDB exits the container exits. The data outlives the container (the test keeps it on the
# node), so a store scaled to 0 and back starts on what it had: PostgreSQL is initialised only once
# and stopped cleanly on SIGTERM.
set -euo pipefail
export PATH=/usr/lib/postgresql/15/bin:$PATH
data=/var/lib/store
fresh=""
if [[ ! -f "$data/pg/PG_VERSION" ]]; then
  initdb -D "$data/pg" --auth=trust --username=ferretdb --encoding=UTF8 --no-sync >/dev/null
  fresh=1
fi
# Left by a container that was killed before it could stop PostgreSQL; one store pod runs at a time.
rm -f "$data/pg/postmaster.pid"
# FerretDB holds a pooled connection per statement of a command, and its prepared statements need a
# plan per call to reach an index (test/support/ferretdb.ts says why of both).
pg_ctl -D "$data/pg" -l "$data/postgres.log" -w \
  -o "-c listen_addresses=127.0.0.1 -c unix_socket_directories=/tmp -c max_connections=400 -c fsync=off -c plan_cache_mode=force_custom_plan" start >/dev/null
[[ -z "$fresh" ]] || createdb -h 127.0.0.1 -U ferretdb ferretdb
# GIN twins of FerretDB's indexes, so its pushed-down equalities are index scans (the file says why).
psql -q -h 127.0.0.1 -U ferretdb -d ferretdb -v ON_ERROR_STOP=1 -f /usr/local/share/herald/postgresql-gin-twins.sql
ferretdb --handler=postgresql \
  "--postgresql-url=postgres://ferretdb@127.0.0.1:5432/ferretdb?pool_max_conns=300" \
  --listen-addr=:27017 --state-dir="$data" --telemetry=disable --log-level=error --debug-addr=- &
ferret=$!
stop() {
  kill -TERM "$ferret" 2>/dev/null || true
  wait "$ferret" || true
  pg_ctl -D "$data/pg" -m fast -w stop >/dev/null || true
  exit 0
}
trap stop TERM INT
status=0
wait "$ferret" || status=$?
pg_ctl -D "$data/pg" -m fast -w stop >/dev/null || true
exit "$status"
