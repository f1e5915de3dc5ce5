#!/usr/bin/env bash
# The store's network cut and restored N times in a row during steady deliveries (default 50; `make
# test` runs 10): prints when delivery resumed after each restore, and how many accepted events were
# lost or delivered more than once. `--memory-mongo` runs it on the MongoDB path instead of FerretDB.
# Usage: bash scripts/outage-cuts.sh [CUTS] [--memory-mongo]
set -euo pipefail
cd "$(dirname "$0")/.."
cuts=50
store=ferretdb
for arg in "$@"; do
  case "$arg" in
    --memory-mongo) store=memory-mongo ;;
    ''|*[!0-9]*) echo "usage: bash scripts/outage-cuts.sh [CUTS] [--memory-mongo]" >&2; exit 2 ;;
    *) cuts="$arg" ;;
  esac
done
export HERALD_OUTAGE_CUTS="$cuts"
export PATH="$PWD/node_modules/.bin:$PATH"
if [[ "$store" == memory-mongo ]]; then
  exec bash scripts/test-memory-mongo.sh packages/core/test/engine/outage-cuts.test.ts
fi
exec npx vitest run packages/core/test/engine/outage-cuts.test.ts
