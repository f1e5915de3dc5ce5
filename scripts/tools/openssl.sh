#!/usr/bin/env bash
# Installs Debian's openssl command, which the mutual-TLS tests and `npm run bench:mtls` use to
# make their CA and certificates (test/support/certificates.ts). A no-op when it is on PATH.
source "$(dirname "$0")/lib.sh"

if ! command -v openssl >/dev/null 2>&1; then
  log "installing Debian's openssl (first time only)"
  SUDO=""
  if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends openssl >&2
fi
command -v openssl
