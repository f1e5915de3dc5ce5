#!/usr/bin/env bash
# A real one-node Kubernetes cluster for the end-to-end test (docs/kubernetes.md "The test
# cluster"): one Docker container running kube-apiserver (over kine), kube-controller-manager,
# kube-scheduler, containerd + runc + CNI bridge, kubelet, kube-proxy and CoreDNS, every part built
# here from the Go module proxy and Debian's packages; images are built here and imported into the
# node's containerd, never pulled.
#
#   scripts/cluster.sh up NAME [IMAGE...]   start cluster NAME, import the images (plus the pause
#                                           image), print its kubeconfig's path
#   scripts/cluster.sh load NAME IMAGE...   import more images
#   scripts/cluster.sh down NAME            remove the node, its volumes and its network
#   scripts/cluster.sh down-all             remove every cluster this script started
#   scripts/cluster.sh build                build the node's parts and images only
#   scripts/cluster.sh store-image          build the test's store image, print its tag
#
# Each cluster has its own internal Docker network (no route off the machine): the host reaches the
# apiserver on the node's address there; pods reach only the node and each other.
source "$(dirname "${BASH_SOURCE[0]}")/tools/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/tools/docker.sh"
shopt -s inherit_errexit

HERE="$REPO_ROOT/scripts/cluster"
LABEL=dev.herald.e2e-cluster
STATE="$REPO_ROOT/.data/cluster"

node_image() {
  local base hash
  base="$(bash "$REPO_ROOT/scripts/tools/node-base-image.sh")"
  hash="$(cat "$HERE/node.Dockerfile" "$HERE/node-entrypoint.sh" <(echo "$base") | sha256sum | cut -c1-12)"
  local tag="herald-e2e-node:$hash"
  if ! docker image inspect "$tag" >/dev/null 2>&1; then
    log "building the cluster node image $tag (Debian's containerd, runc, CNI plugins, iptables)"
    docker build --quiet -f "$HERE/node.Dockerfile" --build-arg "BASE_IMAGE=$base" -t "$tag" "$HERE" >/dev/null
  fi
  echo "$tag"
}

# The pod sandbox image: scripts/cluster/pause.c, static, alone in an image.
pause_image() {
  local hash tag
  hash="$(sha256sum "$HERE/pause.c" | cut -c1-12)"
  tag="herald.local/pause:$hash"
  if ! docker image inspect "$tag" >/dev/null 2>&1; then
    command -v cc >/dev/null || { echo "a C compiler (cc) is needed for the pause image" >&2; return 1; }
    local work; work="$(mktemp -d)"
    cc -static -O2 -o "$work/pause" "$HERE/pause.c"
    tar -C "$work" -cf "$work/pause.tar" pause
    docker import --change 'ENTRYPOINT ["/pause"]' "$work/pause.tar" "$tag" >/dev/null
    rm -rf "$work"
  fi
  echo "$tag"
}

# The in-cluster MongoDB-wire store of the end-to-end test: FerretDB over Debian's PostgreSQL.
store_image() {
  local base ferretdb hash
  base="$(bash "$REPO_ROOT/scripts/tools/node-base-image.sh")"
  ferretdb="$(readlink -f "$(bash "$REPO_ROOT/scripts/tools/ferretdb.sh")")"
  hash="$(cat "$HERE/store.Dockerfile" "$HERE/store-entrypoint.sh" "$HERE/../store/postgresql-gin-twins.sql" "$ferretdb" <(echo "$base") | sha256sum | cut -c1-12)"
  local tag="herald-e2e-store:$hash"
  if ! docker image inspect "$tag" >/dev/null 2>&1; then
    log "building the cluster's store image $tag (FerretDB over Debian's PostgreSQL 15)"
    local work; work="$(mktemp -d)"
    cp "$HERE/store.Dockerfile" "$HERE/store-entrypoint.sh" "$HERE/../store/postgresql-gin-twins.sql" "$work/"
    cp "$ferretdb" "$work/ferretdb"
    docker build --quiet -f "$work/store.Dockerfile" --build-arg "BASE_IMAGE=$base" -t "$tag" "$work" >/dev/null
    rm -rf "$work"
  fi
  echo "$tag"
}

load() { # NAME IMAGE...
  local name="$1"; shift
  [[ $# -gt 0 ]] || return 0
  docker save "$@" | docker exec -i "$name" ctr --namespace k8s.io images import --no-unpack=false - >/dev/null
}

up() { # NAME IMAGE...
  local name="$1"; shift
  [[ "$name" =~ ^[a-z0-9][a-z0-9-]{0,40}$ ]] || { echo "cluster name must match [a-z0-9-]+" >&2; return 2; }
  local bin node pause
  bin="$(bash "$REPO_ROOT/scripts/tools/kube.sh" node)"
  ensure_docker
  node="$(node_image)"
  pause="$(pause_image)"
  local started=$SECONDS
  down "$name"   # a leftover of the same name (an interrupted run) goes first
  docker network create --internal --label "$LABEL=$name" "$name" >/dev/null
  # Not --privileged: that asks for every capability, and this machine's bounding set lacks
  # CAP_SYS_RESOURCE. What the node needs instead: the other capabilities, no seccomp/AppArmor
  # filter and unmasked /proc paths (runc and kube-proxy write sysctls), /dev/kmsg (the kubelet's
  # OOM watcher), a private cgroup namespace (pod cgroups go under this container's cgroup and are
  # removed with it), containerd's store on a volume (overlayfs cannot nest on the container's
  # overlay root).
  docker run -d --name "$name" --hostname herald-node --label "$LABEL=$name" --network "$name" \
    --cap-add ALL --cap-drop SYS_RESOURCE \
    --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined \
    --device /dev/kmsg --cgroupns private \
    -v "$bin:/opt/kube/bin:ro" -v /lib/modules:/lib/modules:ro -v /var/lib/containerd --tmpfs /run \
    "$node" >/dev/null
  local deadline=$((SECONDS + 180))
  until docker exec "$name" test -f /run/herald-node/ready 2>/dev/null; do
    if [[ "$(docker inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" != true ]] || ((SECONDS > deadline)); then
      echo "cluster $name: the node did not become Ready; its log:" >&2
      docker logs --tail 60 "$name" >&2 || true
      return 1
    fi
    sleep 1
  done
  # The sandbox image's name is fixed in containerd's configuration.
  docker tag "$pause" herald.local/pause:1
  load "$name" herald.local/pause:1 "$@"
  mkdir -p "$STATE/$name"
  docker cp "$name:/etc/kubernetes/admin.kubeconfig" "$STATE/$name/kubeconfig" >/dev/null
  log "cluster $name: node Ready, $# image(s) imported in $((SECONDS - started)) s"
  echo "$STATE/$name/kubeconfig"
}

down() { # NAME
  docker rm -f -v "$1" >/dev/null 2>&1 || true
  docker network rm "$1" >/dev/null 2>&1 || true
  rm -rf "${STATE:?}/$1"
}

case "${1:-}" in
  up) shift; up "$@" ;;
  load) shift; name="$1"; shift; load "$name" "$@" ;;
  down) down "$2" ;;
  down-all)
    if docker info >/dev/null 2>&1; then
      for c in $(docker ps -aq --filter "label=$LABEL"); do docker rm -f -v "$c" >/dev/null; done
      for n in $(docker network ls -q --filter "label=$LABEL"); do docker network rm "$n" >/dev/null; done
    fi
    rm -rf "$STATE" ;;
  build) bash "$REPO_ROOT/scripts/tools/kube.sh" node >/dev/null; ensure_docker; node_image >/dev/null; pause_image >/dev/null; store_image >/dev/null ;;
  store-image) ensure_docker; store_image ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
