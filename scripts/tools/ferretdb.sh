#!/usr/bin/env bash
# FerretDB v1.24.2, the MongoDB-wire server used by tests and the dev stack (DECISIONS §8).
# Built from its module source: the published module ships an empty build/version/version.txt
# (filled by its release tooling), and the binary refuses to start without it, so we copy the
# source, write the version and build it with its own go.mod.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FERRETDB_VERSION=v1.24.2
out="$TOOLS_CACHE/ferretdb-$FERRETDB_VERSION"
if [[ ! -x "$out" ]]; then
  log "building ferretdb $FERRETDB_VERSION (first time only; cached in $TOOLS_CACHE)"
  src="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
  work="$(mktemp -d)"
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" > "$work/build/version/version.txt"
  (cd "$work" && CGO_ENABLED=0 go build -trimpath -o "$out.tmp" ./cmd/ferretdb) >&2
  mv "$out.tmp" "$out"
  rm -rf "$work"
fi
link_tool ferretdb "$out"
echo "$TOOLS_BIN/ferretdb"
