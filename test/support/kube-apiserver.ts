// A real, throwaway Kubernetes control plane for tests (DECISIONS §9): kine (etcd API over SQLite)
// plus kube-apiserver, both on loopback, both built by scripts/tools/kube.sh. There is no
// controller-manager or scheduler: nothing garbage-collects, namespaces never finish deleting and
// Deployments never get Pods. Tests run the operator as a local process instead.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './ferretdb.js';

const repoRoot = resolve(import.meta.dirname, '../..');

/** The ServiceAccount the chart's operator RBAC is tested with (impersonated by the admin). */
export const operatorServiceAccount = { namespace: 'herald-system', name: 'herald-operator' };

export interface RunningKubeApiserver {
  url: string;
  /** kubeconfig whose current context is cluster-admin (static token in group system:masters). */
  kubeconfigPath: string;
  /** kubeconfig that impersonates the operator's ServiceAccount: only what RBAC grants it. */
  operatorKubeconfigPath: string;
  caPath: string;
  adminToken: string;
  stop(): Promise<void>;
}

export function kubeToolBinary(name: 'kine' | 'kube-apiserver' | 'kubectl' | 'helm'): string {
  const bin = join(repoRoot, '.tools/bin', name);
  if (!existsSync(bin)) {
    throw new Error(`${name} is not built: run 'make tools-kube' (bash scripts/tools/kube.sh all) first`);
  }
  return bin;
}

function writeSelfSignedCertificate(dir: string): { certPath: string; keyPath: string } {
  const certPath = join(dir, 'apiserver.crt');
  const keyPath = join(dir, 'apiserver.key');
  const result = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
    '-keyout', keyPath, '-out', certPath,
    '-subj', '/CN=herald-test-apiserver',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl failed: ${result.stderr}`);
  return { certPath, keyPath };
}

function writeServiceAccountKeys(dir: string): { publicKeyPath: string; privateKeyPath: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const publicKeyPath = join(dir, 'sa.pub');
  const privateKeyPath = join(dir, 'sa.key');
  writeFileSync(publicKeyPath, publicKey);
  writeFileSync(privateKeyPath, privateKey, { mode: 0o600 });
  return { publicKeyPath, privateKeyPath };
}

function kubeconfigYaml(options: { url: string; caPath: string; token: string; impersonate?: string }): string {
  const caData = Buffer.from(readFileSync(options.caPath)).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: herald-test',
    '  cluster:',
    `    server: ${options.url}`,
    `    certificate-authority-data: ${caData}`,
    'users:',
    '- name: herald-test-user',
    '  user:',
    `    token: ${options.token}`,
    ...(options.impersonate ? [`    as: ${options.impersonate}`] : []),
    'contexts:',
    '- name: herald-test',
    '  context:',
    '    cluster: herald-test',
    '    user: herald-test-user',
    'current-context: herald-test',
    '',
  ].join('\n');
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

function httpsStatus(url: string, caPath: string, token: string): Promise<number> {
  return new Promise((done) => {
    const req = request(url, { ca: readFileSync(caPath), headers: { authorization: `Bearer ${token}` }, timeout: 2_000 }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('error', () => done(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function waitUntilReady(url: string, caPath: string, token: string, processes: ChildProcess[], logPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const child of processes) {
      if (child.exitCode !== null) {
        throw new Error(`${child.spawnfile} exited early (code ${child.exitCode}); log: ${logPath}\n${readFileSync(logPath, 'utf8').slice(-3_000)}`);
      }
    }
    // /readyz covers storage and post-start hooks; the default namespace means bootstrap is done.
    if ((await httpsStatus(`${url}/readyz`, caPath, token)) === 200 && (await httpsStatus(`${url}/api/v1/namespaces/default`, caPath, token)) === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`kube-apiserver not ready within ${timeoutMs} ms; log: ${logPath}`);
}

export async function startKubeApiserver(): Promise<RunningKubeApiserver> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-kube-'));
  const log = createWriteStream(join(dir, 'control-plane.log'));
  const logPath = join(dir, 'control-plane.log');
  const { certPath, keyPath } = writeSelfSignedCertificate(dir);
  const { publicKeyPath, privateKeyPath } = writeServiceAccountKeys(dir);
  const adminToken = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${adminToken},herald-test-admin,herald-test-admin,"system:masters"\n`, { mode: 0o600 });

  const kinePort = await freePort();
  const kine = spawn(kubeToolBinary('kine'), [
    `--endpoint=sqlite://${join(dir, 'kine.db')}?_journal=WAL&cache=shared&_busy_timeout=30000`,
    `--listen-address=127.0.0.1:${kinePort}`,
    '--metrics-bind-address=0',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  kine.stdout?.pipe(log, { end: false });
  kine.stderr?.pipe(log, { end: false });

  const apiPort = await freePort();
  const apiserver = spawn(kubeToolBinary('kube-apiserver'), [
    `--etcd-servers=http://127.0.0.1:${kinePort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    `--cert-dir=${dir}`,
    `--tls-cert-file=${certPath}`,
    `--tls-private-key-file=${keyPath}`,
    `--token-auth-file=${tokenFile}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${publicKeyPath}`,
    `--service-account-signing-key-file=${privateKeyPath}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    '--endpoint-reconciler-type=none',
    '--enable-priority-and-fairness=false',
    // Watches end after 10-20 s instead of 30-60 min, so every test run also exercises the
    // operator's re-watch from its last resourceVersion.
    '--min-request-timeout=10',
    '--profiling=false',
    '--v=0',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  apiserver.stdout?.pipe(log, { end: false });
  apiserver.stderr?.pipe(log, { end: false });

  const stop = async (): Promise<void> => {
    await stopChild(apiserver, 10_000);
    await stopChild(kine, 5_000);
    log.end();
    if (!process.env.HERALD_KEEP_KUBE_DIR) rmSync(dir, { recursive: true, force: true });
  };

  const url = `https://127.0.0.1:${apiPort}`;
  try {
    await waitUntilReady(url, certPath, adminToken, [kine, apiserver], logPath, 90_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const kubeconfigPath = join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfigPath, kubeconfigYaml({ url, caPath: certPath, token: adminToken }), { mode: 0o600 });
  const operatorKubeconfigPath = join(dir, 'operator-kubeconfig.yaml');
  writeFileSync(operatorKubeconfigPath, kubeconfigYaml({
    url,
    caPath: certPath,
    token: adminToken,
    impersonate: `system:serviceaccount:${operatorServiceAccount.namespace}:${operatorServiceAccount.name}`,
  }), { mode: 0o600 });
  return { url, kubeconfigPath, operatorKubeconfigPath, caPath: certPath, adminToken, stop };
}
