#!/usr/bin/env bash
# FerretDB v1.24.2 with its PostgreSQL handler over a throwaway PostgreSQL cluster — the
# "production-like" MongoDB-wire backend for benchmarks (docs/benchmarks.md). Tests and the dev
# stack keep the SQLite handler (test/support/ferretdb.ts, DECISIONS §8).
#
#   scripts/ferretdb-postgres.sh [--port N] [DATA_DIR]
#
# - installs PostgreSQL from Debian if no PostgreSQL server is found (idempotent; needs root);
# - initialises a cluster in DATA_DIR/pgdata (reused when it already exists) and starts it
#   listening on a unix socket only (DATA_DIR/pgsock; no TCP), as the `postgres` OS user when run
#   as root (initdb refuses root), otherwise as the current user;
# - builds FerretDB if .tools/bin/ferretdb is missing, starts it with --handler=postgresql on
#   127.0.0.1:<port> (a free port unless --port), prints `MONGODB_URI=mongodb://127.0.0.1:<port>/`
#   on stdout (and writes it to DATA_DIR/uri); everything else goes to stderr / DATA_DIR/*.log;
# - stops FerretDB and PostgreSQL on SIGINT/SIGTERM (or when FerretDB exits). Without DATA_DIR a
#   temporary directory is used and removed on exit; a given DATA_DIR is kept. (Started with `&`
#   from a non-interactive shell, bash ignores SIGINT for the job: stop it with SIGTERM there.)
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '[ferretdb-postgres] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

port=""
data_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --port=*) port="${1#--port=}"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) data_dir="$1"; shift ;;
  esac
done

# --- cleanup on exit / SIGINT / SIGTERM (set up before anything is created) --------------------
own_dir=0
pg_started=0
ferret_pid=""
cleanup() {
  local code=$?
  trap - INT TERM EXIT
  if [[ -n "$ferret_pid" ]] && kill -0 "$ferret_pid" 2>/dev/null; then
    kill -TERM "$ferret_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$ferret_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$ferret_pid" 2>/dev/null || true
  fi
  if (( pg_started )); then
    as_pg "$PG_BIN/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if (( own_dir )); then rm -rf "$data_dir"; fi
  log "stopped"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- PostgreSQL binaries (Debian: /usr/lib/postgresql/<major>/bin) --------------------------------
pg_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$dir" && -x "$dir/postgres" && -x "$dir/initdb" ]]; then echo "$dir"; return 0; fi
  if command -v pg_config >/dev/null 2>&1 && [[ -x "$(pg_config --bindir)/postgres" ]]; then pg_config --bindir; return 0; fi
  return 1
}

if ! PG_BIN="$(pg_bindir)"; then
  [[ "$(id -u)" == 0 ]] || die "PostgreSQL is not installed; run as root once (or: apt-get install -y postgresql)"
  log "installing PostgreSQL from Debian (first time only)"
  export DEBIAN_FRONTEND=noninteractive
  # No default 'main' cluster: we only ever run our own throwaway clusters.
  mkdir -p /etc/postgresql-common
  if ! grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf; then
    echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
  fi
  apt-get update -qq >&2
  # our createcluster.conf pre-exists the package's conffile: keep ours without prompting
  apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold postgresql >&2
  PG_BIN="$(pg_bindir)" || die "PostgreSQL installed but no server binaries found under /usr/lib/postgresql"
fi

# --- FerretDB -------------------------------------------------------------------------------------
FERRETDB="$REPO_ROOT/.tools/bin/ferretdb"
if [[ ! -x "$FERRETDB" ]]; then
  log "building FerretDB (scripts/tools/ferretdb.sh)"
  bash "$REPO_ROOT/scripts/tools/ferretdb.sh" >/dev/null
fi

# --- directories and OS user ----------------------------------------------------------------------
if [[ -z "$data_dir" ]]; then
  data_dir="$(mktemp -d "${TMPDIR:-/tmp}/herald-ferretdb-pg.XXXXXX")"
  chmod 711 "$data_dir" # mktemp's 0700 would keep the postgres user out; pgdata itself stays 0700
  own_dir=1
fi
mkdir -p "$data_dir"
data_dir="$(cd "$data_dir" && pwd)"
pgdata="$data_dir/pgdata"
sockdir="$data_dir/pgsock"
state_dir="$data_dir/ferretdb-state"
mkdir -p "$sockdir" "$state_dir"
# unix socket paths are limited to ~107 bytes
(( ${#sockdir} < 90 )) || die "DATA_DIR path too long for a unix socket: $sockdir"

if [[ "$(id -u)" == 0 ]]; then
  pg_user=postgres
  id "$pg_user" >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin "$pg_user"
  # the postgres user must reach DATA_DIR: check every parent is traversable
  if ! runuser -u "$pg_user" -- test -x "$data_dir"; then
    die "user '$pg_user' cannot reach $data_dir (a parent directory is not world-executable); pick a DATA_DIR under /tmp"
  fi
  chown "$pg_user" "$sockdir"
  as_pg() { runuser -u "$pg_user" -- "$@"; }
else
  pg_user="$(id -un)"
  as_pg() { "$@"; }
fi

# --- ports ----------------------------------------------------------------------------------------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    port_in_use "$p" || { echo "$p"; return 0; }
  done
  return 1
}
[[ -n "$port" ]] || port="$(free_port)" || die "no free port"
port_in_use "$port" && die "127.0.0.1:$port is already in use"
# PostgreSQL listens on no TCP port; its number only names the socket file in $sockdir.
pg_port=5432

# --- PostgreSQL cluster ---------------------------------------------------------------------------
if [[ ! -s "$pgdata/PG_VERSION" ]]; then
  log "initialising PostgreSQL cluster in $pgdata"
  mkdir -p "$pgdata"
  [[ "$(id -u)" == 0 ]] && chown "$pg_user" "$pgdata"
  chmod 700 "$pgdata"
  # trust auth is safe here: the only listener is a unix socket in a directory of ours
  as_pg "$PG_BIN/initdb" -D "$pgdata" --username=ferretdb --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
    >"$data_dir/initdb.log" 2>&1 || { cat "$data_dir/initdb.log" >&2; die "initdb failed"; }
fi
if as_pg "$PG_BIN/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
  die "a PostgreSQL server is already running on $pgdata (another instance of this script?)"
fi
touch "$data_dir/postgresql.log"
[[ "$(id -u)" == 0 ]] && chown "$pg_user" "$data_dir/postgresql.log"
log "starting PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') (unix socket $sockdir)"
as_pg "$PG_BIN/pg_ctl" -D "$pgdata" -l "$data_dir/postgresql.log" -w -t 60 \
  -o "-c listen_addresses='' -k $sockdir -p $pg_port" start >/dev/null \
  || { tail -n 30 "$data_dir/postgresql.log" >&2; die "PostgreSQL did not start"; }
pg_started=1
if ! as_pg "$PG_BIN/psql" -h "$sockdir" -p "$pg_port" -U ferretdb -d postgres -Atqc \
    "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" | grep -q 1; then
  as_pg "$PG_BIN/createdb" -h "$sockdir" -p "$pg_port" -U ferretdb ferretdb
fi

# --- FerretDB -------------------------------------------------------------------------------------
pg_url="postgres://ferretdb@/ferretdb?host=$sockdir&port=$pg_port"
log "starting FerretDB (postgresql handler) on 127.0.0.1:$port"
"$FERRETDB" \
  --handler=postgresql \
  "--postgresql-url=$pg_url" \
  "--listen-addr=127.0.0.1:$port" \
  "--state-dir=$state_dir" \
  --telemetry=disable \
  "--log-level=${FERRETDB_LOG_LEVEL:-warn}" \
  --debug-addr=- \
  >>"$data_dir/ferretdb.log" 2>&1 &
ferret_pid=$!

for _ in $(seq 1 300); do
  kill -0 "$ferret_pid" 2>/dev/null || { tail -n 30 "$data_dir/ferretdb.log" >&2; die "FerretDB exited early"; }
  port_in_use "$port" && break
  sleep 0.1
done
port_in_use "$port" || die "FerretDB did not listen on 127.0.0.1:$port"

uri="mongodb://127.0.0.1:$port/"
echo "$uri" > "$data_dir/uri"
log "data: $data_dir (logs: postgresql.log, ferretdb.log); psql: psql -h $sockdir -U ferretdb ferretdb"
echo "MONGODB_URI=$uri"

# Run until FerretDB exits or we are signalled (wait returns early on a trapped signal).
set +e
wait "$ferret_pid"
status=$?
set -e
ferret_pid=""
log "FerretDB exited with status $status"
exit "$status"
