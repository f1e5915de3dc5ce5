#!/usr/bin/env bash
# Installs Schemathesis (property-based API testing from an OpenAPI document) from PyPI into a
# virtualenv in the tools cache, and links its `st` into .tools/bin. Needs python3 with venv.
source "$(dirname "$0")/lib.sh"

SCHEMATHESIS_VERSION=4.32.5
venv="$TOOLS_CACHE/schemathesis-$SCHEMATHESIS_VERSION"
if [[ ! -x "$venv/bin/st" ]]; then
  command -v python3 >/dev/null || { log "python3 is needed for Schemathesis"; exit 1; }
  log "installing schemathesis $SCHEMATHESIS_VERSION (first time only; cached in $TOOLS_CACHE)"
  rm -rf "$venv.tmp"
  if ! python3 -m venv "$venv.tmp" >&2; then
    log "python3 has no venv module; installing Debian's python3-venv"
    apt-get update -qq >&2 && apt-get install -y -qq python3-venv >&2
    python3 -m venv "$venv.tmp" >&2
  fi
  "$venv.tmp/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
  mv "$venv.tmp" "$venv"
  # The venv's scripts name their interpreter by absolute path: rewrite it after the move.
  sed -i "1s|$venv.tmp|$venv|" "$venv"/bin/st "$venv"/bin/pip
fi
link_tool st "$venv/bin/st"
echo "$TOOLS_BIN/st"
