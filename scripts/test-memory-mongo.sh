#!/usr/bin/env bash
# The second test run of `make test`: test files against memory-mongo (scripts/tools/memory-mongo.sh),
# a MongoDB-wire server with MongoDB's write semantics that Herald detects as MongoDB, so the
# engine runs its MongoDB path (conditional claims, `$inc` counters, `$in` reads, concurrent
# outcome flushes) instead of the FerretDB v1 compatibility path the first run covers.
# docs/ARCHITECTURE.md "Store compatibility" says which run covers what.
#
#   bash scripts/test-memory-mongo.sh                 # packages/core and packages/server
#   bash scripts/test-memory-mongo.sh packages/cli    # any vitest filters
#
# Starts the server on a free port, waits for it, runs vitest with MONGODB_URI, and stops the
# server however the run ends (its data lives only in its memory).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

LAUNCHER=.tools/bin/memory-mongo
[[ -x "$LAUNCHER" ]] || { echo "memory-mongo is not built: run 'make tools-memory-mongo'" >&2; exit 1; }
[[ -x node_modules/.bin/node ]] || { echo "Node 24 missing: run 'make deps'" >&2; exit 1; }
# Node 24 from the `node` devDependency first, as under `npm test` (PATH may have an older one).
export PATH="$PWD/node_modules/.bin:$PATH"

# A port nothing listens on now; the server binds it a moment later (a race only with another
# process picking the same free port in between, which then shows as the server exiting at once).
port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
log="$(mktemp)"
"$LAUNCHER" "$port" >"$log" 2>&1 &
pid=$!
stop() {
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM

# The JVM takes a second or two to listen.
for ((tries = 0; ; tries++)); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "memory-mongo exited before listening on 127.0.0.1:$port:" >&2
    cat "$log" >&2
    exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  if ((tries >= 300)); then
    echo "memory-mongo did not listen on 127.0.0.1:$port within 30 s" >&2
    exit 1
  fi
  sleep 0.1
done

(($# > 0)) || set -- packages/core packages/server
echo "memory-mongo on 127.0.0.1:$port: vitest run $*" >&2
# Under CI the first run's JSON report is .data/test-report.json; this run's goes beside it.
HERALD_TEST_REPORT=.data/test-report-memory-mongo.json MONGODB_URI="mongodb://127.0.0.1:$port/" vitest run --project default --project timing "$@"
