#!/usr/bin/env bash
# PID 1 of the test cluster's node container (scripts/cluster.sh): one real Kubernetes node and its
# control plane, assembled without kubeadm. Generates a CA, serving certificate, service-account
# keys and static tokens, then runs kine (etcd API on SQLite), kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd (+ runc, CNI bridge), kubelet, kube-proxy
# (iptables) and CoreDNS (as a node process on the node's address: the kubelet's cluster DNS).
# Writes /etc/kubernetes/admin.kubeconfig for the host and /run/herald-node/ready once the node is
# Ready. If any component exits, the container exits, so a broken cluster is never half up.
set -euo pipefail

BIN=/opt/kube/bin
K=/etc/kubernetes
PKI=$K/pki
LOGS=/var/log/kube
NODE_NAME=herald-node
POD_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SERVICE_IP=10.96.0.1
mkdir -p "$PKI" "$LOGS" /var/lib/kine /run/herald-node /etc/cni/net.d /etc/containerd

NODE_IP="$(ip -4 -o addr show dev eth0 | awk '{print $4}' | cut -d/ -f1)"
[[ -n "$NODE_IP" ]] || { echo "node: eth0 has no IPv4 address" >&2; exit 1; }
echo "node: $NODE_NAME at $NODE_IP"

# Mounts made in pods (volumes) must propagate; the runtime expects a shared root.
mount --make-rshared /
# The container is not --privileged (the machine's bounding set lacks CAP_SYS_RESOURCE, which
# --privileged asks for), so Docker mounted /sys and the cgroup hierarchies read-only: the kubelet
# and runc create pod cgroups, so make them writable. cgroupns=private keeps them under this
# container's own cgroup, removed with it.
mount -o remount,rw /sys
for m in $(awk '$2 ~ "^/sys/fs/cgroup" { print $2 }' /proc/self/mounts); do mount -o remount,bind,rw "$m"; done
# Bridged pod traffic must traverse iptables so Service DNAT is undone for replies on the bridge.
sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.ipv4.ip_forward=1 || true

# --- credentials --------------------------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=herald-e2e-ca \
  -keyout "$PKI/ca.key" -out "$PKI/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
  -keyout "$PKI/apiserver.key" -out "$PKI/apiserver.csr" 2>/dev/null
printf 'subjectAltName=IP:%s,IP:127.0.0.1,IP:%s,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n' \
  "$NODE_IP" "$KUBERNETES_SERVICE_IP" > "$PKI/apiserver.ext"
openssl x509 -req -in "$PKI/apiserver.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
  -days 2 -extfile "$PKI/apiserver.ext" -out "$PKI/apiserver.crt" 2>/dev/null
openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null

token() { openssl rand -hex 24; }
ADMIN_TOKEN="$(token)"
# Static tokens, one identity per component; the bootstrap RBAC policy and the Node authorizer
# grant each exactly what it needs.
{
  echo "$ADMIN_TOKEN,herald-e2e-admin,admin,system:masters"
  echo "$(token),system:node:$NODE_NAME,node,system:nodes"
  echo "$(token),system:kube-controller-manager,kcm"
  echo "$(token),system:kube-scheduler,scheduler"
  echo "$(token),system:kube-proxy,kube-proxy"
  # CoreDNS only lists and watches Services, EndpointSlices and Namespaces; an admin identity
  # spares a ClusterRole for a test cluster.
  echo "$(token),herald-e2e-coredns,coredns,system:masters"
} > "$PKI/tokens.csv"
chmod 600 "$PKI/tokens.csv"

kubeconfig() { # NAME USER SERVER
  local tok; tok="$(awk -F, -v u="$2" '$2 == u { print $1 }' "$PKI/tokens.csv")"
  cat > "$K/$1.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: herald-e2e
  cluster:
    server: $3
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: $1
  user:
    token: $tok
contexts:
- name: herald-e2e
  context: { cluster: herald-e2e, user: $1 }
current-context: herald-e2e
YAML
}
LOCAL=https://127.0.0.1:6443
kubeconfig kcm system:kube-controller-manager "$LOCAL"
kubeconfig scheduler system:kube-scheduler "$LOCAL"
kubeconfig kubelet "system:node:$NODE_NAME" "$LOCAL"
kubeconfig kube-proxy system:kube-proxy "$LOCAL"
kubeconfig coredns herald-e2e-coredns "$LOCAL"
# The host reaches the apiserver on the node's address in the cluster's own Docker network.
kubeconfig admin herald-e2e-admin "https://$NODE_IP:6443"

# --- processes ----------------------------------------------------------------------------------
PIDS=()
run() { # NAME COMMAND...
  local name="$1"; shift
  "$@" >"$LOGS/$name.log" 2>&1 &
  PIDS+=("$!")
  echo "node: started $name (pid $!)"
}
stop_all() { kill "${PIDS[@]}" 2>/dev/null || true; wait || true; }
trap 'stop_all; exit 0' TERM INT

run kine "$BIN/kine" \
  "--endpoint=sqlite:///var/lib/kine/state.db?_journal=WAL&cache=shared&_busy_timeout=30000" \
  --listen-address=127.0.0.1:2379 --metrics-bind-address=0

run kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers=http://127.0.0.1:2379 \
  --bind-address=0.0.0.0 --secure-port=6443 --advertise-address="$NODE_IP" \
  --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
  --client-ca-file="$PKI/ca.crt" \
  --token-auth-file="$PKI/tokens.csv" \
  --authorization-mode=Node,RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --profiling=false --v=0

until "$BIN/kubectl" --kubeconfig "$K/admin.kubeconfig" --server "$LOCAL" get --raw /readyz >/dev/null 2>&1; do
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "node: a component exited early" >&2; tail -n 30 "$LOGS"/*.log >&2; exit 1; }; done
  sleep 0.5
done
echo "node: kube-apiserver ready"

run kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$K/kcm.kubeconfig" --authentication-kubeconfig="$K/kcm.kubeconfig" \
  --authorization-kubeconfig="$K/kcm.kubeconfig" \
  --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
  --use-service-account-credentials=true --leader-elect=false \
  --cluster-cidr="$POD_CIDR" --service-cluster-ip-range="$SERVICE_CIDR" --allocate-node-cidrs=false \
  --bind-address=127.0.0.1 --profiling=false --v=0

run kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$K/scheduler.kubeconfig" --authentication-kubeconfig="$K/scheduler.kubeconfig" \
  --authorization-kubeconfig="$K/scheduler.kubeconfig" \
  --leader-elect=false --bind-address=127.0.0.1 --profiling=false --v=0

cat > /etc/containerd/config.toml <<TOML
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  # Built here (scripts/cluster/pause.c) and imported before the first pod: nothing is pulled.
  sandbox_image = "herald.local/pause:1"
  # Lowering a process's oom_score_adj needs CAP_SYS_RESOURCE, which this node lacks: clamp the
  # kubelet's negative values (guaranteed pods, the sandbox) at the node's own score instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
TOML
cat > /etc/cni/net.d/10-herald.conflist <<JSON
{
  "cniVersion": "0.4.0",
  "name": "herald-e2e",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.244.0.0/24" }]], "routes": [{ "dst": "0.0.0.0/0" }] }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
run containerd containerd --config /etc/containerd/config.toml

# Empty: pods resolve cluster names only (CoreDNS below forwards nothing off the node).
: > "$K/resolv.conf"
cat > "$K/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: { enabled: true }
  webhook: { enabled: false }
authorization: { mode: AlwaysAllow }
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
clusterDNS: ["$NODE_IP"]
clusterDomain: cluster.local
resolvConf: $K/resolv.conf
failSwapOn: false
failCgroupV1: false
# Images are imported, never pulled, and this disk is the machine's: never evict or collect.
imageGCHighThresholdPercent: 100
evictionHard: { memory.available: "0%", nodefs.available: "0%", imagefs.available: "0%" }
serializeImagePulls: false
staticPodPath: ""
healthzBindAddress: 127.0.0.1
YAML
run kubelet "$BIN/kubelet" \
  --config="$K/kubelet.yaml" --kubeconfig="$K/kubelet.kubeconfig" \
  --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=0

run kube-proxy "$BIN/kube-proxy" \
  --kubeconfig="$K/kube-proxy.kubeconfig" --hostname-override="$NODE_NAME" \
  --proxy-mode=iptables --cluster-cidr="$POD_CIDR" \
  --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 \
  --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=127.0.0.1:10256 --v=0

cat > "$K/Corefile" <<COREFILE
cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
  bind $NODE_IP
  errors
  cache 5
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $K/coredns.kubeconfig
    pods insecure
  }
}
COREFILE
run coredns "$BIN/coredns" -conf "$K/Corefile"

until "$BIN/kubectl" --kubeconfig "$K/admin.kubeconfig" --server "$LOCAL" wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s >/dev/null 2>&1; do
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "node: a component exited early" >&2; tail -n 30 "$LOGS"/*.log >&2; exit 1; }; done
  sleep 1
done
touch /run/herald-node/ready
echo "node: Ready"

# Any component exiting ends the node.
set +e
wait -n "${PIDS[@]}"
code=$?
echo "node: a component exited ($code)" >&2
tail -n 30 "$LOGS"/*.log >&2
stop_all
exit 1
