#!/usr/bin/env bash
# Builds the Kubernetes test tools from the Go module proxy (DECISIONS §9):
#   kube-apiserver + kubectl (throwaway wrapper module pinning every k8s.io staging module),
#   kine (etcd shim on SQLite, CGO), helm;
#   `node`: the test cluster's node components (kubelet, controller-manager, scheduler, kube-proxy,
#   CoreDNS; see build_node), printing their folder.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
KINE_VERSION="${KINE_VERSION:-v0.16.4}"
HELM_VERSION="${HELM_VERSION:-v3.20.2}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.13.2}"

# k8s_module DIR: a throwaway wrapper module in DIR that requires k8s.io/kubernetes and pins every
# staging module (k8s.io/kubernetes replaces them with local paths, so a consumer must pin them).
# It imports every command built here, so all builds share one module graph and the Go build cache
# compiles each package once.
k8s_module() {
  local staging="v0.${K8S_VERSION#v1.}"
  cd "$1"
  go mod init herald.local/tools-kubernetes >/dev/null 2>&1
  local gomod; gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
  {
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo "replace ("
    sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 '"$staging"'#p' "$gomod"
    echo ")"
  } >> go.mod
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for cmd in $K8S_COMMANDS; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$cmd"; done
    printf ')\n'
  } > tools.go
  GOFLAGS=-mod=mod go mod tidy -e >&2 || true
}
K8S_COMMANDS="kube-apiserver kubectl kubelet kube-controller-manager kube-scheduler kube-proxy"

build_kubernetes() {
  local api="$TOOLS_CACHE/kube-apiserver-$K8S_VERSION" ctl="$TOOLS_CACHE/kubectl-$K8S_VERSION"
  if [[ -x "$api" && -x "$ctl" ]]; then
    link_tool kube-apiserver "$api"; link_tool kubectl "$ctl"; return 0
  fi
  log "building kube-apiserver and kubectl $K8S_VERSION (slow the first time; cached in $TOOLS_CACHE)"
  local work; work="$(mktemp -d)"
  (
    k8s_module "$work"
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$api.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$ctl.tmp" k8s.io/kubernetes/cmd/kubectl >&2
  )
  mv "$api.tmp" "$api"; mv "$ctl.tmp" "$ctl"
  rm -rf "$work"
  link_tool kube-apiserver "$api"; link_tool kubectl "$ctl"
}

# build_node: everything the test cluster's node runs (scripts/cluster.sh mounts the folder
# read-only into the node): the control plane and node components in one `go build` (they share
# most packages), stamped with their version as a release build is (a node reporting
# v0.0.0-master would be a lie to every client); CoreDNS with only the plugins the node's Corefile
# uses, in its own wrapper module pinned to the same client-go; kine and kubectl copied in.
build_node() {
  local dir="$TOOLS_CACHE/kube-node-$K8S_VERSION"
  if [[ -f "$dir/.complete" ]]; then echo "$dir"; return 0; fi
  build_kubernetes
  go_build_wrapped kine "$KINE_VERSION" github.com/k3s-io/kine github.com/k3s-io/kine 1
  log "building the cluster node's Kubernetes $K8S_VERSION components and CoreDNS $COREDNS_VERSION (first time only; cached in $dir)"
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  local minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local ldflags="" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  local work; work="$(mktemp -d)"
  (
    k8s_module "$work"
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$dir.tmp/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy >&2
  )
  rm -rf "$work"; work="$(mktemp -d)"
  (
    cd "$work"
    go mod init herald.local/tools-coredns >/dev/null 2>&1
    cat > main.go <<'GO'
// CoreDNS with only the plugins the test cluster's Corefile uses (scripts/cluster/node-entrypoint.sh).
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

// The order in which a query passes the plugins.
func init() { dnsserver.Directives = []string{"bind", "errors", "cache", "kubernetes"} }

func main() { coremain.Run() }
GO
    local staging="v0.${K8S_VERSION#v1.}"
    GOFLAGS=-mod=mod go get "github.com/coredns/coredns@$COREDNS_VERSION" "k8s.io/client-go@$staging" \
      "k8s.io/api@$staging" "k8s.io/apimachinery@$staging" >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dir.tmp/coredns" . >&2
  )
  rm -rf "$work"
  cp "$TOOLS_CACHE/kubectl-$K8S_VERSION" "$dir.tmp/kubectl"
  cp "$TOOLS_CACHE/kine-$KINE_VERSION" "$dir.tmp/kine"
  touch "$dir.tmp/.complete"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  echo "$dir"
}

# Two concurrent runs (several engineers, or make -j) would race on the same .tmp outputs.
exec 9>"$TOOLS_CACHE/.kube-build.lock"
flock 9

case "${1:-all}" in
  kine) go_build_wrapped kine "$KINE_VERSION" github.com/k3s-io/kine github.com/k3s-io/kine 1 ;;
  helm) go_build_wrapped helm "$HELM_VERSION" helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm 0 ;;
  kubernetes) build_kubernetes ;;
  node) build_node ;;
  all)
    go_build_wrapped kine "$KINE_VERSION" github.com/k3s-io/kine github.com/k3s-io/kine 1
    go_build_wrapped helm "$HELM_VERSION" helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm 0
    build_kubernetes
    ;;
  *) echo "usage: $0 [kine|helm|kubernetes|node|all]" >&2; exit 2 ;;
esac
