#!/usr/bin/env bash
# Makes a Docker engine available: installs Debian's docker.io when dockerd is missing and starts
# dockerd when none answers, with its data in the tools cache (images built here survive fresh
# clones). Source it for `ensure_docker`, or run it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DOCKER_DATA="$TOOLS_CACHE/docker"

ensure_docker() {
  if docker info >/dev/null 2>&1; then return 0; fi
  # One starter at a time; a second caller finds the engine answering once it holds the lock.
  exec 8>"$TOOLS_CACHE/.docker.lock"
  flock 8
  if docker info >/dev/null 2>&1; then return 0; fi
  if ! command -v dockerd >/dev/null; then
    log "installing Debian's docker.io (apt)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io) >&2
  fi
  command -v docker >/dev/null || { echo "docker CLI missing after installing docker.io" >&2; return 1; }
  mkdir -p "$DOCKER_DATA"
  log "starting dockerd (data in $DOCKER_DATA, log in $DOCKER_DATA/dockerd.log)"
  # setsid: the engine outlives this script and is shared by later builds and tests; it must not
  # inherit the build locks (fds 8, 9).
  setsid dockerd --data-root "$DOCKER_DATA/data" --exec-root "$DOCKER_DATA/exec" \
    --pidfile "$DOCKER_DATA/dockerd.pid" >"$DOCKER_DATA/dockerd.log" 2>&1 </dev/null 8>&- 9>&- &
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "dockerd did not answer within 60 s; see $DOCKER_DATA/dockerd.log:" >&2
  tail -n 20 "$DOCKER_DATA/dockerd.log" >&2
  return 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then ensure_docker; fi
