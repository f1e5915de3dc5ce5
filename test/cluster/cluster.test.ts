// The test cluster itself (scripts/cluster.sh): a real node starts, runs a pod of the Herald image
// that becomes Ready through its readiness probe and answers through a Service by its DNS name, and
// teardown leaves no container, volume or network behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heraldImage, leftovers, startCluster, type Cluster } from '../support/cluster.js';

let cluster: Cluster | undefined;
let image = '';

beforeAll(async () => {
  image = await heraldImage();
  const started = await startCluster([image]);
  cluster = started;
  console.log(`cluster ${started.name}: node Ready and ${image} imported in ${started.startSeconds.toFixed(1)} s`);
}, 1_800_000);

afterAll(async () => {
  await cluster?.stop();
}, 120_000);

describe('the test cluster', () => {
  it('runs a pod of the Herald image under the restricted Pod Security level and serves it through a Service', async () => {
    const c = cluster!;
    await c.kubectlOk(['create', 'namespace', 'smoke']);
    await c.kubectlOk(['label', 'namespace', 'smoke', 'pod-security.kubernetes.io/enforce=restricted']);
    await c.kubectlOk(['-n', 'smoke', 'apply', '-f', '-'], `
apiVersion: v1
kind: Pod
metadata: { name: web, labels: { app: web } }
spec:
  securityContext: { runAsNonRoot: true, seccompProfile: { type: RuntimeDefault } }
  containers:
    - name: web
      image: ${image}
      imagePullPolicy: Never
      command: ["node", "-e", "require('http').createServer((q, s) => s.end('hello from ' + process.env.HOSTNAME)).listen(8080)"]
      readinessProbe: { httpGet: { path: /, port: 8080 }, periodSeconds: 1 }
      securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: [ALL] } }
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec: { selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }
`);
    await c.kubectlOk(['-n', 'smoke', 'wait', '--for=condition=Ready', 'pod/web', '--timeout=120s']);
    console.log(await c.kubectlOk(['-n', 'smoke', 'get', 'pods', '-o', 'wide']));
    // Through the Service's DNS name (CoreDNS) and cluster IP (kube-proxy), from inside the pod.
    // kube-proxy programs the Service a moment after the endpoint turns ready: retried for up to 30 s.
    let answer = '';
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && answer === ''; ) {
      const result = await c.kubectl(['-n', 'smoke', 'exec', 'web', '--', 'node', '-e',
        "fetch('http://web.smoke.svc/').then((r) => r.text()).then(console.log)"]);
      if (result.status === 0) answer = result.stdout.trim();
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(answer).toBe('hello from web');
    // A pod without the restricted settings is refused by the namespace's Pod Security admission.
    const refused = await c.kubectl(['-n', 'smoke', 'run', 'plain', `--image=${image}`, '--image-pull-policy=Never', '--restart=Never']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/violates PodSecurity "restricted/);
  }, 300_000);

  it('leaves nothing behind when torn down', async () => {
    const c = cluster!;
    cluster = undefined;
    await c.stop();
    expect(await leftovers(c.name)).toEqual([]);
  }, 120_000);
});
