#!/usr/bin/env bash
# Starts PostgreSQL on loopback with its data in /var/lib/store (an emptyDir), then FerretDB on
# :27017 in the foreground; when FerretDB exits the container exits.
set -euo pipefail
export PATH=/usr/lib/postgresql/15/bin:$PATH
data=/var/lib/store
initdb -D "$data/pg" --auth=trust --username=ferretdb --encoding=UTF8 --no-sync >/dev/null
# FerretDB holds a pooled connection per statement of a command (see test/support/ferretdb.ts).
pg_ctl -D "$data/pg" -l "$data/postgres.log" -w \
  -o "-c listen_addresses=127.0.0.1 -c unix_socket_directories=/tmp -c max_connections=400 -c fsync=off" start >/dev/null
createdb -h 127.0.0.1 -U ferretdb ferretdb
exec ferretdb --handler=postgresql \
  "--postgresql-url=postgres://ferretdb@127.0.0.1:5432/ferretdb?pool_max_conns=300" \
  --listen-addr=:27017 --state-dir="$data" --telemetry=disable --log-level=error --debug-addr=-
