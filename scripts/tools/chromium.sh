#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser tests (playwright-core drives it; its own
# browser downloads are not used). A no-op when /usr/bin/chromium is already there. Needs root.
source "$(dirname "$0")/lib.sh"

CHROMIUM=/usr/bin/chromium
if [[ ! -x "$CHROMIUM" ]]; then
  log "installing Debian's chromium (first time only)"
  SUDO=""
  if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
fi
echo "$CHROMIUM"
