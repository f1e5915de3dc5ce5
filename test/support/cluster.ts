// A real one-node Kubernetes cluster for the end-to-end tests (scripts/cluster.sh): started by a
// test file, torn down by it. Commands run asynchronously so a test's own timers and HTTP servers
// keep running while kubectl or helm waits.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function run(
  binary: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolveRun) => {
    const child = execFile(
      binary,
      args,
      {
        cwd: options.cwd ?? repoRoot,
        env: options.env ?? process.env,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        timeout: options.timeoutMs ?? 300_000,
        killSignal: 'SIGTERM',
      },
      (error, stdout, stderr) => {
        const code = error && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : error ? -1 : 0;
        resolveRun({ status: code, stdout, stderr: stderr || (error && code === -1 ? String(error) : '') });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export async function runOk(binary: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<string> {
  const result = await run(binary, args, options);
  if (result.status !== 0) {
    throw new Error(`${binary.split('/').pop()} ${args.join(' ')} failed (${result.status}):\n${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

function tool(name: 'kubectl' | 'helm'): string {
  const bin = join(repoRoot, '.tools/bin', name);
  if (!existsSync(bin)) throw new Error(`${name} is not built: run 'make tools-kube' first`);
  return bin;
}

/** Builds deploy/Dockerfile on the local base (a no-op when nothing changed); returns its tag. */
export async function heraldImage(): Promise<string> {
  return (await runOk('bash', ['scripts/tools/herald-image.sh'], { timeoutMs: 1_200_000 })).trim();
}

export interface Cluster {
  name: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<CommandResult>;
  kubectlOk(args: string[], input?: string): Promise<string>;
  helm(args: string[]): Promise<CommandResult>;
  /** Imports more images built on the machine's Docker engine into the node. */
  load(images: string[]): Promise<void>;
  /** Removes the node, its volumes and its network. */
  stop(): Promise<void>;
}

/** Starts a cluster with `images` imported into its node; seconds it took are in `startSeconds`. */
export async function startCluster(images: string[]): Promise<Cluster & { startSeconds: number }> {
  const name = `herald-e2e-${randomBytes(3).toString('hex')}`;
  const started = Date.now();
  const up = await run('bash', ['scripts/cluster.sh', 'up', name, ...images], { timeoutMs: 1_800_000 });
  if (up.status !== 0) {
    await run('bash', ['scripts/cluster.sh', 'down', name]);
    throw new Error(`cluster ${name} did not start:\n${up.stderr}`);
  }
  const kubeconfig = up.stdout.trim().split('\n').pop() ?? '';
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const kubectl = (args: string[], input?: string) => run(tool('kubectl'), args, { env, input });
  return {
    name,
    kubeconfig,
    startSeconds: (Date.now() - started) / 1000,
    kubectl,
    kubectlOk: (args, input) => runOk(tool('kubectl'), args, { env, input }),
    helm: (args) => run(tool('helm'), args, { env }),
    load: async (more) => {
      await runOk('bash', ['scripts/cluster.sh', 'load', name, ...more], { timeoutMs: 600_000 });
    },
    stop: async () => {
      await run('bash', ['scripts/cluster.sh', 'down', name]);
    },
  };
}

/** Names of containers and networks of `name` still known to Docker (empty once it is down). */
export async function leftovers(name: string): Promise<string[]> {
  const containers = await run('docker', ['ps', '-aq', '--filter', `name=^${name}$`]);
  const networks = await run('docker', ['network', 'ls', '-q', '--filter', `name=^${name}$`]);
  return [...containers.stdout.split('\n'), ...networks.stdout.split('\n')].filter((line) => line.trim() !== '');
}
