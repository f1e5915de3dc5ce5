#!/usr/bin/env bash
# Cluster end-to-end on kind (needs Docker; these development machines have none, where the
# operator is tested against a real kube-apiserver instead: npx vitest run --project k8s).
#   make e2e-kind            KEEP_CLUSTER=1 make e2e-kind   (leave the cluster for inspection)
# Builds the image, installs MongoDB (a single throwaway pod) and the chart (which generates the
# operator's API token and has the host seed it), applies examples/k8s/webhook-subscriber.yaml pointed at an in-cluster echo sink, and
# waits for the subscriber to be Ready and for a delivery to arrive.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  echo "e2e-kind: Docker is not available on this machine; kind needs it. Nothing was run." >&2
  echo "          The operator's tests against a real kube-apiserver run without Docker: npx vitest run --project k8s" >&2
  exit 2
fi
for tool in kind kubectl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "e2e-kind: '$tool' is required (https://kind.sigs.k8s.io)" >&2; exit 2; }
done
bash scripts/tools/kube.sh helm >/dev/null
HELM="$PWD/.tools/bin/helm"

CLUSTER="${CLUSTER:-herald-e2e}"
IMAGE="herald:e2e"
NS=herald
cleanup() { [[ -n "${KEEP_CLUSTER:-}" ]] || kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; }
trap cleanup EXIT

kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --wait 120s
docker build -f deploy/Dockerfile -t "$IMAGE" .
kind load docker-image "$IMAGE" --name "$CLUSTER"

kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f -
# Throwaway MongoDB for the test only (the chart does not install one; see docs/kubernetes.md).
kubectl -n "$NS" apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: { name: mongodb }
spec:
  selector: { matchLabels: { app: mongodb } }
  template:
    metadata: { labels: { app: mongodb } }
    spec:
      containers:
        - { name: mongodb, image: "mongo:7", ports: [{ containerPort: 27017 }] }
---
apiVersion: v1
kind: Service
metadata: { name: mongodb }
spec: { selector: { app: mongodb }, ports: [{ port: 27017 }] }
YAML
kubectl -n "$NS" rollout status deploy/mongodb --timeout=180s

"$HELM" upgrade --install herald charts/herald -n "$NS" \
  -f examples/k8s/values-minimal.yaml \
  --set image.repository=herald --set image.tag=e2e --set image.pullPolicy=Never \
  --set mongodb.uri="mongodb://mongodb.$NS.svc:27017" \
  --set-json 'config.extraEnv=[{"name":"HERALD_SSRF_ALLOW_LIST","value":"10.0.0.0/8"}]'
kubectl -n "$NS" rollout status deploy/herald --timeout=180s

kubectl -n "$NS" rollout status deploy/herald-operator --timeout=180s

# A sink that logs every request, and the example subscriber pointed at it.
kubectl -n default apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: { name: sink }
spec:
  selector: { matchLabels: { app: sink } }
  template:
    metadata: { labels: { app: sink } }
    spec:
      containers:
        - name: sink
          image: herald:e2e
          command: ["node", "-e", "require('http').createServer((q,s)=>{let b='';q.on('data',c=>b+=c);q.on('end',()=>{console.log('DELIVERY',q.headers['webhook-id'],b);s.writeHead(204).end()})}).listen(8080)"]
---
apiVersion: v1
kind: Service
metadata: { name: sink }
spec: { selector: { app: sink }, ports: [{ port: 80, targetPort: 8080 }] }
YAML
kubectl -n default rollout status deploy/sink --timeout=120s
sed 's#https://billing.example.com/webhooks/herald#http://sink.default.svc/hook#' examples/k8s/webhook-subscriber.yaml | kubectl -n default apply -f -
kubectl -n default wait --for=condition=Ready webhooksubscriber/orders --timeout=120s

ADMIN="$(kubectl -n "$NS" exec deploy/herald -- herald-server token create --name e2e-admin --scopes all 2>/dev/null)"
kubectl -n "$NS" exec deploy/herald -- node -e "
fetch('http://127.0.0.1:8080/api/v0.9/webhook-events', { method: 'POST',
  headers: { authorization: 'Bearer $ADMIN', 'content-type': 'application/json' },
  body: JSON.stringify({ eventType: 'order.created', aggregateType: 'order', aggregateId: 'e2e-1', data: { total: 1 } }) })
  .then(async (r) => { console.log(r.status, await r.text()); if (r.status !== 201) process.exit(1); });"
for _ in $(seq 1 60); do
  if kubectl -n default logs deploy/sink | grep -q DELIVERY; then
    echo "e2e-kind: delivery received:"; kubectl -n default logs deploy/sink | grep DELIVERY | head -1
    kubectl -n default delete webhooksubscriber orders --wait=true --timeout=60s
    echo "e2e-kind: OK"
    exit 0
  fi
  sleep 2
done
echo "e2e-kind: no delivery arrived within 120 s" >&2
exit 1
