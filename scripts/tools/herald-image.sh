#!/usr/bin/env bash
# Builds deploy/Dockerfile here, on the local Node base (scripts/tools/node-base-image.sh), as
# herald:dev-<checkout> (or $HERALD_IMAGE): one tag per checkout, so checkouts side by side on one
# engine never run each other's build. Prints the image tag.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/docker.sh"

IMAGE="${HERALD_IMAGE:-herald:dev-$(printf %s "$REPO_ROOT" | sha256sum | cut -c1-12)}"
base="$(bash "$(dirname "${BASH_SOURCE[0]}")/node-base-image.sh")"
ensure_docker
log "building $IMAGE from deploy/Dockerfile on $base"
docker build --quiet -f "$REPO_ROOT/deploy/Dockerfile" --build-arg "BASE_IMAGE=$base" -t "$IMAGE" "$REPO_ROOT" >/dev/null
echo "$IMAGE"
