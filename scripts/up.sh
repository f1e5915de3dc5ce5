#!/usr/bin/env bash
# `make up`: Herald (API + delivery engine) on http://127.0.0.1:8080 in the foreground.
# MongoDB: $MONGODB_URI if set, else a local mongod if on PATH (data in .data/mongo), else FerretDB
# v1.24.2 with its PostgreSQL handler over PostgreSQL from npm (test/support/ferretdb.ts; data in
# .data/store, kept across restarts). Dev defaults: a generated master key kept in
# .data/master-key (0600), an SSRF allow-list that lets deliveries reach loopback, and the event
# catalog of scripts/dev-config.json.
# Ctrl-C stops Herald (draining in-flight deliveries), then the database it started.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
DATA="$ROOT/.data"
NODE="$ROOT/node_modules/.bin/node" # Node 24 from the `node` devDependency (PATH may have an older one)
SERVER="$ROOT/packages/server/dist/bin/herald-server.js"
CLI="$ROOT/packages/cli/dist/bin/herald.js"
# shellcheck source=scripts/private-files.sh
. "$ROOT/scripts/private-files.sh"
# The first start prints the bootstrap token: if that goes to a file, only its owner may read it.
restrict_redirected_output
mkdir -p "$DATA"
chmod 700 "$DATA"
# As root, PostgreSQL runs as the `postgres` user, which must pass through .data to its cluster
# (traverse only: the key and token files stay 0600).
[[ "$(id -u)" != 0 ]] || chmod 711 "$DATA"

say() { printf '\033[1m[up]\033[0m %s\n' "$*" >&2; }
[[ -x "$NODE" ]] || { say "Node 24 missing: run 'make deps'"; exit 1; }
# Whatever already listens on Herald's address (say, a `make up` of another checkout) would answer
# the readiness probe below in this Herald's place: refuse at once, before starting a database.
if (exec 3<>"/dev/tcp/${HERALD_HOST:-127.0.0.1}/${HERALD_PORT:-8080}") 2>/dev/null; then
  say "something already listens on ${HERALD_HOST:-127.0.0.1}:${HERALD_PORT:-8080} (another 'make up'?): stop it, or set HERALD_PORT"
  exit 1
fi
[[ -f "$SERVER" ]] || { say "herald-server is not built: run 'make build'"; exit 1; }

db_pid=""
server_pid=""
cleanup() {
  trap - EXIT INT TERM
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -n "$db_pid" ]] && kill -0 "$db_pid" 2>/dev/null; then
    say "stopping the database"
    kill -TERM "$db_pid" 2>/dev/null || true
    wait "$db_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { "$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for_port() {
  local port="$1" what="$2"
  for _ in $(seq 1 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    if [[ -n "$db_pid" ]] && ! kill -0 "$db_pid" 2>/dev/null; then say "$what exited"; return 1; fi
    sleep 0.1
  done
  say "$what did not listen on 127.0.0.1:$port"
  return 1
}
# Children run in their own sessions so Ctrl-C reaches only this script, which then stops them in
# order: Herald first (one SIGTERM: it drains while the database is still up), the database after.
detach() { if command -v setsid >/dev/null; then exec setsid "$@"; else exec "$@"; fi; }

if [[ -n "${MONGODB_URI:-}" ]]; then
  uri="$MONGODB_URI"
  say "using MONGODB_URI"
elif command -v mongod >/dev/null; then
  port="$(free_port)"
  mkdir -p "$DATA/mongo"
  private_file "$DATA/mongod.log"
  detach mongod --dbpath "$DATA/mongo" --bind_ip 127.0.0.1 --port "$port" --quiet >"$DATA/mongod.log" 2>&1 &
  db_pid=$!
  wait_for_port "$port" mongod
  uri="mongodb://127.0.0.1:$port/"
  say "mongod on 127.0.0.1:$port (data in .data/mongo)"
else
  [[ -x "$ROOT/.tools/bin/ferretdb" ]] || bash scripts/tools/ferretdb.sh >/dev/null
  mkdir -p "$DATA/store"
  rm -f "$DATA/store/uri"
  private_file "$DATA/store/uri"
  private_file "$DATA/store.log"
  # test/support/ferretdb.ts: PostgreSQL (npm's embedded-postgres binaries) + FerretDB in front.
  detach "$NODE" "$ROOT/test/support/ferretdb.ts" "$DATA/store" --restart-when-stuck >"$DATA/store/uri" 2>"$DATA/store.log" &
  db_pid=$!
  for _ in $(seq 1 600); do
    grep -q '^MONGODB_URI=' "$DATA/store/uri" 2>/dev/null && break
    kill -0 "$db_pid" 2>/dev/null || { say "the store exited (see .data/store.log)"; tail -n 20 "$DATA/store.log" >&2; exit 1; }
    sleep 0.1
  done
  uri="$(sed -n 's/^MONGODB_URI=//p' "$DATA/store/uri")"
  [[ -n "$uri" ]] || { say "the store did not start within 60 s (see .data/store.log)"; exit 1; }
  say "FerretDB (PostgreSQL handler) on ${uri#mongodb://} (data in .data/store)"
fi

if [[ -z "${HERALD_MASTER_KEY:-}" && -z "${HERALD_MASTER_KEYS:-}" ]]; then
  if [[ ! -s "$DATA/master-key" ]]; then
    private_file "$DATA/master-key"
    "$NODE" -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))' >"$DATA/master-key"
    say "generated a dev master key in .data/master-key"
  fi
  chmod 600 "$DATA/master-key"
  export HERALD_MASTER_KEYS="dev:$(cat "$DATA/master-key")"
fi

export HERALD_MONGODB_URI="$uri"
export HERALD_HOST="${HERALD_HOST:-127.0.0.1}"
export HERALD_PORT="${HERALD_PORT:-8080}"
export HERALD_DATA_DIR="${HERALD_DATA_DIR:-$DATA}"
# Dev only: deliveries to local receivers (the SSRF guard refuses loopback otherwise).
export HERALD_SSRF_ALLOW_LIST="${HERALD_SSRF_ALLOW_LIST:-127.0.0.0/8,::1/128}"
# Dev event catalog: types with descriptions and examples, so `herald webhooks trigger apikey.generated`
# has something to publish. A config file of your own (HERALD_CONFIG) replaces it.
export HERALD_CONFIG="${HERALD_CONFIG:-$ROOT/scripts/dev-config.json}"
url="http://$HERALD_HOST:$HERALD_PORT"
# The dev stack's database for the host's own commands (`herald-server token create`, …):
# `. .data/dev.env` in another shell points them at it.
private_file "$DATA/dev.env"
printf 'export HERALD_MONGODB_URI=%q\nexport HERALD_DATA_DIR=%q\n' "$HERALD_MONGODB_URI" "$HERALD_DATA_DIR" >"$DATA/dev.env"

marker="$(mktemp)"
detach "$NODE" "$SERVER" start &
server_pid=$!
ready=""
for _ in $(seq 1 300); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && { ready=1; break; }
  kill -0 "$server_pid" 2>/dev/null || { say "herald-server exited"; rm -f "$marker"; exit 1; }
  sleep 0.1
done
[[ -n "$ready" ]] || { say "herald-server did not become ready on $url within 30 s"; rm -f "$marker"; exit 1; }

token_file="$HERALD_DATA_DIR/bootstrap-token"
if [[ -f "$token_file" && "$token_file" -nt "$marker" ]]; then
  say "first start: bootstrap admin token saved in ${token_file#"$ROOT/"} (mode 0600)"
  if [[ -f "$CLI" ]]; then
    "$NODE" "$CLI" login --url "$url" --with-token <"$token_file" && say "the herald CLI is logged in to $url"
  fi
fi
rm -f "$marker"
say "Herald is up on $url — try: curl -H \"Authorization: Bearer \$(cat .data/bootstrap-token)\" $url/api/v0.9/webhook-subscribers"
say "or with the CLI: npx herald webhooks event-types; npx herald webhooks trigger apikey.generated"
if [[ -f "$ROOT/packages/console/dist/index.html" ]]; then
  say "Console: $url/console/ (sign in with the token in ${token_file#"$ROOT/"})"
else
  say "Console: not built (run 'make build' and start again to serve $url/console/)"
fi
say "Ctrl-C stops it"
wait "$server_pid"
