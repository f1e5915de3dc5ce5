#!/usr/bin/env bash
# Builds the Kubernetes test tools from the Go module proxy (DECISIONS §9):
#   kube-apiserver + kubectl (throwaway wrapper module pinning every k8s.io staging module),
#   kine (etcd shim on SQLite, CGO), helm.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
KINE_VERSION="${KINE_VERSION:-v0.16.4}"
HELM_VERSION="${HELM_VERSION:-v3.20.2}"

build_kubernetes() {
  local api="$TOOLS_CACHE/kube-apiserver-$K8S_VERSION" ctl="$TOOLS_CACHE/kubectl-$K8S_VERSION"
  if [[ -x "$api" && -x "$ctl" ]]; then
    link_tool kube-apiserver "$api"; link_tool kubectl "$ctl"; return 0
  fi
  log "building kube-apiserver and kubectl $K8S_VERSION (slow the first time; cached in $TOOLS_CACHE)"
  local staging="v0.${K8S_VERSION#v1.}"
  local work; work="$(mktemp -d)"
  (
    cd "$work"
    go mod init herald.local/tools-kubernetes >/dev/null 2>&1
    # k8s.io/kubernetes replaces its staging modules with local paths; a consumer must pin them.
    local gomod; gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
    {
      echo "require k8s.io/kubernetes $K8S_VERSION"
      echo "replace ("
      sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 '"$staging"'#p' "$gomod"
      echo ")"
    } >> go.mod
    cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    GOFLAGS=-mod=mod go mod tidy -e >&2 || true
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$api.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$ctl.tmp" k8s.io/kubernetes/cmd/kubectl >&2
  )
  mv "$api.tmp" "$api"; mv "$ctl.tmp" "$ctl"
  rm -rf "$work"
  link_tool kube-apiserver "$api"; link_tool kubectl "$ctl"
}

# Two concurrent runs (several engineers, or make -j) would race on the same .tmp outputs.
exec 9>"$TOOLS_CACHE/.kube-build.lock"
flock 9

case "${1:-all}" in
  kine) go_build_wrapped kine "$KINE_VERSION" github.com/k3s-io/kine github.com/k3s-io/kine 1 ;;
  helm) go_build_wrapped helm "$HELM_VERSION" helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm 0 ;;
  kubernetes) build_kubernetes ;;
  all)
    go_build_wrapped kine "$KINE_VERSION" github.com/k3s-io/kine github.com/k3s-io/kine 1
    go_build_wrapped helm "$HELM_VERSION" helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm 0
    build_kubernetes
    ;;
  *) echo "usage: $0 [kine|helm|kubernetes|all]" >&2; exit 2 ;;
esac
