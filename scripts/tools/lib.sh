#!/usr/bin/env bash
# Shared helpers for the tool build scripts.
# Tools are built from the Go module proxy (no binary downloads) into a per-user cache that
# survives fresh clones, and linked into the git-ignored .tools/bin of the checkout.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_CACHE="${HERALD_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/herald-tools}"
TOOLS_BIN="$REPO_ROOT/.tools/bin"
mkdir -p "$TOOLS_CACHE" "$TOOLS_BIN"

log() { printf '[tools] %s\n' "$*" >&2; }

# link_tool NAME PATH: expose a cached binary as .tools/bin/NAME
link_tool() { ln -sf "$2" "$TOOLS_BIN/$1"; }

# go_build_wrapped NAME VERSION MODULE PACKAGE [CGO]
# Builds PACKAGE from MODULE@VERSION inside a throwaway wrapper module. `go install pkg@version`
# is avoided on purpose: it refuses modules with replace directives and asks the proxy for the
# module's version list, which the proxy here may refuse.
go_build_wrapped() {
  local name="$1" version="$2" module="$3" package="$4" cgo="${5:-0}"
  local out="$TOOLS_CACHE/$name-$version"
  if [[ -x "$out" ]]; then link_tool "$name" "$out"; return 0; fi
  log "building $name $version (first time only; cached in $TOOLS_CACHE)"
  local work; work="$(mktemp -d)"
  (
    cd "$work"
    go mod init herald.local/tools-"$name" >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "$module@$version" >&2
    CGO_ENABLED="$cgo" GOFLAGS=-mod=mod go build -trimpath -o "$out.tmp" "$package" >&2
  )
  mv "$out.tmp" "$out"
  rm -rf "$work"
  link_tool "$name" "$out"
}
